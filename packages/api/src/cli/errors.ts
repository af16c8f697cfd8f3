/**
 * From a failure to what the user sees: one message on stderr, in the words of the command line
 * (flags and environment variables, not the client's option names), and one exit code per class.
 */
import { SvcApiError } from '../index.js';
import { UsageError } from './args.js';
import type { Command } from './command.js';
import { PROXY_VARS } from '../proxy.js';
import { OutputError } from './io.js';
import type { Io } from './io.js';

/** Exit codes, one per error class (documented in the README and in --help). */
export const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  forbidden: 4,
  notFound: 5,
  network: 6,
  server: 7,
  badResponse: 8,
  output: 9,
  tooLarge: 10,
  interrupted: 130,
} as const;

export const EXIT_HELP = `Exit codes:
  0    success
  1    unexpected internal error
  2    usage: unknown command or flag, invalid value, SVC_API_TOKEN or the base URL missing or invalid
  3    authentication (HTTP 401): the token is missing, malformed or expired
  4    permission (HTTP 403): the key is not scoped to this deployment, the caller is not an admin, or not the SCIM token
  5    not found (HTTP 404): the notification is not in this deployment, or a wrong base URL
  6    network: no response (connection refused, DNS, TLS, timeout), after retries
  7    server: HTTP 429, 5xx (after retries, or at once when Retry-After asks too long), a redirect, another status
  8    invalid response: wrong content type, malformed JSON, wrong shape, or a pagination loop
  9    output: stdout could not be written (a full disk, for example)
  10   too large for a table: the responses passed --max-bytes (default 64 MiB); use --format csv or ndjson
  130  interrupted (Ctrl-C)`;

/**
 * The table format read more than it may hold: it needs every row before it prints one. The formats that
 * write each page as it arrives have no such limit.
 */
export class ListingTooLarge extends Error {
  constructor(
    readonly limit: number,
    readonly command: string,
  ) {
    super(
      `the listing passed ${limit % (1024 * 1024) === 0 ? `${limit / (1024 * 1024)} MiB` : `${limit} bytes`} of responses ` +
        '(--max-bytes) before it ended: the table needs every row before it prints one. ' +
        'Use --format csv or --format ndjson, which write each page as it arrives, or raise --max-bytes',
    );
    this.name = 'ListingTooLarge';
  }
}

/**
 * The client's option and parameter names, as the user of the CLI knows them. Only a message's
 * leading name is a client name; "the token option" is the one other place one appears.
 */
export function cliWording(message: string, names: Readonly<Record<string, string>>): string {
  const all: Record<string, string> = {
    token: 'SVC_API_TOKEN',
    maxRetries: '--max-retries',
    timeoutMs: '--timeout',
    ...names,
  };
  const lead = /^[A-Za-z]+\b/.exec(message)?.[0];
  const text = lead !== undefined && Object.hasOwn(all, lead) ? `${all[lead]}${message.slice(lead.length)}` : message;
  return text.replace('the token option', 'SVC_API_TOKEN');
}

/** A client TypeError/RangeError (bad input, nothing sent) as a usage error; anything else as is. */
export function asUsageError(err: unknown, names: Readonly<Record<string, string>>, command: string): unknown {
  return err instanceof TypeError || err instanceof RangeError
    ? new UsageError(cliWording(err.message, names), command)
    : err;
}

/**
 * Where a stopped listing resumes: the flag and its value, for the last line on stderr. Kept by the error that
 * stopped it, as {@link withBaseUrl} keeps the base URL.
 */
export interface Resume {
  readonly flag: '--after' | '--start-index';
  /** The value as a shell reads it back (quoted when it must be), or undefined when it cannot be shown safely. */
  readonly value: string | undefined;
}

const resumes = new WeakMap<object, Resume>();

/** Notes where the listing that `err` stopped may resume; returns `err` as it was. */
export function withResume(err: unknown, resume: Resume): unknown {
  if (err !== null && typeof err === 'object') resumes.set(err, resume);
  return err;
}

/**
 * A value for a shell command line: as it is when it holds only characters no shell treats specially, else in
 * single quotes. Undefined for a value that no line can carry (a control or non-ASCII character).
 */
