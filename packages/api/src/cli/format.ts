/**
 * Output formats. Every cell goes through one neutraliser ({@link replaceUnsafe}): control and
 * bidirectional characters are shown as `?` in the table and in CSV alike, since both end up on
 * terminals (`cat file.csv`). JSON keeps every value exactly, with those characters as `\u` escapes.
 * Row counts are unbounded, so nothing here spreads rows into a call's arguments.
 */
import { ELLIPSIS, escapeUnsafeJson, replaceUnsafe } from '../text.js';

export const FORMATS = ['table', 'json', 'csv'] as const;
export type Format = (typeof FORMATS)[number];
export type Row = Readonly<Record<string, unknown>>;

/** A value as one line of safe text. */
function safeText(value: unknown): string {
  if (value === null || value === undefined) return '';
  // A string, number or boolean of parsed JSON: String() writes it as itself.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects take the other branch
  return replaceUnsafe(typeof value === 'object' ? JSON.stringify(value) : String(value), '?');
}

/** Text starting with one of these is a formula to a spreadsheet (full-width forms included). */
const FORMULA_START = /^[=+\-@\uff1d\uff0b\uff0d\uff20]/;

/**
 * RFC 4180 cell. Text starting with = + - @ gets a leading apostrophe, so a spreadsheet opening the
 * file does not run a recipient-controlled name as a formula.
 */
function csvCell(value: unknown): string {
  let text = safeText(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.map(csvCell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => csvCell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

function tableCell(value: unknown, max = 40): string {
  const text = safeText(value);
  return text.length > max ? `${text.slice(0, max - 1)}${ELLIPSIS}` : text;
}

/** Aligned columns: a header, a rule, one line per row. */
export function toTable(headers: readonly string[], rows: readonly (readonly unknown[])[]): string {
  const cells = rows.map((r) => headers.map((_, i) => tableCell(r[i])));
  const widths = headers.map((h) => h.length);
  for (const r of cells) {
    for (let i = 0; i < widths.length; i++) widths[i] = Math.max(widths[i], r[i].length);
  }
  const line = (r: readonly string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  const lines = [line(headers), line(widths.map((w) => '-'.repeat(w)))];
  for (const r of cells) lines.push(line(r));
  return `${lines.join('\n')}\n`;
}

/**
 * One JSON array, indented, with no raw character that a terminal would act on, as the UTF-8 bytes
 * stdout gets. escapeUnsafeJson rewrites DEL and characters beyond ASCII, each of which takes two to
 * four bytes in UTF-8: as many bytes as characters and no DEL byte mean it would rewrite nothing. That
 * check reads the bytes the write needs anyway; running the regular expression over every character of
 * a listing of 10,000 took about 1% of `recipients --format json`.
 */
export function toJson(value: unknown): Uint8Array {
  const json = `${JSON.stringify(value, null, 2)}\n`;
  const bytes = Buffer.from(json, 'utf8');
  return bytes.length === json.length && bytes.indexOf(0x7f) < 0 ? bytes : Buffer.from(escapeUnsafeJson(json), 'utf8');
}

/** The three renderings of one listing; each is computed only when asked for. */
export interface Listing {
  json: () => unknown;
  csv: () => { columns: readonly string[]; rows: readonly Row[] };
  table: () => string;
}

export function render(format: Format, listing: Listing): string | Uint8Array {
  if (format === 'json') return toJson(listing.json());
  if (format === 'csv') {
    const { columns, rows } = listing.csv();
    return toCsv(columns, rows);
  }
  return listing.table();
}
