// Prints each CDN bundle's raw, gzip -9 and brotli sizes, and fails when one is over the gzip budget.
// The bundles are the outputs of rollup.config.mjs, so a bundle added there is checked here too.
import { readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import bundles from '../rollup.config.mjs';

const BUDGET = 10500;
let over = false;
for (const { output } of bundles) {
  const code = readFileSync(new URL(`../${output.file}`, import.meta.url));
  const gzip = gzipSync(code, { level: 9 }).length;
  const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  console.log(`${output.file}: ${code.length} B raw, ${gzip} B gzip -9 (budget ${BUDGET}), ${brotli} B brotli`);
  if (gzip > BUDGET) {
    console.error(`${output.file} is ${gzip - BUDGET} B over its gzip budget`);
    over = true;
  }
}
if (over) process.exit(1);