export function shellWord(value: string): string | undefined {
  if (/^[A-Za-z0-9._~+/=:@%,-]+$/.test(value)) return value;
  if (!/^[\x20-\x7e]+$/.test(value)) return undefined;
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The last line of a listing that stopped early: how to go on from the last page it wrote. */
function resumeLine(err: unknown, program: string): string {
  const resume = err !== null && typeof err === 'object' ? resumes.get(err) : undefined;
  if (!resume) return '';
  if (resume.value === undefined) {
    return `${program}: the position after the last page written cannot be shown safely: to resume, run the listing again from its start\n`;
  }
  return `${program}: to resume after the last page written, run the same command with ${resume.flag} ${resume.value}\n`;
}

/** Where a command's base URL came from (the flag or the variable), and its value as the client normalised it. */
export interface BaseUrlSource {
  readonly name: '--base-url' | 'SVC_BASE_URL';
  readonly value: string;
}

const baseUrls = new WeakMap<SvcApiError, BaseUrlSource>();

/** Notes which base URL a failed call went to, so that {@link report} can name it; returns `err` as it was. */
export function withBaseUrl(err: unknown, source: BaseUrlSource): unknown {
  if (err instanceof SvcApiError) baseUrls.set(err, source);
  return err;
}

/**
 * When the client's own words (not the server's, appended as its detail) say to check the base URL, and the base
 * URL has no /api at its end: the setting to change, by the name the user gave it, and the value to try.
 */
function baseUrlHint(err: SvcApiError): string | undefined {
  const source = baseUrls.get(err);
  if (!source) return undefined;
  const cut = err.detail === undefined ? -1 : err.message.lastIndexOf(err.detail);
  if (!/\bbase URL\b/.test(cut < 0 ? err.message : err.message.slice(0, cut))) return undefined;
  const { name, value } = source;
  const path = new URL(value).pathname;
  if (/\/api$/.test(path)) return undefined;
  if (path !== '/') return `${name} is ${value}: the API's base address usually ends in /api`;
  const fixed = `${value.replace(/\/$/, '')}/api`;
  return `${name} is ${value}, without /api: try ${name === 'SVC_BASE_URL' ? `SVC_BASE_URL=${fixed}` : `--base-url ${fixed}`}`;
}

/** The host and port a request that got no response went to, from the base URL as the user gave it. */
function triedHost(err: SvcApiError): string {
  const source = baseUrls.get(err);
  if (!source || (err.code !== 'NETWORK_ERROR' && err.code !== 'TIMEOUT')) return '';
  const url = new URL(source.value);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return `; tried ${url.hostname} port ${port} (${source.name})`;
}

/**
 * A base URL that goes on past the API's own base (`.../api/v1`, `.../api/scim/v2`): every path of the API starts with
 * what it ends with, so each request doubles it. A 404 then says so, once, instead of guessing from the status.
 */
function tooDeep(err: SvcApiError, program: string): string | undefined {
  const source = baseUrls.get(err);
  if (!source || err.code !== 'HTTP_ERROR' || err.status !== 404) return undefined;
  const url = new URL(source.value);
  const end = /.\/(v1|scim\/v2)$/i.exec(url.pathname);
  // Without a path before it (`https://host/v1`), the base URL lacks its /api: baseUrlHint says so.
  if (!end) return undefined;
  const fixed = `${url.origin}${url.pathname.slice(0, end.index + 1)}`;
  const set = source.name === 'SVC_BASE_URL' ? `SVC_BASE_URL=${fixed}` : `--base-url ${fixed}`;
  const rid = err.requestId ? ` [request id ${err.requestId}]` : '';
  return (
    `${program}: ${err.method ?? 'GET'} ${(err.path ?? '').split('?')[0]} failed: HTTP 404${rid}: ${source.name} ` +
    `${source.value} ends in /${end[1]}, where the API's own paths begin: the base URL ends before it. Try ${set}\n`
  );
}

/** On a failure to resolve the host without a proxy set: most often a network that only a proxy leads out of. */
function proxyHint(err: SvcApiError, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (err.code !== 'NETWORK_ERROR' || !/\((ENOTFOUND|EAI_AGAIN)\)/.test(err.message)) return undefined;
  if (PROXY_VARS.some((name) => env[name])) return undefined;
  return 'behind a proxy? set HTTPS_PROXY (and NO_PROXY for hosts to reach directly); see docs/cli.md, "Proxies and certificates"';
}

/**
 * When the server itself says that the path does not exist, the base URL is the likely fault, whatever the
 * client guessed from the status: the line that leads, naming it as the user gave it.
 */
function noSuchEndpoint(err: SvcApiError): string {
  const source = baseUrls.get(err);
  if (!source || err.status !== 404 || !/\b(no such|unknown) (endpoint|route|path)\b/i.test(err.detail ?? ''))
    return '';
  return `the server has no such endpoint: check the base URL first, ${source.name} ${source.value}\n`;
}

function exitCodeOf(err: SvcApiError): number {
  switch (err.code) {
    case 'HTTP_ERROR':
      return err.status === 401
        ? EXIT.auth
        : err.status === 403
          ? EXIT.forbidden
          : err.status === 404
            ? EXIT.notFound
            : EXIT.server;
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      return EXIT.network;
    case 'REDIRECT':
      return EXIT.server;
    default:
      return EXIT.badResponse;
  }
}

/**
 * Lets a Ctrl-C that came while stdout was blocked reach the signal before a failed write is judged: with stdout a
 * pipe, Node writes synchronously, and the SIGINT handler runs only after the write has come back (EPIPE when the
 * reader went away). One turn of the event loop polls the signal.
 */
export async function signalsDelivered(err: unknown): Promise<void> {
  if (err instanceof OutputError) {
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/**
 * Says what went wrong on stderr and returns the exit code. `program` is the executable's name, the
 * prefix of every message: `svc-embed`, or a command run on its own (`svc-embed-tenant`).
 */
export function report(
  err: unknown,
  io: Io,
  command: Command | undefined,
  signal: AbortSignal,
  program = 'svc-embed',
): number {
  if (err instanceof UsageError) {
    const usage = err.command && err.command !== program ? `${program} ${err.command}` : program;
    io.err(`${program}: ${err.message}\nRun "${usage} --help" for usage.\n`);
    return EXIT.usage;
  }
  if (signal.aborted) {
    // Also when stdout failed meanwhile: a reader that went away after Ctrl-C does not make the run a success.
    io.err(`${io.live ? '\n' : ''}${program}: interrupted\n${resumeLine(err, program)}`);
    return EXIT.interrupted;
  }
  if (err instanceof OutputError) {
    // The reader went away (piped into head, for example): that is how pipes end, not a failure.
    if (err.code === 'EPIPE') return EXIT.ok;
    // Node's own message starts with the code: "ENOSPC: no space left on device, write".
    const said = err.cause instanceof Error ? err.cause.message : '';
    io.err(`${program}: cannot write to stdout: ${said.startsWith(err.code) ? said : err.code}\n`);
    return EXIT.output;
  }
  if (err instanceof ListingTooLarge) {
    io.err(`${program}: ${err.message}\n`);
    return EXIT.tooLarge;
  }
  if (err instanceof SvcApiError) {
    const deep = tooDeep(err, program);
    if (deep) {
      io.err(`${deep}${resumeLine(err, program)}`);
      return exitCodeOf(err);
    }
    const hint =
      baseUrlHint(err) ??
      command?.hint?.(err) ??
      (err.status === 401 ? 'check SVC_API_TOKEN' : undefined) ??
      proxyHint(err, io.env);
    const lead = noSuchEndpoint(err);
    io.err(
      `${lead && `${program}: ${lead}`}${program}: ${err.message}${triedHost(err)}${hint ? `\nhint: ${hint}` : ''}\n` +
        resumeLine(err, program),
    );
    return exitCodeOf(err);
  }
  let text: string;
  try {
    text = err instanceof Error ? err.message : String(err);
  } catch {
    text = 'a value that cannot be shown';
  }
  io.err(`${program}: unexpected error: ${text}\n`);
  return EXIT.internal;
}
