// Writes the generated parts of the docs: each region between
//   <!-- generated: NAME -->  and  <!-- end generated: NAME -->
// in a markdown file is replaced with what a generator in scripts/docs/*.mjs writes from the code: the
// manifest, the commands' own help, the CDN bundles' integrity. Edit the code, then run `npm run docs`.
// `node scripts/docs.mjs --check` changes nothing, and exits 1 naming each region that differs from what
// would be written (test/node/docs.test.mjs runs it).
import { readFileSync, writeFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Every generator's regions: { file (relative to the root), name, content }. */
export async function allRegions() {
  const dir = join(root, 'scripts/docs');
  const regions = [];
  for (const f of readdirSync(dir)
    .filter((n) => n.endsWith('.mjs'))
    .sort()) {
    const mod = await import(pathToFileURL(join(dir, f)).href);
    regions.push(...(await mod.regions()));
  }
  return regions;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The text with one region's body replaced; throws when the text lacks the region's markers, or has them twice. */
export function replaceRegion(text, name, content, file) {
  const pattern = new RegExp(
    `(<!-- generated: ${escape(name)} -->\\n)[\\s\\S]*?(<!-- end generated: ${escape(name)} -->)`,
    'g',
  );
  const found = text.match(pattern)?.length ?? 0;
  if (found !== 1) throw new Error(`${file}: expected one region "${name}", found ${found}`);
  const body = content.endsWith('\n') ? content : `${content}\n`;
  return text.replace(pattern, (_m, open, close) => `${open}${body}${close}`);
}

/** The regions whose text in `read(file)` differs from what the generators write, as "file: name". */
export function staleRegions(regions, read) {
  return regions
    .filter(({ file, name, content }) => replaceRegion(read(file), name, content, file) !== read(file))
    .map(({ file, name }) => `${file}: ${name}`);
}

const readRoot = (file) => readFileSync(join(root, file), 'utf8');

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const regions = await allRegions();
  if (process.argv.includes('--check')) {
    const stale = staleRegions(regions, readRoot);
    for (const s of stale) console.error(`${s}: differs from what scripts/docs.mjs writes`);
    if (stale.length) {
      console.error(`run "npm run docs" to rewrite ${stale.length} region(s), and commit the result`);
      process.exit(1);
    }
  } else {
    for (const file of new Set(regions.map((r) => r.file))) {
      const before = readRoot(file);
      const after = regions
        .filter((r) => r.file === file)
        .reduce((text, r) => replaceRegion(text, r.name, r.content, file), before);
      if (after !== before) {
        writeFileSync(join(root, file), after);
        console.log(`wrote ${file}`);
      }
    }
  }
}
