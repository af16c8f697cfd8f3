import { UNSAFE_CHARS, replaceUnsafe } from '@svc-embed/protocol';

/**
 * Text from a server, made safe to show: shared by the client's error messages and the CLI's table,
 * CSV and JSON output, so that all of them treat the same characters.
 */

/**
 * The ellipsis that ends cut text, as an escape: this file and the others of api/ and cli/ are ASCII,
 * so that the CLI's bundle is (see rollup.cli.config.mjs).
 */
export const ELLIPSIS = '\u2026';

// Server text must not move the cursor, recolour, break a log line, or reorder what a terminal or a log viewer
// displays: the unsafe characters are the protocol's rule, shared with the element and the tenant.
export { replaceUnsafe };

/** The inside of the protocol's class of unsafe characters (UNSAFE_SET), which begins with the C0 controls (C0). */
const C0 = '\\x00-\\x1f';
const UNSAFE_SET = /^\[(.*)\]\|\\p\{Cs\}$/.exec(UNSAFE_CHARS.source)?.[1];
if (!UNSAFE_SET?.startsWith(C0))
  throw new Error('UNSAFE_CHARS is no longer one class from the C0 controls on, and the surrogates');

/**
 * The unsafe characters but the C0 controls: what escapeUnsafeJson rewrites. A C0 control outside a string is JSON's
 * own whitespace (a line break of the indentation), which stays; inside one, JSON.stringify has escaped it, and lone
 * surrogates too. With the C0 controls in the pattern, every line break of a page was matched only to be handed back:
 * 44 microseconds for a page of 200 recipients with names beyond ASCII, against 11 without.
 */
const UNSAFE_IN_JSON = new RegExp(`[${UNSAFE_SET.slice(C0.length)}]|\\p{Cs}`, 'gu');

/**
 * `JSON.stringify` output with the unsafe characters it leaves raw written as `\uXXXX` escapes
 * instead: the same JSON value, nothing lost, and nothing left for a terminal to act on. (It already
 * escapes the C0 controls inside strings; outside strings there is only its own whitespace.)
 */
export function escapeUnsafeJson(json: string): string {
  return json.replace(UNSAFE_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** What a token shows as in any text the client or the command writes. */
export const REDACTED = '[REDACTED]';

/**
 * What may stand between a token's characters once a server has echoed it and a message has been made safe:
 * unsafe characters (a BEL, a zero-width space), whitespace (a line break, or the space that replaced an unsafe
 * character), and `?` (the other replacement). One character class, never alternatives that overlap: with
 * U+2028 matched two ways, a run of them took seconds to fail to match.
 */
const FILLER = `[\\s?${UNSAFE_SET}\\p{Cs}]*`;

/**
 * The same between the characters of a URL-encoded token (a cursor in a request's path): the UTF-8 escapes of
 * those characters, and `+` or `%20` for a space. None of them is a piece of an encoded token, so the two
 * never compete for the same text.
 */
const ENCODED_FILLER =
  '(?:%(?:[01][0-9A-F]|20|3F|7F|C2%[89][0-9A-F]|D8%9C|E2%80%(?:8[B-F]|A[8-E])|E2%81%(?:A0|A[6-9])|EF%BB%BF)|\\+)*';

/** The last redactor made, and its token: the command and its client redact the same token with one pattern. */
let made: { token: string; redact: (text: string) => string } | undefined;

/**
 * Replaces a token in any text: raw or URL-encoded, in any letter case, and also when characters are slipped
 * between its own (`sk-live-\u200bABC`, `sk-live-\u0007ABC`, or the `sk-live- ABC` that a neutraliser makes of
 * them). Apply it to text as it will be shown, after every normalisation. Tokens have at least 8 characters
 * (the client checks), so this cannot mangle ordinary words.
 *
 * The pattern is large (the filler between every two characters, in three forms) and cost milliseconds to
 * build and compile, in a command that runs for a fraction of a second; most text it sees is a content type or
 * a request id, which cannot hold the token. So it is built only for text that might: as long as the token at
 * least, holding a character that a match can begin with and one it can end with (in any letter case, the
 * pattern's own flags). Text without them comes back as it is, as the pattern would give it back.
 */
export function redactor(token: string): (text: string) => string {
  if (made?.token === token) return made.redact;
  const escape = (unit: string) => unit.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
  // A URL-encoded form in its units: a character, or a %XX escape (never split by filler).
  const units = (form: string) => form.match(/%[0-9A-Fa-f]{2}|[^]/gu) ?? [];
  const chars = [...token];
  const encoded = [...new Set([encodeURIComponent(token), new URLSearchParams({ t: token }).toString().slice(2)])].map(
    units,
  );
  // A match is at least one unit of text per character of the token.
  const shortest = chars.length;
  // The characters (code points) a match can begin or end with: a unit's first or last.
  const ends = (pick: (units: string[]) => string) =>
    new RegExp([...new Set([chars, ...encoded].map((u) => pick(u)))].map(escape).join('|'), 'iu');
  const begins = ends((u) => [...u[0]][0]);
  const finishes = ends((u) => [...u[u.length - 1]].pop()!);
  let pattern: RegExp | undefined;
  const build = () => {
    const forms = [chars.map(escape).join(FILLER), ...encoded.map((u) => u.map(escape).join(ENCODED_FILLER))];
    return new RegExp(forms.sort((a, b) => b.length - a.length).join('|'), 'giu');
  };
  const redact = (text: string) =>
    text.length < shortest || !begins.test(text) || !finishes.test(text)
      ? text
      : text.replace((pattern ??= build()), REDACTED);
  made = { token, redact };
  return redact;
}
