// Writes cdn/integrity.json: the Subresource Integrity value of each CDN bundle, for pinned tags such as
//   <script type="module" src="https://unpkg.com/svc-embed@<version>/cdn/svc-embed.min.js"
//           integrity="sha384-…" crossorigin="anonymous"></script>
// The file is a JSON object that maps each bundle's file name within cdn/ (the directory the file sits in) to
// "sha384-<base64 of the SHA-384 digest of the file's bytes>", in the order rollup.config.mjs lists the bundles.
// The bundles are the outputs of rollup.config.mjs, so a bundle added there gets its value here too. Run after rollup.
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import bundles from '../rollup.config.mjs';

const DIR = 'cdn';
const integrity = {};
for (const { output } of bundles) {
  if (dirname(output.file) !== DIR) throw new Error(`${output.file}: a CDN bundle outside ${DIR}/`);
  const digest = createHash('sha384').update(readFileSync(new URL(`../${output.file}`, import.meta.url)));
  integrity[basename(output.file)] = `sha384-${digest.digest('base64')}`;
}
// Written whole, then renamed over the old file: a reader never sees half a file.
const file = new URL(`../${DIR}/integrity.json`, import.meta.url);
const partial = new URL(`../${DIR}/.integrity.json.${process.pid}`, import.meta.url);
writeFileSync(partial, `${JSON.stringify(integrity, null, 2)}\n`);
renameSync(partial, file);
for (const [name, value] of Object.entries(integrity)) console.log(`${DIR}/${name}: ${value}`);
