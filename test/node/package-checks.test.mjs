// The outside checks of every package's tarball: publint (--strict) and Are the Types Wrong with the
// ESM-only profile (attw --pack --profile esm-only). Each packs the package itself, from its build.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runToEnd } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = (name) => join(root, 'node_modules/.bin', name);
const PACKAGES = ['.', 'packages/protocol', 'packages/api', 'packages/tenant', 'packages/react', 'packages/angular'];
const LIMIT_MS = 300_000;

for (const dir of PACKAGES) {
  describe(dir === '.' ? 'svc-embed (the root)' : dir, () => {
    test('publint --strict: all good', async () => {
      const r = await runToEnd(bin('publint'), ['--strict', join(root, dir)], { cwd: root, timeout: LIMIT_MS });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      assert.match(r.stdout, /All good!/);
    });

    test('attw --pack --profile esm-only: no problem outside the resolutions the profile ignores', async () => {
      const r = await runToEnd(bin('attw'), ['--pack', '.', '--profile', 'esm-only', '--format', 'json'], {
        cwd: join(root, dir),
        timeout: LIMIT_MS,
      });
      assert.equal(r.code, 0, r.stdout + r.stderr);
      // ESM-only: what CommonJS resolution (node10, node16 from CJS) meets is expected, and ignored.
      const problems = Object.values(JSON.parse(r.stdout).problems ?? {}).flat();
      assert.deepEqual(
        problems.filter((p) => !['node10', 'node16-cjs'].includes(p.resolutionKind)),
        [],
      );
      assert.ok(JSON.parse(r.stdout).analysis.entrypoints, 'attw analysed the package');
    });
  });
}
