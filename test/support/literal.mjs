// Test inputs in test names: `literal(value)` writes a value the way it would be typed in the test,
// with every character outside printable ASCII as a \uXXXX escape, so that an invisible or
// look-alike character can never hide in a name. JSON.stringify alone leaves U+007F, C1 controls,
// line and paragraph separators, bidirectional controls and the like raw.
// Shared by the browser tests (test/browser) and the Node tests (test/node).

const escape = (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
const escapeAll = (text) => text.replace(/[^\x20-\x7e]/g, escape);

/**
 * `value` as source-like text: a string double-quoted, with `"` and `\` escaped and every UTF-16 unit
 * outside U+0020–U+007E as `\uXXXX` (a line feed too); `undefined`, `NaN`, `-0`, `1n` and symbols as
 * written; objects and arrays as JSON, whose own escapes (`\n`) stay, and with the same `\uXXXX` for
 * whatever JSON leaves raw.
 */
export function literal(value) {
  if (typeof value === 'string') return `"${escapeAll(value.replace(/["\\]/g, '\\$&'))}"`;
  if (typeof value === 'bigint') return `${value}n`;
  if (Object.is(value, -0)) return '-0';
  if (typeof value === 'object' && value !== null) {
    let json;
    try {
      json = JSON.stringify(value);
    } catch {
      // a cycle, or a BigInt inside
    }
    if (json !== undefined) return escapeAll(json);
  }
  return escapeAll(String(value));
}
