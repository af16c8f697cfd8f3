// The package as a user installs it: `npm pack`, the tarball installed into an empty project, then
// `npx svc-embed tenant --port 0` there (started, its printed origin fetched, stopped by Ctrl-C), an import
// of `svc-embed/testing` in Node, and its typings from the installed package. Reports the sizes.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd, startUntil } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LIMIT_MS = 300_000;
let dir;
let project;
let tarball;
const running = new Set();

const sh = (command, args, cwd) => runToEnd(command, args, { cwd, timeout: LIMIT_MS });

/** Bytes of every file under `path`. */
function bytes(path) {
  const s = statSync(path);
  if (!s.isDirectory()) return s.size;
  return readdirSync(path).reduce((sum, name) => sum + bytes(join(path, name)), 0);
}

const kB = (n) => `${(n / 1000).toFixed(1)} kB`;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-embed-packaged-'));
  const packed = await sh('npm', ['pack', '--json', '--pack-destination', dir], root);
  assert.equal(packed.code, 0, packed.stderr);
  [tarball] = JSON.parse(packed.stdout);
  // svc-embed depends on the protocol package of this repository: its tarball is installed beside it.
  const protocol = await sh('npm', ['pack', '--json', '--pack-destination', dir, '-w', '@svc-embed/protocol'], root);
  assert.equal(protocol.code, 0, protocol.stderr);
  const [protocolTarball] = JSON.parse(protocol.stdout);
  project = join(dir, 'app');
  await sh('mkdir', ['-p', project], dir);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'packaged-check', private: true, type: 'module' }));
  const installed = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(dir, tarball.filename), join(dir, protocolTarball.filename)], project);
  assert.equal(installed.code, 0, installed.stderr);
});

after(() => {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the tarball holds the testing helpers, the tenant command and the tenant; its sizes', (t) => {
  const files = tarball.files.map((f) => f.path);
  for (const path of ['dist/testing/index.js', 'dist/testing/index.d.ts', 'dist/testing/frame.js', 'dist/cli/commands/tenant.js', 'tenant/index.js', 'dist/protocol.js']) {
    assert.ok(files.includes(path), path);
  }
  assert.deepEqual(files.filter((f) => /^(src|test|demo|scripts)\//.test(f)), []);
  const modules = join(project, 'node_modules');
  const packages = readdirSync(modules).flatMap((n) => (n.startsWith('@') ? readdirSync(join(modules, n)).map((m) => `${n}/${m}`) : [n])).filter((n) => !n.startsWith('.'));
  t.diagnostic(`tarball ${tarball.filename}: ${kB(tarball.size)} packed, ${kB(tarball.unpackedSize)} unpacked, ${tarball.entryCount} files`);
  t.diagnostic(`installed: ${packages.length} packages, ${kB(bytes(modules))} in node_modules (svc-embed itself ${kB(bytes(join(modules, 'svc-embed')))})`);
});

test('npx svc-embed tenant --port 0: starts, serves an embed page on the origin it prints, stops at Ctrl-C', async () => {
  // Its own process group, as a shell runs it: Ctrl-C reaches npx and the command it runs.
  const t = await startUntil('npx', ['svc-embed', 'tenant', '--port', '0', '--latency', 'off'], 'Ctrl-C stops it.', { cwd: project, detached: true, running });
  const origin = /^Simulated tenant {2}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(t.stdout)?.[1];
  assert.ok(origin, t.stdout);
  const page = await fetch(`${origin}/embed/dashboard/sales-overview?session=demo-acme`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /^text\/html/);
  assert.match(await page.text(), /<script type="module" src="\/embed\/static\/main\.js/);
  // The embed's scripts import the protocol module, served from the installed package's dist/.
  assert.equal((await fetch(`${origin}/embed/protocol/index.js`)).status, 200);
  process.kill(-t.child.pid, 'SIGINT');
  const code = await t.exited;
  // The command stopped cleanly; npm itself, Ctrl-C'd while it waited, may end by the signal, as a shell does.
  assert.ok(code === 0 || code === 'SIGINT', `${code}: ${t.stderr}`);
  assert.match(t.stderr, /^svc-embed: tenant stopped$/m);
  await assert.rejects(fetch(`${origin}/embed/static/main.js`));
});

test('svc-embed/testing imports in Node from the installed package, and its typings compile there', async () => {
  const imported = await sh(process.execPath, ['--input-type=module', '-e', `
    const t = await import('svc-embed/testing');
    console.log(Object.keys(t).sort().join(' '));
  `], project);
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(imported.stdout.trim(), 'READY_DEFAULTS emitEvent emitReady mountTestEmbed recordActions testEmbedSrc');

  writeFileSync(join(project, 'check.ts'), `
import type { SvcEmbedElement } from 'svc-embed';
import { emitEvent, recordActions } from 'svc-embed/testing';
import type { ActionRecord } from 'svc-embed/testing';
declare const el: SvcEmbedElement;
const event = await emitEvent(el, 'svc:event:download', { format: 'csv', target: 'widget' });
const format: 'csv' | 'xlsx' | 'png' | 'pdf' = event.detail.payload.format;
const record: ActionRecord = recordActions(el);
record.stop();
// @ts-expect-error docx is not a download format
void emitEvent(el, 'svc:event:download', { format: 'docx', target: 'widget' });
export { format };
`);
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['es2022', 'dom'], strict: true, noEmit: true, skipLibCheck: true },
    files: ['check.ts'],
  }));
  const tsc = await sh(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', project], project);
  assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
});
