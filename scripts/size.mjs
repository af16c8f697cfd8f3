// Prints the CDN bundle's raw, gzip -9 and brotli sizes, and fails when gzip is over the budget.
import { readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';

const BUDGET = 8700;
const file = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).unpkg;
const code = readFileSync(new URL(`../${file}`, import.meta.url));
const gzip = gzipSync(code, { level: 9 }).length;
const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
console.log(`${file}: ${code.length} B raw, ${gzip} B gzip -9 (budget ${BUDGET}), ${brotli} B brotli`);
if (gzip > BUDGET) {
  console.error(`${file} is ${gzip - BUDGET} B over its gzip budget`);
  process.exit(1);
}
