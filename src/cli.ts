#!/usr/bin/env node
/**
 * `svc-embed`: the command-line face of `svc-embed/api`.
 *
 *   svc-embed recipients --deployment 1 --notification 10 [--first 200] [--format table|json|csv] [--base-url URL]
 *   svc-embed scim-users [--format ...] [--auth-scheme Bearer|Api-Key] [--count N] [--base-url URL]
 *
 * The token only ever comes from the environment (SVC_API_TOKEN): a flag would leave it in shell
 * history and in every process listing. Data goes to stdout, progress and errors to stderr.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SvcApiError, SvcClient } from './api/index.js';
import type { NotificationRecipient, PageProgress, RetryInfo, ScimUser } from './api/index.js';
import { replaceUnsafe } from './api/text.js';

/** Exit codes, one per error class (documented in the README and in --help). */
const EXIT = {
  ok: 0,
  internal: 1,
  usage: 2,
  auth: 3,
  forbidden: 4,
  notFound: 5,
  network: 6,
  server: 7,
  badResponse: 8,
  interrupted: 130,
} as const;

const EXIT_HELP = `Exit codes:
  0    success
  1    unexpected internal error
  2    usage: unknown command or flag, invalid value, SVC_API_TOKEN or the base URL missing or invalid
  3    authentication (HTTP 401): the token is missing, malformed or expired
  4    permission (HTTP 403): the key is not scoped to this deployment, or the caller is not an admin
  5    not found (HTTP 404): the notification is not in this deployment, or a wrong base URL
  6    network: no response (connection refused, DNS, TLS, timeout), after retries
  7    server: HTTP 429, 5xx (after retries), a redirect, or another unexpected status
  8    invalid response: wrong content type, malformed JSON, wrong shape, or a pagination loop
  130  interrupted (Ctrl-C)`;

const COMMON_HELP = `Environment:
  SVC_API_TOKEN   the API key, OAuth access token or SCIM token (required; never passed as a flag)
  SVC_BASE_URL    the base address, e.g. https://acme.example.com/api (or use --base-url)

Common options:
  --format <f>      table (default), json (one JSON array) or csv (a header row, then one row per item)
  --base-url <url>  the base address; overrides SVC_BASE_URL
  --max-retries <n> retries after HTTP 429/502/503/504, a network error or a timeout, 0 to 10 (default 2)
  --timeout <ms>    time limit of each request (default 30000)
  -q, --quiet       no progress or summary on stderr
  -h, --help        this help`;

const HELP = {
  main: `Usage: svc-embed <command> [options]

Commands:
  recipients   list every recipient of a notification (GET /v1/deployments/{id}/notifications/{id}/recipients)
  scim-users   list every SCIM user (GET /scim/v2/Users)

Run "svc-embed <command> --help" for a command's options.
  -v, --version   print the version

${COMMON_HELP}

${EXIT_HELP}
`,
  recipients: `Usage: svc-embed recipients --deployment <id> --notification <id> [--first <n>] [--format table|json|csv] [--base-url <url>] [...]

Lists every recipient of a notification, following the pagination cursors. Needs an admin API key.

Options:
  --deployment <id>     numeric deployment id (required)
  --notification <id>   numeric notification id (required)
  --first <n>           page size, 1 to 200 (default: the server's, 100)

${COMMON_HELP}

${EXIT_HELP}
`,
  'scim-users': `Usage: svc-embed scim-users [--format table|json|csv] [--auth-scheme Bearer|Api-Key] [--count <n>] [--base-url <url>]

Lists every SCIM user, page after page. SVC_API_TOKEN holds the SCIM token.

Options:
  --auth-scheme <s>   Bearer (default) or Api-Key
  --count <n>         page size, a positive integer (default: the server's)

${COMMON_HELP}

${EXIT_HELP}
`,
};

/** A mistake in the command line or the environment; nothing was sent. */
class UsageError extends Error {
  constructor(message: string, readonly command?: keyof typeof HELP) {
    super(message);
  }
}

type Format = 'table' | 'json' | 'csv';
type Row = Record<string, unknown>;

