/**
 * Command-line parsing: flags as each command declares them, with the mistakes a user makes named
 * precisely (an unknown flag with the closest known one, a flag given twice, a missing value).
 */
import { ELLIPSIS, replaceUnsafe } from '../text.js';

/** A flag: `string` takes a value (`--name value` or `--name=value`), `boolean` takes none. */
export interface FlagSpec {
  readonly type: 'string' | 'boolean';
  /** A one-letter alias, written `-x`. */
  readonly short?: string;
  /** A string flag that may be given more than once; its value is then the list, in order. */
  readonly repeat?: boolean;
  /** A flag users reach for that the command refuses on purpose: what to do instead. Its value is never read. */
  readonly refused?: string;
}

export type FlagSpecs = Readonly<Record<string, FlagSpec>>;

/** Parsed flags by long name: the value of a string flag (the list of a repeatable one), `true` for a boolean one. */
export type Flags = Readonly<Record<string, string | true | readonly string[] | undefined>>;

/** A mistake in the command line or the environment; nothing was sent. */
export class UsageError extends Error {
  /** @param command - The command whose `--help` to point at, if any. */
  constructor(
    message: string,
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** Flags that every command takes. */
export const GLOBAL_FLAGS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const satisfies FlagSpecs;

/** Flags of every command that calls the API. */
export const API_FLAGS = {
  format: { type: 'string' },
  'base-url': { type: 'string' },
  'max-retries': { type: 'string' },
  timeout: { type: 'string' },
  quiet: { type: 'boolean', short: 'q' },
  'max-bytes': { type: 'string' },
  token: {
    type: 'string',
    refused:
      'the token is read from SVC_API_TOKEN only (export SVC_API_TOKEN=<token>), never from a flag, which would leave it in shell history and process listings',
  },
} as const satisfies FlagSpecs;

export const API_HELP = `Environment:
  SVC_API_TOKEN   the API key, OAuth access token or SCIM token (required; never passed as a flag)
  SVC_BASE_URL    the base address, e.g. https://acme.example.com/api (or use --base-url)

Common options:
  --format <f>      table (default), json (one JSON array), ndjson (one JSON object a line) or csv (a
                    header row, then one row per item); json, ndjson and csv are written as pages arrive
  --max-bytes <n>   table only: stop when the responses pass n bytes (default 67108864, 64 MiB)
  --base-url <url>  the base address; overrides SVC_BASE_URL
  --max-retries <n> retries after HTTP 429/502/503/504, a network error or a timeout, 0 to 10 (default 2)
  --timeout <ms>    time limit of each request (default 30000)
  -q, --quiet       no progress or summary on stderr
  -h, --help        this help
  -v, --version     print the version`;

/** User input quoted for a message: one bounded line, with nothing a terminal would act on. */
export function quote(text: string, max = 40): string {
  const safe = replaceUnsafe(text, '?');
  return `"${safe.length > max ? `${safe.slice(0, max - 1)}${ELLIPSIS}` : safe}"`;
}

/**
 * Edit distance with adjacent transpositions (optimal string alignment), so that `--fromat` is one
 * step from `--format`.
 */
function distance(a: string, b: string): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
      row.push(d);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length];
}

/**
 * The candidate the user most likely meant: one that `input` begins (at least 3 characters), or
 * the nearest within 1 edit for short words and 2 for longer ones; undefined when none is close.
 */
export function closest(input: string, candidates: Iterable<string>): string | undefined {
  if (input.length === 0 || input.length > 64) return undefined;
  const limit = input.length <= 3 ? 1 : 2;
  let best: string | undefined;
  let bestScore = Infinity;
  for (const c of candidates) {
    const score = input.length >= 3 && c.startsWith(input) ? 0.5 : distance(input.toLowerCase(), c.toLowerCase());
    if (score < bestScore) {
      best = c;
      bestScore = score;
    }
  }
  return bestScore <= limit ? best : undefined;
}

/** `; did you mean X?` when a candidate is close, else nothing. */
export function didYouMean(input: string, candidates: Iterable<string>, show = (c: string) => c): string {
  const near = closest(input, candidates);
  return near === undefined ? '' : `; did you mean ${show(near)}?`;
}

/**
 * A positional argument that is not taken, named by its position on the command line, never by its value: it
 * is often a token pasted in the wrong place, and a usage error is printed, logged and screenshotted.
 */
/**
 * An unknown flag as a message names it: as typed when it looks like a flag (letters and dashes, short), else by
 * position, like a stray argument (`-sk-live-...` is a token pasted with a dash, not a flag).
 */
