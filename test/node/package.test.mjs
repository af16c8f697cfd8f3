// The package as Node and TypeScript users meet it: entry points, SSR import, typings, bundle budget.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

const root = new URL('../../', import.meta.url);

test('the main entry imports in plain Node (SSR) and registers without throwing', async () => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', `
    const m = await import('svc-embed');
    await import('svc-embed'); // a second import is a no-op
    console.log(JSON.stringify({ cls: typeof m.SvcEmbedElement, filterParam: typeof m.filterParam, validateEvent: typeof m.validateEvent }));
  `], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.deepEqual(JSON.parse(result.stdout), { cls: 'function', filterParam: 'function', validateEvent: 'function' });
});

test('svc-embed/protocol is DOM-free: it imports in a Node realm without any DOM shim', async () => {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', `
    const p = await import('svc-embed/protocol');
    if (typeof HTMLElement !== 'undefined' || typeof window !== 'undefined') throw new Error('DOM leaked');
    console.log(p.EVENT_TYPES.length + ' ' + p.ACTION_TYPES.length);
  `], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), '8 6');
});

test('TypeScript users get typed event details without casts (tsc --noEmit over src and tests)', () => {
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json', '--noEmit'], { cwd: root, encoding: 'utf8' });
  assert.equal(result.status, 0, result.stdout + result.stderr);
});

test('the CDN bundle named in package.json is within its 8,700-byte gzip budget', () => {
  const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
  assert.equal(pkg.unpkg, pkg.jsdelivr);
  const bundle = readFileSync(new URL(pkg.unpkg, root));
  const gzip = gzipSync(bundle, { level: 9 }).length;
  assert.ok(gzip <= 8700, `${gzip} B gzip`);
  // Self-contained: no bare imports left for a CDN user to resolve.
  assert.doesNotMatch(bundle.toString(), /\bfrom\s*["'](?![./])/);
});