/** Flag definitions for node:util parseArgs. */
const COMMON = {
  format: { type: 'string' },
  'base-url': { type: 'string' },
  'max-retries': { type: 'string' },
  timeout: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  help: { type: 'boolean', short: 'h' },
} as const;
const OPTIONS = {
  recipients: { ...COMMON, deployment: { type: 'string' }, notification: { type: 'string' }, first: { type: 'string' } },
  'scim-users': { ...COMMON, 'auth-scheme': { type: 'string' }, count: { type: 'string' } },
} as const;

function integerFlag(
  name: string, value: string | undefined, required: boolean, command: keyof typeof HELP, form = 'a positive integer',
): number | undefined {
  if (value === undefined) {
    if (required) throw new UsageError(`--${name} is required`, command);
    return undefined;
  }
  if (!/^[0-9]{1,16}$/.test(value)) throw new UsageError(`--${name} must be ${form}`, command);
  return Number(value);
}

/** The client names its parameters; the user typed flags. */
function flagNames(message: string): string {
  return message.replace(/^(deploymentId|notificationId|first|count|startIndex)\b/, (name) =>
    `--${name === 'deploymentId' ? 'deployment' : name === 'notificationId' ? 'notification' : name}`);
}

function formatFlag(value: string | undefined, command: keyof typeof HELP): Format {
  if (value === undefined) return 'table';
  if (value !== 'table' && value !== 'json' && value !== 'csv') {
    throw new UsageError('--format must be table, json or csv', command);
  }
  return value;
}

// ---- output

const RECIPIENT_COLUMNS = ['type', 'userId', 'email', 'username', 'embedUserId', 'embedTenantName', 'externalId',
  'channelId', 'channelName'] as const;

/** The JSON/CSV record of a recipient: known kinds as typed, unknown kinds as the server sent them. */
function recipientRecord(r: NotificationRecipient): Row {
  return r.type === 'UNKNOWN' ? { ...r.raw } : { ...r };
}

function scimRecord(u: ScimUser): Row {
  const name = (u.name ?? {}) as Row;
  const email = u.emails?.find((e) => e.primary === true) ?? u.emails?.[0];
  return {
    id: u.id, userName: u.userName, externalId: u.externalId ?? null, displayName: u.displayName ?? null,
    givenName: typeof name.givenName === 'string' ? name.givenName : null,
    familyName: typeof name.familyName === 'string' ? name.familyName : null,
    email: email?.value ?? null, active: u.active ?? null,
  };
}

const SCIM_COLUMNS = ['id', 'userName', 'externalId', 'displayName', 'givenName', 'familyName', 'email', 'active'] as const;

/**
 * RFC 4180 cell. Text starting with = + - @ or a tab/CR is prefixed with an apostrophe, so a
 * spreadsheet opening the file does not run a recipient-controlled name as a formula.
 */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c])).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/** Terminal-safe cell: server text must not move the cursor, recolour or reorder the screen. */
function tableCell(value: unknown, max = 40): string {
  if (value === null || value === undefined) return '';
  const text = replaceUnsafe(typeof value === 'object' ? JSON.stringify(value) : String(value), '?');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function toTable(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = rows.map((r) => r.map((v) => tableCell(v)));
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((r) => r[i]!.length)));
  const line = (r: readonly string[]) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return `${[line(headers), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n')}\n`;
}

function recipientsTable(items: readonly NotificationRecipient[]): string {
  const rows = items.map((r) => {
    switch (r.type) {
      case 'USER': return [r.type, r.userId, r.email, r.username, '', '', ''];
      case 'EMBED_USER': return [r.type, r.embedUserId, r.email, r.username, r.embedTenantName, r.externalId, ''];
      case 'SLACK': return [r.type, r.channelId, '', r.username, '', '', r.channelName];
      default: return [`${r.rawType} (unknown kind)`, '', r.raw.email, r.raw.username, '', '', ''];
    }
  });
  return toTable(['TYPE', 'ID', 'EMAIL', 'USERNAME', 'TENANT', 'EXTERNAL ID', 'CHANNEL'], rows);
}

function scimTable(users: readonly ScimUser[]): string {
  const rows = users.map((u) => {
    const r = scimRecord(u);
    return [r.id, r.userName, r.displayName, r.active === null ? '' : r.active ? 'yes' : 'no', r.externalId];
  });
  return toTable(['ID', 'USER NAME', 'DISPLAY NAME', 'ACTIVE', 'EXTERNAL ID'], rows);
}

