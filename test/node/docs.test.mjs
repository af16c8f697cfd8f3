// The docs as a reader meets them on GitHub: a short README that reaches every page, generated tables that
// match the code, links and anchors that resolve, and code examples that a test runs or checks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';
import { allRegions, staleRegions } from '../../scripts/docs.mjs';
import { anchors, codeBlocks, links, markdownFiles, read, root } from '../support/markdown.mjs';

const files = markdownFiles();

// The pages that issue 20 asks for (and issue 28's prerender page, issue 44's ssr page), each reached from the README.
const PAGES = [
  'docs/element.md',
  'docs/lifecycle.md',
  'docs/security.md',
  'docs/frameworks/README.md',
  'docs/frameworks/react.md',
  'docs/frameworks/vue.md',
  'docs/frameworks/svelte.md',
  'docs/frameworks/angular.md',
  'docs/frameworks/next.md',
  'docs/frameworks/nuxt.md',
  'docs/frameworks/plain-html.md',
  'docs/protocol.md',
  'docs/api.md',
  'docs/cli.md',
  'docs/testing.md',
  'docs/tenant.md',
  'docs/prerender.md',
  'docs/history.md',
  'docs/ssr.md',
  'CHANGELOG.md',
  'CONTRIBUTING.md',
  'bench/README.md',
];

/** The repository-relative file and anchor a relative link points to, from the file it is in. */
function resolveLink(from, target) {
  const [path, anchor] = target.split('#');
  const file = path
    ? normalize(join(dirname(from), decodeURIComponent(path)))
        .split('\\')
        .join('/')
    : from;
  return { file, anchor };
}

const external = (target) => /^[a-z][a-z0-9+.-]*:/i.test(target);

test('the README is at most 200 lines', () => {
  const lines = read('README.md').split('\n').length - 1;
  assert.ok(lines <= 200, `README.md has ${lines} lines`);
});

test('every docs page exists and is reached from the README by links', () => {
  const reached = new Set(['README.md']);
  const queue = ['README.md'];
  while (queue.length) {
    const from = queue.shift();
    for (const { target } of links(read(from))) {
      if (external(target)) continue;
      const { file } = resolveLink(from, target);
      if (file.endsWith('.md') && !reached.has(file) && existsSync(join(root, file))) {
        reached.add(file);
        queue.push(file);
      }
    }
  }
  for (const page of PAGES) {
    assert.ok(existsSync(join(root, page)), `${page} exists`);
    assert.ok(reached.has(page), `${page} is reached from README.md`);
  }
});

