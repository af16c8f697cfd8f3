// The rules that the element, the REST client and the simulated tenant all apply, each defined once here. This file
// is ASCII: the client's command is bundled into an ASCII-only file (other characters are written as escapes).

/** A loopback host name as `URL.hostname` gives it: `localhost`, the IPv4 block 127.0.0.0/8, or `[::1]`. */
export const isLoopbackHost = (hostname: string): boolean =>
  hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);

/**
 * Characters that change how text is displayed, logged or parsed, and never belong in a path, a session or a line
 * of output: the C0 and C1 controls, DEL, the Arabic letter mark, LRM and RLM, the line and paragraph separators,
 * the bidirectional embeddings, overrides and isolates, lone surrogates (which also make `encodeURIComponent`
 * throw), and the invisible ones that could hide inside a word (a token, say) without showing: the zero-width
 * space, non-joiner and joiner, the word joiner and the byte order mark (U+200B-U+200D, U+2060, U+FEFF).
 */
// eslint-disable-next-line no-control-regex -- the control characters are what it matches
export const UNSAFE_CHARS = /[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]|\p{Cs}/u;

const UNSAFE_ALL = new RegExp(UNSAFE_CHARS.source, 'gu');

/**
 * `text` with every unsafe character (see {@link UNSAFE_CHARS}) replaced by `replacement`. Most text has none:
 * one test finds that, and the text comes back as it is (a listing of a million rows calls this for every cell).
 */
export const replaceUnsafe = (text: string, replacement: string): string =>
  UNSAFE_CHARS.test(text) ? text.replace(UNSAFE_ALL, replacement) : text;

/**
 * A dashboard's public id: one path segment of 1 to 256 unreserved characters (`A-Z a-z 0-9 - _ . ~`), never `.`
 * or `..`, which the URL parser resolves (encodeURIComponent leaves dots alone; `%2e` resolves the same way).
 */
export const publicIdProblem = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[\w.~-]{1,256}$/.test(value) && !/^\.\.?$/.test(value)
    ? undefined
    : 'must be 1-256 of A-Z a-z 0-9 - _ . ~, not "." or ".."';

/**
 * A session id: a non-empty string without control characters or lone surrogates. Anything else could not be put
 * into a URL as it is, or would change how a log line reads.
 */
export const sessionProblem = (value: unknown): string | undefined =>
  // eslint-disable-next-line no-control-regex -- the control characters are what it refuses
  typeof value === 'string' && value && !/[\x00-\x1f\x7f-\x9f]|\p{Cs}/u.test(value)
    ? undefined
    : 'must be a non-empty string without control characters or lone surrogates';

/** The SCIM 2 schema URNs (RFC 7644) that the client reads and the tenant writes. */
export const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
export const SCIM_LIST_RESPONSE = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const SCIM_USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
