// Prints each CDN bundle's raw, gzip -9 and brotli sizes, and fails when one of the element's is over the gzip budget.
// The bundles are the outputs of rollup.config.mjs, so a bundle added there is checked here too.
import { readFileSync } from 'node:fs';
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import bundles from '../rollup.config.mjs';

const BUDGET = 10900;
let over = false;
for (const { input, output } of bundles) {
  const code = readFileSync(new URL(`../${output.file}`, import.meta.url));
  const gzip = gzipSync(code, { level: 9 }).length;
  const brotli = brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length;
  // The element's bundles have the budget; a module of its own (prerender) is quoted.
  const element = input === 'dist/cdn.js';
  console.log(
    `${output.file}: ${code.length} B raw, ${gzip} B gzip -9 (${element ? `budget ${BUDGET}` : 'its own module, outside the budget'}), ${brotli} B brotli`,
  );
  if (element && gzip > BUDGET) {
    console.error(`${output.file} is ${gzip - BUDGET} B over its gzip budget`);
    over = true;
  }
}
if (over) process.exit(1);
