/**
 * Text from a server, made safe to show: shared by the client's error messages and the CLI's table,
 * CSV and JSON output, so that all of them treat the same characters.
 */

/**
 * DEL and the C1 controls, the Unicode line and paragraph separators, and the bidirectional controls
 * (ALM U+061C, LRM/RLM U+200E-U+200F, embeddings and overrides U+202A-U+202E, isolates
 * U+2066-U+2069). `JSON.stringify` leaves all of these raw.
 */
const BEYOND_C0 = '\\u007f-\\u009f\\u061c\\u200e\\u200f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';

/**
 * The C0 controls and everything above: server text must not move the cursor, recolour, break a log
 * line, or reorder what a terminal or a log viewer displays.
 */
const UNSAFE = new RegExp(`[\\u0000-\\u001f${BEYOND_C0}]`, 'g');
const RAW_IN_JSON = new RegExp(`[${BEYOND_C0}]`, 'g');

/**
 * The ellipsis that ends cut text, as an escape: this file and the others of api/ and cli/ are ASCII,
 * so that the CLI's bundle is (see rollup.cli.config.mjs).
 */
export const ELLIPSIS = '\u2026';

/** Replaces every control, separator or bidi control character of `text` with `replacement`. */
export function replaceUnsafe(text: string, replacement: string): string {
  return text.replace(UNSAFE, replacement);
}

/**
 * `JSON.stringify` output with the unsafe characters it leaves raw written as `\uXXXX` escapes
 * instead: the same JSON value, nothing lost, and nothing left for a terminal to act on. (It already
 * escapes the C0 controls inside strings; outside strings there is only its own whitespace.)
 */
export function escapeUnsafeJson(json: string): string {
  return json.replace(RAW_IN_JSON, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