test('every relative link and anchor between the markdown files resolves', () => {
  const broken = [];
  for (const from of files) {
    for (const { target, line } of links(read(from))) {
      if (external(target)) continue;
      const { file, anchor } = resolveLink(from, target);
      if (!existsSync(join(root, file))) broken.push(`${from}:${line}: ${target} (no file ${file})`);
      else if (anchor !== undefined && file.endsWith('.md') && !anchors(read(file)).has(anchor))
        broken.push(`${from}:${line}: ${target} (no heading #${anchor} in ${file})`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the link check finds a broken anchor and a missing file', () => {
  const text = '# Title\n\n## Some `code` here\n\n[ok](#some-code-here) [bad](#nowhere) [gone](missing.md)\n';
  assert.deepEqual([...anchors(text)], ['title', 'some-code-here']);
  const found = links(text).map(({ target }) => target);
  assert.deepEqual(found, ['#some-code-here', '#nowhere', 'missing.md']);
  assert.ok(!anchors(text).has('nowhere'));
  assert.ok(!existsSync(join(root, resolveLink('docs/x.md', 'missing.md').file)));
  // A repeated heading gets -1, as on GitHub; links inside code are not links.
  assert.deepEqual([...anchors('## A\n## A\n```\n## B\n[x](y.md)\n```\n')], ['a', 'a-1']);
  assert.deepEqual(links('```\n[x](y.md)\n```\n`[z](w.md)`\n'), []);
});

test('the generated regions match what scripts/docs.mjs writes from the code (run "npm run docs")', async () => {
  const regions = await allRegions();
  assert.ok(regions.length >= 8, 'the element tables, the CDN tags and the CLI help are generated');
  assert.deepEqual(staleRegions(regions, read), []);
});

test('a generated table edited by hand is caught', async () => {
  const regions = await allRegions();
  const element = read('docs/element.md');
  const edited = element.replace(
    /^\| `src` \| `src` \| `string` \|[^\n]*$/m,
    '| `src` | `src` | `string` | | Any URL. |',
  );
  assert.notEqual(edited, element, 'the src row is there to edit');
  const stale = staleRegions(regions, (file) => (file === 'docs/element.md' ? edited : read(file)));
  assert.deepEqual(stale, ['docs/element.md: properties']);
});

test('every generated region in the docs has a generator', async () => {
  const known = new Set((await allRegions()).map(({ file, name }) => `${file}: ${name}`));
  const orphans = [];
  for (const file of files)
    for (const [, name] of read(file).matchAll(/^<!-- generated: (\S+) -->$/gm))
      if (!known.has(`${file}: ${name}`)) orphans.push(`${file}: ${name}`);
  assert.deepEqual(orphans, []);
});

test("the element's tables hold every attribute, property, event, method, slot, part and state of the manifest", () => {
  const manifest = JSON.parse(readFileSync(join(root, 'custom-elements.json'), 'utf8'));
  const el = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'svc-embed');
  const page = read('docs/element.md');
  const names = [
    ...el.attributes.map((a) => a.name),
    ...el.members.filter((m) => m.privacy !== 'private' && !m.static).map((m) => m.name),
    ...el.events.map((e) => e.name),
    ...el.slots.map((s) => s.name),
    ...el.cssParts.map((p) => p.name),
    ...el.cssStates.map((s) => s.name),
  ];
  assert.ok(names.length >= 40);
  for (const name of names) assert.match(page, new RegExp(`\\| \`${name}[(\`]`), `${name} has a row`);
});

// Code a reader would copy: every block in these languages is marked by the comment above it, with the test
// that runs it (`run by <file>`), the fixture that holds it as written (`checked: <file>`), or why no test
// can run it (`not run: <reason>`).
const CODE = new Set(['js', 'mjs', 'ts', 'tsx', 'jsx', 'html', 'vue', 'svelte']);

test('every code example in the README and docs is run or checked by a test, or says why not', () => {
  const unmarked = [];
  for (const file of files.filter((f) => f === 'README.md' || f.startsWith('docs/'))) {
    for (const block of codeBlocks(read(file))) {
      if (!CODE.has(block.lang) || block.generated) continue;
      // `npm run check:apps` (scripts/check-apps.mjs) runs the framework pages' blocks in apps of their own.
      const run = /run by ((?:test\/|scripts\/check-apps\.mjs)\S*?)[,.]?\s/i.exec(`${block.mark} `);
      const checked = /^<!-- checked: (\S+) -->$/.exec(block.mark);
      if (run) {
        const runner = join(root, run[1]);
        const named = existsSync(runner) && readFileSync(runner, 'utf8').includes(file.replace(/^docs\//, ''));
        if (!named) unmarked.push(`${file}:${block.line}: ${run[1]} does not read ${file}`);
      } else if (checked) {
        const fixture = join(root, checked[1]);
        if (!existsSync(fixture) || !readFileSync(fixture, 'utf8').includes(block.code))
          unmarked.push(`${file}:${block.line}: ${checked[1]} does not hold the block as written`);
      } else if (!/^<!-- not run: .{10,} -->$/.test(block.mark)) {
        unmarked.push(`${file}:${block.line}: a ${block.lang} block with no mark`);
      }
    }
  }
  assert.deepEqual(unmarked, []);
});

test("the README's size claim holds for the built CDN bundles, and for any build within the size budget", () => {
  const claim = /Lit included, is under (\d+(?:\.\d+)?) KB gzip/.exec(read('README.md'))?.[1];
  assert.ok(claim, 'README.md: no "under N KB gzip" claim');
  const limit = Number(claim) * 1000;
  const budget = Number(/^const BUDGET = (\d+);$/m.exec(read('scripts/size.mjs'))?.[1]);
  assert.ok(budget > 0, 'scripts/size.mjs: no BUDGET');
  assert.ok(budget < limit, `the budget (${budget} B) is not under the README's ${claim} KB`);
  for (const file of ['cdn/svc-embed.min.js', 'cdn/svc-embed.classic.min.js']) {
    assert.ok(existsSync(join(root, file)), `${file} is missing: run npm run build first`);
    const gzip = gzipSync(readFileSync(join(root, file)), { level: 9 }).length;
    assert.ok(gzip < limit, `${file}: ${gzip} B gzip -9, not under the README's ${claim} KB`);
  }
});
