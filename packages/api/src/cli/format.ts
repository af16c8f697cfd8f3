/**
 * Output formats. Every cell goes through one neutraliser ({@link replaceUnsafe}): control and
 * bidirectional characters are shown as `?` in the table and in CSV alike, since both end up on
 * terminals (`cat file.csv`). JSON keeps every value exactly, with those characters as `\u` escapes.
 * Row counts are unbounded, so nothing here spreads rows into a call's arguments. JSON, NDJSON and CSV
 * are written a page at a time ({@link streamed}); only the table needs every row first.
 */
import { ELLIPSIS, escapeUnsafeJson, replaceUnsafe } from '../text.js';

export const FORMATS = ['table', 'json', 'csv', 'ndjson'] as const;
export type Format = (typeof FORMATS)[number];
export type Row = Readonly<Record<string, unknown>>;

/** A value as one line of safe text. */
function safeText(value: unknown): string {
  if (value === null || value === undefined) return '';
  // A string, number or boolean of parsed JSON: String() writes it as itself.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- objects take the other branch
  return replaceUnsafe(typeof value === 'object' ? JSON.stringify(value) : String(value), '?');
}

/**
 * Text starting with one of these is a formula to a spreadsheet (full-width forms included), also after
 * spaces: spreadsheets trim them before they read a formula. Tabs and line breaks are `?` by then.
 */
const FORMULA_START = /^\p{Zs}*[=+\-@\uff1d\uff0b\uff0d\uff20]/u;

/**
 * Text that every rule below leaves as it is: printable ASCII without a quote or a comma (so no unsafe character),
 * that does not start with a space or a formula's first character (= + - @; the full-width ones are not ASCII).
 * Most cells are such text; one test of it replaces the three of the rules.
 */
