/**
 * `value` as source-like text for a test name: every character outside printable ASCII as `\uXXXX`.
 * See literal.mjs.
 */
export declare function literal(value: unknown): string;
