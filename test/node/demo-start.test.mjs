// `npm start` (scripts/start.mjs) with HOST_PORT=0 and TENANT_PORT=0: it prints the real origins, the
// tenant lets the host frame it on either loopback name, a second tenant refuses it, and SIGINT stops
// every server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const root = new URL('../../', import.meta.url);

test('HOST_PORT=0 TENANT_PORT=0: real ports printed and served, and Ctrl-C stops every server', async () => {
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd: root,
    env: { ...process.env, HOST_PORT: '0', TENANT_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (c) => {
    out += c;
  });
  child.stderr.on('data', (c) => {
    err += c;
  });
  try {
    // Outcome, not time: wait for the banner's last line or for the script to end.
    const exited = once(child, 'exit');
    await Promise.race([
      new Promise((resolve) => child.stdout.on('data', () => out.includes('Ctrl-C stops') && resolve())),
      exited.then(([code]) => assert.fail(`start.mjs exited ${code}: ${err}`)),
    ]);
    const hostOrigin = /Demo host\s+(http:\/\/localhost:\d+)\//.exec(out)?.[1];
    const tenantOrigin = /Simulated tenant\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    assert.ok(hostOrigin && tenantOrigin, out);
    assert.doesNotMatch(`${hostOrigin} ${tenantOrigin}`, /:0\b/);
    // The base URL of the svc-embed command, to copy, and the tenant's root page, which lists what it serves.
    assert.ok(out.includes(`SVC_BASE_URL=${tenantOrigin}/api `), out);
    const index = await fetch(`${tenantOrigin}/`);
    assert.equal(index.status, 200);
    assert.match(await index.text(), /<h1>Simulated svc-embed tenant<\/h1>/);
    for (const origin of [hostOrigin, hostOrigin.replace('localhost', '127.0.0.1')]) {
      assert.equal((await fetch(`${origin}/`)).status, 200, origin);
    }
    const config = await (await fetch(`${hostOrigin}/config.json`)).json();
    assert.equal(config.tenantOrigin, tenantOrigin);
    // The second tenant, for the "Wrong host origin" scenario, refuses to be framed by the demo host.
    const refusing = /Refusing tenant\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    assert.equal(config.refusingTenantOrigin, refusing);
    assert.match(
      (await fetch(`${refusing}/embed/app`)).headers.get('content-security-policy'),
      /frame-ancestors https:\/\/app\.example\.com(;|$)/,
    );
    const csp = (await fetch(`${tenantOrigin}/embed/app`)).headers.get('content-security-policy');
    assert.match(csp, /frame-ancestors http:\/\/localhost:\* http:\/\/127\.0\.0\.1:\*/);
    child.kill('SIGINT');
    const [code] = await exited;
    assert.equal(code, 0, err);
    await assert.rejects(fetch(`${hostOrigin}/`));
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
