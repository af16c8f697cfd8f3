// The floor of the CLI's streamed formats: the raw loop (fetch, JSON.parse, follow endCursor, no checks),
// writing each page as it arrives in the bytes `svc-embed recipients --format <json|ndjson|csv>` prints, each
// write awaited as the CLI awaits its own. SVC_BASE_URL as for the CLI; the format is the one argument.
import { CSV_COLUMNS as COLUMNS, cliRecord, rawPages } from './common.mjs';

const format = process.argv[2];

const write = (text) =>
  new Promise((resolve, reject) => process.stdout.write(text, (e) => (e ? reject(e) : resolve())));

let count = 0;
// The bench's data holds no comma, quote, formula start or control character: a CSV cell is its text.
const cell = (v) => (v === null || v === undefined ? '' : String(v));
for await (const page of rawPages(process.env.SVC_BASE_URL)) {
  let text = '';
  for (const item of page) {
    const record = cliRecord(item);
    if (format === 'ndjson') text += `${JSON.stringify(record)}\n`;
    else if (format === 'csv')
      text += `${count === 0 && !text ? `${COLUMNS.join(',')}\r\n` : ''}${COLUMNS.map((c) => cell(record[c])).join(',')}\r\n`;
    else text += `${count === 0 && !text ? '[\n' : ',\n'}  ${JSON.stringify(record, null, 2).replace(/\n/g, '\n  ')}`;
  }
  count += page.length;
  await write(text);
}
if (format === 'json') await write(count ? '\n]\n' : '[]\n');
