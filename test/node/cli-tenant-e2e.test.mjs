// The end-to-end example of docs/testing.md ("End-to-end tests"), run as written: it starts the tenant with
// startTenant() in its set-up and drives headless Chromium with puppeteer-core. Its "your page" is served
// here: the page's own <export-panel> around an <svc-embed> that points at the tenant.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/loopback.mjs';
import { runToEnd } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CHROME_PATH = process.env.CHROME_PATH || '/usr/lib/chromium/chromium';
const CHILD_LIMIT_MS = 240_000;

/**
 * The fenced js blocks of docs/testing.md that a comment marks as run by this file: the component, then the
 * end-to-end test. Both, or the page has lost one: a block that is no longer run is a failure, not a pass.
 */
function examples() {
  const page = readFileSync(join(root, 'docs/testing.md'), 'utf8');
  const re = /<!-- [Rr]un by [^>]*test\/node\/cli-tenant-e2e\.test\.mjs[^>]*-->\n```js\n([\s\S]*?)```/g;
  const blocks = [...page.matchAll(re)].map((m) => m[1]);
  assert.equal(blocks.length, 2, 'docs/testing.md: the blocks marked as run by test/node/cli-tenant-e2e.test.mjs');
  return blocks;
}

let app;

before(async () => {
  const [component] = examples();
  const tenantPort = await freePort();
  const page = `<!doctype html><meta charset="utf-8"><title>Reports</title>
<script type="module" src="/svc-embed.min.js"></script>
<script type="module" src="/export-panel.js"></script>
<export-panel>
  <svc-embed allow-export src="http://127.0.0.1:${tenantPort}/embed/dashboard/sales-overview?session=demo-acme"></svc-embed>
</export-panel>`;
  const files = {
    '/': ['text/html; charset=utf-8', page],
    '/svc-embed.min.js': ['text/javascript', readFileSync(join(root, 'cdn/svc-embed.min.js'))],
    '/export-panel.js': ['text/javascript', component],
  };
  app = createServer((req, res) => {
    const file = files[new URL(req.url, 'http://x').pathname];
    if (file) res.writeHead(200, { 'content-type': file[0] }).end(file[1]);
    else res.writeHead(404).end();
  });
  await new Promise((resolve) => app.listen(0, '127.0.0.1', resolve));
  app.env = { APP_URL: `http://localhost:${app.address().port}/`, TENANT_PORT: String(tenantPort), CHROME_PATH };
});

after(async () => {
  if (app) {
    app.closeAllConnections();
    await new Promise((resolve) => app.close(resolve));
  }
});

test('docs/testing.md: the end-to-end example passes as written, against the tenant it starts', async () => {
  const [component, code] = examples();
  assert.match(component, /^\/\/ export-panel\.js$/m);
  assert.ok(code.includes("import { startTenant } from '@svc-embed/tenant';"), code);
  assert.ok(code.includes('startTenant({ port: TENANT_PORT, latency: false })'), code);
  // Run as written: the package resolves itself by name from the repository root.
  // Not as a child of this test runner (NODE_TEST_CONTEXT), but as `node` runs the file: TAP on stdout.
  const env = { ...process.env, ...app.env };
  delete env.NODE_TEST_CONTEXT;
  const r = await runToEnd(process.execPath, ['--test-reporter=tap', '--input-type=module', '-e', code], {
    cwd: root,
    env,
    timeout: CHILD_LIMIT_MS,
  });
  const out = r.stdout + r.stderr;
  assert.equal(r.code, 0, out);
  assert.match(out, /an export in the embed shows in the panel/);
  assert.match(out, /# pass 1\b/);
  assert.match(out, /# fail 0\b/);
  // Its after() closed the tenant: the port is free again.
  await assert.rejects(fetch(`http://127.0.0.1:${app.env.TENANT_PORT}/embed/static/main.js`));
});
