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

/**
 * `JSON.stringify` output with the unsafe characters it leaves raw written as `\uXXXX` escapes
 * instead: the same JSON value, nothing lost, and nothing left for a terminal to act on. (It already
 * escapes the C0 controls inside strings; outside strings there is only its own whitespace.)
 */
export function escapeUnsafeJson(json: string): string {
  // A C0 control outside a string is JSON's own whitespace (indentation); inside one, JSON.stringify has escaped it,
  // and lone surrogates too.
  return json.replace(UNSAFE_ALL, (c) => (c < ' ' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

const UNSAFE_ALL = new RegExp(UNSAFE_CHARS.source, 'gu');
