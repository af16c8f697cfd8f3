// docs/tenant.md as a reader meets it: its library example runs as written, and the start banner it shows is what
// `svc-embed-tenant` prints with the defaults.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd, startUntil } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tenantBin = join(root, 'packages/tenant/dist/bin.js');
const CHILD_LIMIT_MS = 120_000;
const page = readFileSync(join(root, 'docs/tenant.md'), 'utf8');
const children = new Set();

after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** The one fenced block of `lang` that follows `heading` (before the next heading of any level). */
function blockAfter(heading, lang) {
  const start = page.indexOf(`\n${heading}\n`);
  assert.ok(start >= 0, `docs/tenant.md has the heading "${heading}"`);
  const next = page.slice(start + heading.length + 2).search(/^#{1,6} /m);
  const section = page.slice(start, next < 0 ? undefined : start + heading.length + 2 + next);
  const blocks = [...section.matchAll(new RegExp(`^\`\`\`${lang}\\n([\\s\\S]*?)^\`\`\`$`, 'gm'))].map((m) => m[1]);
  assert.equal(blocks.length, 1, `one ${lang} block under "${heading}"`);
  return blocks[0];
}

test('docs/tenant.md: the library example runs as written, prints the banner and closes the tenant', async () => {
  const re = /<!-- [Rr]un by test\/node\/tenant-docs\.test\.mjs[^>]*-->\n```js\n([\s\S]*?)```/g;
  const blocks = [...page.matchAll(re)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'the blocks marked as run by this file');
  const [code] = blocks;
  assert.equal(code, blockAfter('## Using it as a library', 'js'));
  assert.ok(code.includes("import { startTenant, describeTenant } from '@svc-embed/tenant';"), code);
  // As `node` runs it: the package resolves itself by name from the repository root.
  const r = await runToEnd(process.execPath, ['--input-type=module', '-e', code], {
    cwd: root,
    timeout: CHILD_LIMIT_MS,
  });
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal(r.stderr, '');
  const origin = /^Simulated tenant {2}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(r.stdout)?.[1];
  assert.ok(origin, r.stdout);
  assert.match(r.stdout, /^ {2}framed by {7}http:\/\/localhost:\* {2}http:\/\/127\.0\.0\.1:\*$/m);
  // It closed the tenant: the process ended by itself, and the port no longer answers.
  await assert.rejects(fetch(`${origin}/embed/static/main.js`));
});

test('docs/tenant.md: "What it prints" is what svc-embed-tenant prints with the defaults', async () => {
  const shown = blockAfter('### What it prints', 'text');
  // Port 8001 may be taken on this machine (npm start); the banner is the same on any port.
  const state = await startUntil(process.execPath, [tenantBin, '--port', '0'], 'Ctrl-C stops it.', {
    cwd: root,
    running: children,
  });
  try {
    const origin = /^Simulated tenant {2}(http:\/\/\S+)$/m.exec(state.stdout)?.[1];
    assert.ok(origin, state.stdout);
    assert.equal(state.stdout.replaceAll(origin, 'http://127.0.0.1:8001'), shown);
  } finally {
    state.child.kill('SIGTERM');
    await state.exited;
  }
});