// ---- running

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  errIsTty: boolean;
}

/** Progress on stderr: one rewritten line on a terminal, one line per page elsewhere. */
function progress(io: Io, quiet: boolean, noun: string) {
  let shown = false;
  return {
    page(p: PageProgress) {
      if (quiet || p.page < 2) return;
      const of = p.total !== undefined ? ` of ${p.total}` : '';
      const text = `svc-embed: page ${p.page}, ${p.received}${of} ${noun} so far`;
      io.err(io.errIsTty ? `\r${text}\x1b[K` : `${text}\n`);
      shown = true;
    },
    retry(r: RetryInfo) {
      if (quiet) return;
      const why = r.status ? `HTTP ${r.status}` : 'network error';
      io.err(`${io.errIsTty && shown ? '\n' : ''}svc-embed: ${why} on ${r.path.split('?')[0]}, retry ${r.retry} in ${(r.delayMs / 1000).toFixed(1)} s\n`);
    },
    done(count: number) {
      if (quiet) return;
      io.err(`${io.errIsTty && shown ? '\r\x1b[K' : ''}svc-embed: ${count} ${noun}\n`);
    },
  };
}

interface ClientFlags {
  'base-url'?: string | undefined;
  'max-retries'?: string | undefined;
  timeout?: string | undefined;
}

function makeClient(io: Io, flags: ClientFlags, extra: { scimAuthScheme?: 'Bearer' | 'Api-Key'; onRetry: (r: RetryInfo) => void }, command: keyof typeof HELP): SvcClient {
  const token = io.env.SVC_API_TOKEN;
  if (token === undefined || token === '') throw new UsageError('SVC_API_TOKEN is not set: export the API token first', command);
  const baseUrl = flags['base-url'] ?? io.env.SVC_BASE_URL;
  const maxRetries = integerFlag('max-retries', flags['max-retries'], false, command, 'an integer from 0 to 10');
  const timeoutMs = integerFlag('timeout', flags.timeout, false, command, 'a number of milliseconds');
  if (baseUrl === undefined || baseUrl === '') throw new UsageError('no base URL: pass --base-url or set SVC_BASE_URL', command);
  try {
    return new SvcClient({
      baseUrl, token, ...extra,
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  } catch (err) {
    // The client's messages name the rule and never echo the token or the URL.
    if (err instanceof TypeError || err instanceof RangeError) {
      throw new UsageError(err.message.replace(/^token/, 'SVC_API_TOKEN').replace(/^maxRetries/, '--max-retries')
        .replace(/^timeoutMs/, '--timeout'), command);
    }
    throw err;
  }
}

async function runRecipients(args: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({ args, options: OPTIONS.recipients, allowPositionals: false, strict: true });
  if (values.help) {
    io.out(HELP.recipients);
    return EXIT.ok;
  }
  const deploymentId = integerFlag('deployment', values.deployment, true, 'recipients')!;
  const notificationId = integerFlag('notification', values.notification, true, 'recipients')!;
  const first = integerFlag('first', values.first, false, 'recipients');
  const format = formatFlag(values.format, 'recipients');
  const show = progress(io, values.quiet === true, 'recipients');
  const client = makeClient(io, values, { onRetry: show.retry }, 'recipients');
  let iterator: AsyncGenerator<NotificationRecipient, void, undefined>;
  try {
    iterator = client.recipients({ deploymentId, notificationId, first, signal, onPage: show.page });
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) throw new UsageError(flagNames(err.message), 'recipients');
    throw err;
  }
  const items: NotificationRecipient[] = [];
  for await (const r of iterator) items.push(r);
  // Output is written only once everything arrived: a failure never leaves half a JSON array.
  if (format === 'json') io.out(`${JSON.stringify(items.map(recipientRecord), null, 2)}\n`);
  else if (format === 'csv') io.out(toCsv(RECIPIENT_COLUMNS, items.map(recipientRecord)));
  else io.out(recipientsTable(items));
  show.done(items.length);
  return EXIT.ok;
}

async function runScimUsers(args: string[], io: Io, signal: AbortSignal): Promise<number> {
  const { values } = parseArgs({ args, options: OPTIONS['scim-users'], allowPositionals: false, strict: true });
  if (values.help) {
    io.out(HELP['scim-users']);
    return EXIT.ok;
  }
  const format = formatFlag(values.format, 'scim-users');
  const count = integerFlag('count', values.count, false, 'scim-users');
  if (count === 0) throw new UsageError('--count must be a positive integer', 'scim-users');
  const scheme = values['auth-scheme'];
  if (scheme !== undefined && scheme !== 'Bearer' && scheme !== 'Api-Key') {
    throw new UsageError('--auth-scheme must be Bearer or Api-Key', 'scim-users');
  }
  const show = progress(io, values.quiet === true, 'users');
  const client = makeClient(io, values, { onRetry: show.retry, ...(scheme ? { scimAuthScheme: scheme } : {}) }, 'scim-users');
  let iterator: AsyncGenerator<ScimUser, void, undefined>;
  try {
    iterator = client.scim.users({ count, signal, onPage: show.page });
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) throw new UsageError(flagNames(err.message), 'scim-users');
    throw err;
  }
  const users: ScimUser[] = [];
  for await (const u of iterator) users.push(u);
  if (format === 'json') io.out(`${JSON.stringify(users, null, 2)}\n`);
  else if (format === 'csv') io.out(toCsv(SCIM_COLUMNS, users.map(scimRecord)));
  else io.out(scimTable(users));
  show.done(users.length);
  return EXIT.ok;
}