const PLAIN_CELL = /^(?:[!#-*.-<>?A-~][ !#-+\--~]*)?$/;

/**
 * RFC 4180 cell. Text starting with = + - @, or with spaces and then one of them, gets a leading
 * apostrophe, so a spreadsheet opening the file does not run a recipient-controlled name as a formula.
 */
export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') {
    if (PLAIN_CELL.test(value)) return value;
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    // Digits, letters, '.', '+' and '-': nothing a rule below would change.
    return String(value);
  }
  let text = safeText(value);
  if (typeof value === 'string' && FORMULA_START.test(text)) text = `'${text}`;
  return /[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A row's cells, without its line break. */
export function csvLine(columns: readonly string[], row: Row): string {
  let line = '';
  for (let i = 0; i < columns.length; i++) line += i ? `,${csvCell(row[columns[i]])}` : csvCell(row[columns[i]]);
  return line;
}

export function toCsv(columns: readonly string[], rows: readonly Row[]): string {
  const lines = [columns.map(csvCell).join(',')];
  for (const row of rows) lines.push(csvLine(columns, row));
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
  return jsonBytes(`${JSON.stringify(value, null, 2)}\n`);
}

/**
 * JSON text with nothing raw that a terminal would act on, as text to write. As many UTF-8 bytes as characters (no
 * character beyond ASCII) and no DEL mean escapeUnsafeJson would rewrite nothing: that check measures the bytes and
 * makes none, and the text is written as it is (a page of 200 recipients took 7 microseconds less than with
 * {@link jsonBytes}).
 */
export function jsonText(json: string): string {
  return Buffer.byteLength(json, 'utf8') === json.length && !json.includes('\x7f') ? json : escapeUnsafeJson(json);
}

/** JSON text as stdout's bytes, with nothing raw that a terminal would act on. */
export function jsonBytes(json: string): Uint8Array {
  const bytes = Buffer.from(json, 'utf8');
  return bytes.length === json.length && bytes.indexOf(0x7f) < 0 ? bytes : Buffer.from(escapeUnsafeJson(json), 'utf8');
}

/** What a listing command says of its items: their JSON, their CSV columns and rows, and its table. */
export interface ListingFormats<T> {
  /** An item as JSON and NDJSON write it. */
  json(item: T): unknown;
  /** `json` always gives a plain object without `toJSON` (NDJSON then takes {@link ndjsonPage}'s faster way). */
  jsonObjects?: boolean;
  readonly columns: readonly string[];
  /** An item as a CSV row, by column. */
  row(item: T): Row;
  /**
   * An item's CSV line without its line break, when a listing writes it faster than by column: the very text of
   * `csvLine(columns, row(item))`, every cell through {@link csvCell}.
   */
  csvLine?(item: T): string;
  /** Every item as a table. */
  table(items: readonly T[]): string;
}

/** A format written as the pages arrive: each page's text, then the text that ends the output. */
export interface Streamed<T> {
  page(items: readonly T[]): string;
  end(): string;
}

/** The largest piece of text written at once, in characters. */
export const SLICE = 1 << 16;

/**
 * `text` in pieces of at most `size` characters, never between the two halves of a surrogate pair: what is
 * written at once stays small, so that no large buffer is made (and freed) for each page.
 */
export function* slices(text: string, size = SLICE): Generator<string, void, undefined> {
  for (let at = 0; at < text.length;) {
    let end = Math.min(at + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++;
    yield text.slice(at, end);
    at = end;
  }
}

/**
 * NDJSON lines of `values`: the text of `JSON.stringify` of each, a line each. When the caller knows every value to
 * be a plain object without `toJSON` (`objects`), one `JSON.stringify` of the array has them between `[` and `]`,
 * each two joined by `},{`. Split there, in one call, into exactly as many pieces as values, `},{` is in no string
 * and no nested value (the sequence cannot overlap itself), and the pieces are joined by line breaks instead. A page
 * of 200 recipients took 7 microseconds less than with a call per record (and the split, a third of the
 * instructions of counting the joins with indexOf and replacing them). Otherwise, a call per value.
 */
export function ndjsonPage(values: readonly unknown[], objects: boolean): string {
  if (values.length === 0) return '';
  // A toJSON that some code put on the prototypes would be called for the array too: a call per value then.
  if (objects && !('toJSON' in Array.prototype) && !('toJSON' in Object.prototype)) {
    const parts = JSON.stringify(values)
      .slice(1, -1)
      .split('},{', values.length + 1);
    if (parts.length === values.length) return `${parts.join('}\n{')}\n`;
  }
  let text = '';
  for (const value of values) text += `${JSON.stringify(value)}\n`;
  return text;
}

/**
 * The page's items as JSON writes them. A loop, not `map()`: called once a page, the function holding a `map()` was
 * not optimised before the listing's end, and map's own loop called the callback from the builtin for every item.
 */
function jsonValues<T>(spec: ListingFormats<T>, items: readonly T[]): unknown[] {
  const values: unknown[] = [];
  for (let i = 0; i < items.length; i++) values.push(spec.json(items[i]));
  return values;
}

/**
 * JSON, NDJSON or CSV, a page at a time. Together the pieces are what one write of the whole listing gave:
 * JSON is the array that `JSON.stringify(items, null, 2)` writes, CSV has its header even with no rows. Nothing
 * is written before the first page has arrived, so a listing that fails at once writes nothing.
 */
export function streamed<T>(format: Exclude<Format, 'table'>, spec: ListingFormats<T>): Streamed<T> {
  let count = 0;
  if (format === 'ndjson') {
    return {
      page: (items) => {
        count += items.length;
        return ndjsonPage(jsonValues(spec, items), spec.jsonObjects === true);
      },
      end: () => '',
    };
  }
  if (format === 'csv') {
    const header = () => (count++ === 0 ? `${spec.columns.map(csvCell).join(',')}\r\n` : '');
    return {
      page: (items) => {
        let text = items.length ? header() : '';
        for (const item of items)
          text += `${spec.csvLine ? spec.csvLine(item) : csvLine(spec.columns, spec.row(item))}\r\n`;
        return text;
      },
      end: header,
    };
  }
  return {
    page: (items) => {
      if (!items.length) return '';
      // The page's elements as JSON.stringify(array, null, 2) writes them: its text between "[\n" and "\n]".
      const array = JSON.stringify(jsonValues(spec, items), null, 2);
      const text = `${count ? ',\n' : '[\n'}${array.slice(2, -2)}`;
      count += items.length;
      return text;
    },
    end: () => (count ? '\n]\n' : '[]\n'),
  };
}
