/**
 * Text from a server, made safe to show: shared by the client's error messages and the CLI's table
 * cells, so both strip the same characters.
 */

/**
 * C0 and C1 controls, DEL, the Unicode line and paragraph separators, and the bidirectional controls
 * (ALM U+061C, LRM/RLM U+200E-U+200F, embeddings and overrides U+202A-U+202E, isolates
 * U+2066-U+2069): server text must not move the cursor, recolour, break a log line, or reorder what
 * a terminal or a log viewer displays.
 */
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** Replaces every control, separator or bidi control character of `text` with `replacement`. */
export function replaceUnsafe(text: string, replacement: string): string {
  return text.replace(UNSAFE, replacement);
}