const unknownFlag = (text: string, position: number): string =>
  /^--?[A-Za-z][A-Za-z-]{0,23}$/.test(text) ? `unknown flag ${quote(text)}` : `unknown flag at position ${position}`;

export const unexpectedArgument = (position: number, command: string): string =>
  `unexpected argument at position ${position}: ${command} takes flags only (the argument is not shown: it may be a secret)`;

/**
 * Parses `args` against `specs`. Refuses, as a {@link UsageError}: an unknown flag (with the closest
 * known one), a value flag given twice or without its value, a value for a boolean flag, and any
 * positional argument. `before` is how many arguments precede `args` on the command line (the
 * subcommand's name), so that a stray argument is named by its position.
 */
export function parseFlags(args: readonly string[], specs: FlagSpecs, command: string, before = 0): Flags {
  const values: Record<string, string | true | string[]> = Object.create(null) as Record<
    string,
    string | true | string[]
  >;
  const shorts = new Map(Object.entries(specs).flatMap(([name, s]) => (s.short ? [[s.short, name] as const] : [])));
  const fail = (message: string) => new UsageError(message, command);
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      if (i + 1 < args.length) throw fail(unexpectedArgument(before + i + 2, command));
      break;
    }
    let name: string | undefined;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq < 0 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq < 0 ? undefined : arg.slice(eq + 1);
    } else if (arg.length > 1 && arg.startsWith('-')) {
      name = shorts.get(arg.slice(1));
      if (name === undefined) {
        throw fail(
          `${unknownFlag(arg, before + i + 1)}${didYouMean(arg.slice(1), Object.keys(specs), (c) => `--${c}`)}`,
        );
      }
    } else {
      throw fail(unexpectedArgument(before + i + 1, command));
    }
    const spec = Object.hasOwn(specs, name) ? specs[name] : undefined;
    if (spec === undefined) {
      const known = Object.keys(specs).filter((k) => specs[k].refused === undefined);
      throw fail(`${unknownFlag(`--${name}`, before + i + 1)}${didYouMean(name, known, (c) => `--${c}`)}`);
    }
    // Refused before its value is read: the value (a pasted token, say) is never echoed.
    if (spec.refused !== undefined) throw fail(`unknown flag "--${name}": ${spec.refused}`);
    if (spec.type === 'boolean') {
      if (inline !== undefined) throw fail(`--${name} takes no value`);
      values[name] = true;
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = args[i + 1];
      // A dash-led word is far more often the next flag than a value: `--deployment --notification 1`.
      if (next === undefined || (next.startsWith('-') && next !== '-')) {
        throw fail(
          `--${name} needs a value${next === undefined ? '' : ` (for a value that starts with "-", write --${name}=<value>)`}`,
        );
      }
      value = next;
      i++;
    }
    if (spec.repeat) {
      values[name] = [...((values[name] as string[] | undefined) ?? []), value];
      continue;
    }
    if (Object.hasOwn(values, name)) throw fail(`--${name} is given more than once; give it once`);
    values[name] = value;
  }
  return values;
}

/** A flag holding a non-negative decimal integer; `required` refuses its absence. */
export function integerFlag(
  flags: Flags,
  name: string,
  required: boolean,
  command: string,
  form = 'a positive integer',
): number | undefined {
  const value = flags[name];
  if (value === undefined) {
    if (required) throw new UsageError(`--${name} is required`, command);
    return undefined;
  }
  if (typeof value !== 'string' || !/^[0-9]{1,16}$/.test(value))
    throw new UsageError(`--${name} must be ${form}`, command);
  return Number(value);
}

/**
 * A flag whose value is one of `choices`; absent, `fallback`. With `anyCase`, a value in another case counts as the
 * choice, which is returned as `choices` spell it.
 */
export function choiceFlag<C extends string>(
  flags: Flags,
  name: string,
  choices: readonly C[],
  fallback: C | undefined,
  command: string,
  anyCase = false,
): C | undefined {
  const value = flags[name];
  if (value === undefined) return fallback;
  const same = (c: string) =>
    c === value || (anyCase && typeof value === 'string' && c.toLowerCase() === value.toLowerCase());
  const choice = choices.find(same);
  if (choice !== undefined) return choice;
  const list = `${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]}`;
  throw new UsageError(
    `--${name} must be ${list}${typeof value === 'string' ? didYouMean(value, choices) : ''}`,
    command,
  );
}