function exitCodeOf(err: SvcApiError): number {
  switch (err.code) {
    case 'HTTP_ERROR':
      return err.status === 401 ? EXIT.auth : err.status === 403 ? EXIT.forbidden : err.status === 404 ? EXIT.notFound : EXIT.server;
    case 'NETWORK_ERROR':
    case 'TIMEOUT':
      return EXIT.network;
    case 'REDIRECT':
      return EXIT.server;
    default:
      return EXIT.badResponse;
  }
}

function version(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
    return String(pkg.version);
  } catch {
    return 'unknown';
  }
}

/** Runs one command line; returns the exit code. */
async function main(argv: string[], io: Io, signal: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined) {
      io.err(HELP.main);
      return EXIT.usage;
    }
    if (command === '-h' || command === '--help' || command === 'help') {
      const topic = rest[0];
      io.out(topic === 'recipients' || topic === 'scim-users' ? HELP[topic] : HELP.main);
      return EXIT.ok;
    }
    if (command === '-v' || command === '--version') {
      io.out(`${version()}\n`);
      return EXIT.ok;
    }
    if (command === 'recipients') return await runRecipients(rest, io, signal);
    if (command === 'scim-users') return await runScimUsers(rest, io, signal);
    throw new UsageError(`unknown command "${tableCell(command, 40)}"`);
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`svc-embed: ${err.message}\nRun "svc-embed ${err.command ? `${err.command} ` : ''}--help" for usage.\n`);
      return EXIT.usage;
    }
    if ((err as { code?: unknown } | null)?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION'
      || (err as { code?: unknown } | null)?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
      || (err as { code?: unknown } | null)?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
      io.err(`svc-embed: ${(err as Error).message}\nRun "svc-embed ${command} --help" for usage.\n`);
      return EXIT.usage;
    }
    if (signal.aborted) {
      io.err('\nsvc-embed: interrupted\n');
      return EXIT.interrupted;
    }
    if (err instanceof SvcApiError) {
      const hint = err.status === 401 ? '\nhint: check SVC_API_TOKEN (and --auth-scheme for scim-users)'
        : err.status === 403 && command === 'recipients' ? '\nhint: use an admin API key scoped to this deployment'
        : '';
      io.err(`svc-embed: ${err.message}${hint}\n`);
      return exitCodeOf(err);
    }
    io.err(`svc-embed: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    return EXIT.internal;
  }
}

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  // The reader went away (e.g. piped into head): stop quietly.
  if (err.code === 'EPIPE') process.exit(EXIT.ok);
  throw err;
});
const io: Io = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  env: process.env,
  errIsTty: process.stderr.isTTY === true,
};
process.exitCode = await main(process.argv.slice(2), io, controller.signal);
