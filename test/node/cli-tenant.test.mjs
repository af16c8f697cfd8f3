// `svc-embed-tenant` (@svc-embed/tenant's command) as a user runs it: what it prints and serves, its flags,
// how it stops, a busy port; an embed on a host page of another port in headless Chromium, ready when the
// host origin is allowed and refused by CSP (the element's ready timeout) when it is not. And: `svc-embed
// tenant` points at it, and the element's entry points, the client and the `svc-embed` command load nothing
// of the tenant.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launch } from '../support/browsers.mjs';
import { describeTenant, startTenant } from '@svc-embed/tenant';
import { runToEnd, startUntil } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'packages/api/dist/cli.js');
const tenantBin = join(root, 'packages/tenant/dist/bin.js');
/** Per child process: generous, for a loaded machine. The tests assert order and outcome, never speed. */
const CHILD_LIMIT_MS = 120_000;
const children = new Set();

after(() => {
  for (const child of children) child.kill('SIGKILL');
});

/** Runs `svc-embed-tenant` to completion: {code, stdout, stderr}. */
const run = (args) => runToEnd(process.execPath, [tenantBin, ...args], { cwd: root, timeout: CHILD_LIMIT_MS });
/** Runs `svc-embed` to completion. */
const runApiCli = (args) => runToEnd(process.execPath, [cli, ...args], { cwd: root, timeout: CHILD_LIMIT_MS });

/**
 * Starts `svc-embed-tenant` with `args` and resolves once it has printed its banner, with its origin; the
 * child is killed at the end of the file whatever happens.
 */
async function startCli(args) {
  const state = await startUntil(process.execPath, [tenantBin, ...args], 'Ctrl-C stops it.', {
    cwd: root,
    running: children,
  });
  state.origin = /^Simulated tenant {2}(http:\/\/\S+)$/m.exec(state.stdout)?.[1];
  assert.ok(state.origin, state.stdout);
  return state;
}

/** Stops a started CLI with `signal`: resolves with its exit code and stderr. */
async function stopCli(state, signal) {
  state.child.kill(signal);
  const code = await state.exited;
  return { code, stderr: state.stderr };
}

const csp = async (origin) =>
  (await fetch(`${origin}/embed/dashboard/sales-overview?session=demo-acme`)).headers.get('content-security-policy');

describe('svc-embed-tenant: help and usage', () => {
  test('`svc-embed tenant` says, in one line and with exit 2, to use npx @svc-embed/tenant; the main help no longer lists it', async () => {
    for (const args of [['tenant'], ['tenant', '--port', '0'], ['tenant', '--help']]) {
      const r = await runApiCli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /^svc-embed: [^\n]*run "npx @svc-embed\/tenant"[^\n]*\n$/, args.join(' '));
      // What to run, for a newcomer who never knew `svc-embed tenant`: no "now", no history.
      assert.match(r.stderr, /"npx svc-embed-tenant" where @svc-embed\/tenant is installed/);
      assert.match(r.stderr, /"npx @svc-embed\/tenant --help" lists its flags/);
      assert.doesNotMatch(r.stderr, /\bnow\b|\bsame flags\b/);
    }
    const main = await runApiCli(['--help']);
    assert.equal(main.code, 0);
    assert.doesNotMatch(main.stdout, /^ {2}tenant /m);
  });

  test('--help gives its usage, flags and exit codes', async () => {
    const help = await run(['--help']);
    assert.equal(help.code, 0);
    assert.equal(help.stderr, '');
    assert.match(
      help.stdout,
      /^Usage: svc-embed-tenant \[--port <n>\] \[--host <host> \[--expose\]\] \[--allow-origin <origin>\]\.\.\. \[--latency off\|on\]$/m,
    );
    for (const flag of ['--port', '--host', '--expose', '--allow-origin', '--latency'])
      assert.match(help.stdout, new RegExp(`^ {2}${flag} `, 'm'));
    assert.match(help.stdout, /default 8001; 0 picks a free one/);
    assert.match(help.stdout, /Default: http:\/\/localhost:\* and http:\/\/127\.0\.0\.1:\*/);
    assert.match(help.stdout, /Exit codes:\n {2}0 .*SIGINT.*SIGTERM\n {2}1 .*in use.*\n {2}2 .*usage/);
    assert.deepEqual(await run(['-h']), help);
    const version = await run(['--version']);
    assert.deepEqual(version, {
      code: 0,
      stdout: `${JSON.parse(readFileSync(join(root, 'packages/tenant/package.json'), 'utf8')).version}\n`,
      stderr: '',
    });
  });

  for (const [name, args, message] of [
    [
      'a misspelt flag',
      ['--alow-origin', 'http://localhost:*'],
      /unknown flag "--alow-origin"; did you mean --allow-origin\?/,
    ],
    ['another misspelt flag', ['--prot', '0'], /unknown flag "--prot"; did you mean --port\?/],
    ['a port that is not a number', ['--port', 'eighty'], /--port must be a port number from 0 to 65535/],
    ['a port above 65535', ['--port', '65536'], /--port must be a port number from 0 to 65535/],
    ['a negative port', ['--port=-1'], /--port must be a port number/],
    ['a port given twice', ['--port', '0', '--port', '1'], /--port is given more than once/],
    ['a port without its value', ['--port'], /--port needs a value/],
    [
      'an origin with a path',
      ['--allow-origin', 'http://localhost:5173/app'],
      /--allow-origin "http:\/\/localhost:5173\/app" is not an origin \(no path\)/,
    ],
    [
      'an origin of another scheme',
      ['--allow-origin', 'http://localhost:*', '--allow-origin', 'file:///x'],
      /--allow-origin "file:\/\/\/x" is not an origin/,
    ],
    ['a bare star', ['--allow-origin', '*'], /--allow-origin "\*" is not an origin/],
    ['a host that is not a host name', ['--host', 'http://localhost'], /--host must be a host name or an IP address/],
    ['latency neither off nor on', ['--latency', 'of'], /--latency must be off or on; did you mean off\?/],
    ['latency as a boolean', ['--latency', 'false'], /--latency must be off or on/],
    ['a stray argument', ['8001'], /unexpected argument at position 1: svc-embed-tenant takes flags only/],
  ]) {
    test(`exit 2, nothing listens: ${name}`, async () => {
      const r = await run(args);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, message);
      assert.match(r.stderr, /^svc-embed-tenant: /);
      assert.match(r.stderr, /Run "svc-embed-tenant --help" for usage\.\n$/);
    });
  }
});

describe('svc-embed-tenant: a host other machines reach needs --expose', () => {
  /** An address of this machine that is not loopback, if it has one. */
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4')?.address;

  for (const host of ['0.0.0.0', '::', ...(lan ? [lan] : [])]) {
    test(`--host ${host} without --expose: exit 2, one line saying why, nothing listens`, async () => {
      const r = await run(['--port', '0', '--host', host]);
      assert.equal(r.code, 2, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(
        r.stderr,
        /^svc-embed-tenant: --host "[^"]+" is not a loopback address: other machines could use the demo keys and sessions\. Listen on 127\.0\.0\.1 \(the default\), or pass --expose to allow it\n/,
      );
    });
  }

  test('startTenant refuses such a host with a TypeError unless expose is true; loopback hosts need nothing', async () => {
    for (const host of ['0.0.0.0', '::', 'example.com', ...(lan ? [lan] : [])]) {
      await assert.rejects(
        startTenant({ host }),
        { name: 'TypeError', message: /not a loopback address.*expose: true/ },
        host,
      );
    }
    for (const host of ['127.0.0.1', 'localhost', '127.0.0.2', '::1']) {
      const t = await startTenant({ host });
      assert.deepEqual(t.remoteOrigins, [], host);
      assert.doesNotMatch(describeTenant(t), /WARNING/);
      await t.close();
    }
    await assert.rejects(startTenant({ expose: 'yes' }), {
      name: 'TypeError',
      message: /expose must be true or false/,
    });
  });

  test(
    '--host 0.0.0.0 --expose: a warning that the keys are public, and the origins other machines use',
    { skip: !lan && 'no address but loopback here' },
    async () => {
      const t = await startCli(['--port', '0', '--host', '0.0.0.0', '--expose', '--latency', 'off']);
      try {
        const port = new URL(t.origin).port;
        assert.match(
          t.stdout,
          /WARNING {3}exposed to the network: anyone who can reach this machine can use the demo keys and sessions/,
        );
        assert.ok(t.stdout.includes(`http://${lan}:${port}`), t.stdout);
        // What the review did: the machine's own LAN address as Host, with a demo key. Allowed only because of --expose.
        const res = await fetch(`http://${lan}:${port}/api/v1/deployments/1/notifications/2/recipients`, {
          headers: { authorization: 'Bearer demo-admin-key' },
        });
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      } finally {
        await stopCli(t, 'SIGTERM');
      }
    },
  );
});

describe('svc-embed-tenant: serving', () => {
  test('--port 0: a free port; prints the origin, an example tag and the keys; serves embed, REST and SCIM', async () => {
    const t = await startCli(['--port', '0']);
    try {
      assert.match(t.origin, /^http:\/\/127\.0\.0\.1:(?!0\b)\d+$/);
      assert.ok(
        t.stdout.includes(`<svc-embed src="${t.origin}/embed/dashboard/sales-overview?session=demo-acme"`),
        t.stdout,
      );
      assert.match(t.stdout, /framed by {7}http:\/\/localhost:\* {2}http:\/\/127\.0\.0\.1:\*/);
      for (const key of ['demo-admin-key', 'demo-scoped-key', 'demo-viewer-key', 'demo-scim-token'])
        assert.ok(t.stdout.includes(key), key);
      // The base URL to copy for the svc-embed command, and the root page, which lists it all.
      assert.match(t.stdout, new RegExp(`^ {2}Base URL {2}SVC_BASE_URL=${t.origin}/api {3}`, 'm'));
      assert.ok(t.stdout.includes(`on one page: ${t.origin}/\n`), t.stdout);
      assert.match(await (await fetch(`${t.origin}/`)).text(), /<h1>Simulated svc-embed tenant<\/h1>/);
      assert.equal(t.stderr, '');
      const page = await fetch(`${t.origin}/embed/dashboard/sales-overview?session=demo-acme`);
      assert.equal(page.status, 200);
      assert.match(
        page.headers.get('content-security-policy'),
        /frame-ancestors http:\/\/localhost:\* http:\/\/127\.0\.0\.1:\*/,
      );
      const rest = await fetch(`${t.origin}/api/v1/deployments/1/notifications/2/recipients`, {
        headers: { authorization: 'Bearer demo-admin-key' },
      });
      assert.equal(rest.status, 200);
      assert.equal((await rest.json()).items.length, 7);
      const scim = await fetch(`${t.origin}/api/scim/v2/Users?count=1`, {
        headers: { authorization: 'Bearer demo-scim-token' },
      });
      assert.equal((await scim.json()).totalResults, 137);
    } finally {
      await stopCli(t, 'SIGINT');
    }
  });

  test('--allow-origin is repeatable and replaces the defaults; --host localhost; --latency off and on', async () => {
    const t = await startCli([
      '--port',
      '0',
      '--host',
      'localhost',
      '--allow-origin',
      'http://localhost:5173',
      '--allow-origin=https://app.example.com',
      '--latency',
      'off',
    ]);
    const slow = await startCli(['--port', '0', '--latency', 'on']);
    try {
      assert.match(t.origin, /^http:\/\/localhost:\d+$/);
      assert.match(await csp(t.origin), /frame-ancestors http:\/\/localhost:5173 https:\/\/app\.example\.com(;|$)/);
      const query = '/embed/api/query?session=demo-acme&publicId=sales-overview&widget=kpi-orders';
      assert.match((await fetch(`${t.origin}${query}`)).headers.get('server-timing'), /^simulated;dur=0;/);
      assert.match((await fetch(`${slow.origin}${query}`)).headers.get('server-timing'), /^simulated;dur=[1-9][0-9]*;/);
    } finally {
      await Promise.all([stopCli(t, 'SIGINT'), stopCli(slow, 'SIGINT')]);
    }
  });

  test('minted sessions are single-use; --reusable-sessions lets one load any number of times', async () => {
    const [strict, reusable] = await Promise.all([
      startCli(['--port', '0', '--latency', 'off']),
      startCli(['--port', '0', '--latency', 'off', '--reusable-sessions']),
    ]);
    try {
      const help = await run(['--help']);
      assert.match(help.stdout, /^ {2}--reusable-sessions {2,}let a minted session/m);
      const loads = async (origin) => {
        const minted = await fetch(`${origin}/api/v1/embed/sessions`, {
          method: 'POST',
          headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
          body: JSON.stringify({ embedTenant: 'acme', ttlSeconds: 60 }),
        });
        const { session } = await minted.json();
        const out = [];
        for (let i = 0; i < 2; i++) {
          const res = await fetch(`${origin}/embed/api/bootstrap?surface=chat&session=${session}`);
          const body = await res.json();
          out.push(res.ok ? res.status : `${res.status} ${body.error.name}`);
        }
        return out;
      };
      assert.deepEqual(await loads(strict.origin), [200, '401 SessionUsedError']);
      assert.deepEqual(await loads(reusable.origin), [200, 200]);
    } finally {
      await Promise.all([stopCli(strict, 'SIGINT'), stopCli(reusable, 'SIGINT')]);
    }
  });

  for (const signal of ['SIGINT', 'SIGTERM']) {
    test(`${signal} stops it: the server closes, exit 0`, async () => {
      const t = await startCli(['--port', '0']);
      const script = await fetch(`${t.origin}/embed/static/main.js`);
      assert.equal(script.status, 200);
      await script.text();
      const { code, stderr } = await stopCli(t, signal);
      assert.equal(code, 0, stderr);
      assert.equal(stderr, 'svc-embed-tenant: stopped\n');
      await assert.rejects(fetch(`${t.origin}/embed/static/main.js`));
    });
  }

  test('--port when the port is in use: one clear line on stderr, exit 1', async () => {
    const blocker = createNetServer();
    await new Promise((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address();
    try {
      const r = await run(['--port', String(port)]);
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stdout, '');
      assert.equal(
        r.stderr,
        `svc-embed-tenant: port ${port} on 127.0.0.1 is in use: choose another with --port (--port 0 picks a free one)\n`,
      );
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});

describe('svc-embed-tenant: an embed on a host page of another port (headless Chromium)', () => {
  let browser;
  let host;
  const bundle = readFileSync(join(root, 'cdn/svc-embed.min.js'));
  // The host page: <svc-embed src=… ready-timeout=…> from the query, and its first status after loading.
  const page = `<!doctype html><meta charset="utf-8"><title>host</title>
<script type="module">
  import '/svc-embed.min.js';
  const q = new URLSearchParams(location.search);
  const el = document.createElement('svc-embed');
  el.setAttribute('ready-timeout', q.get('timeout'));
  window.outcome = new Promise((resolve) => el.addEventListener('svc-status', ({ detail }) => {
    if (detail.status !== 'loading') resolve({ status: detail.status, reason: detail.reason ?? null, ready: el.ready });
  }));
  window.readyPayload = el.whenReady().then((d) => d.payload, () => null);
  el.src = q.get('src');
  document.body.append(el);
</script>`;

  before(async () => {
    host = createServer((req, res) => {
      const { pathname } = new URL(req.url, 'http://x');
      if (pathname === '/') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page);
      else if (pathname === '/svc-embed.min.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      else res.writeHead(404).end();
    });
    await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
    browser = await launch('chromium');
  });

  after(async () => {
    await browser?.close();
    if (host) {
      host.closeAllConnections();
      await new Promise((resolve) => host.close(resolve));
    }
  });

  /** Opens the host page on `hostOrigin` with an embed of `tenantOrigin`; resolves with its first status after loading. */
  async function open(hostOrigin, tenantOrigin, timeout) {
    const tab = await browser.newPage();
    try {
      const src = `${tenantOrigin}/embed/dashboard/sales-overview?session=demo-acme`;
      await tab.goto(`${hostOrigin}/?${new URLSearchParams({ src, timeout: String(timeout) })}`);
      const outcome = await tab.evaluate(() => window.outcome);
      return { ...outcome, payload: await tab.evaluate(() => window.readyPayload) };
    } finally {
      await tab.close();
    }
  }

  test('with the default allowed origins, the embed on http://127.0.0.1:<other port> becomes ready', async () => {
    const t = await startCli(['--port', '0', '--latency', 'off']);
    try {
      const hostOrigin = `http://127.0.0.1:${host.address().port}`;
      assert.notEqual(hostOrigin, t.origin);
      const outcome = await open(hostOrigin, t.origin, 60_000);
      assert.deepEqual(outcome, {
        status: 'ready',
        reason: null,
        ready: true,
        payload: {
          embedTenant: 'acme',
          deploymentId: 1,
          mode: 'signed',
          surface: 'dashboard',
          publicId: 'sales-overview',
        },
      });
    } finally {
      await stopCli(t, 'SIGTERM');
    }
  });

  test("a host origin that is not allowed is refused by CSP: the element's ready timeout fires", async () => {
    const t = await startCli(['--port', '0', '--latency', 'off', '--allow-origin', 'http://localhost:*']);
    try {
      assert.match(await csp(t.origin), /frame-ancestors http:\/\/localhost:\*(;|$)/);
      const port = host.address().port;
      // The same page on an allowed origin first: what follows is the origin's doing, not the page's.
      assert.equal((await open(`http://localhost:${port}`, t.origin, 60_000)).status, 'ready');
      const refused = await open(`http://127.0.0.1:${port}`, t.origin, 1500);
      assert.deepEqual(refused, { status: 'error', reason: 'ready-timeout', ready: false, payload: null });
    } finally {
      await stopCli(t, 'SIGTERM');
    }
  });
});

describe('loading the tenant only where it is asked for', () => {
  /** Every module URL that `node <args>` resolves (test/support/import-log.mjs). */
  async function loaded(args) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-embed-imports-'));
    try {
      const log = join(dir, 'log');
      const { code, stderr } = await runToEnd(
        process.execPath,
        ['--import', join(root, 'test/support/import-log.mjs'), ...args],
        {
          cwd: root,
          env: { ...process.env, SVC_IMPORT_LOG: log },
          timeout: CHILD_LIMIT_MS,
        },
      );
      return { code, stderr, urls: readFileSync(log, 'utf8').trim().split('\n') };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const tenantish = (url) => /\/tenant\/|\/node_modules\/(koa|@koa)\b/.test(url);

  test('import "svc-embed", "@svc-embed/api" and "svc-embed/testing" load nothing of the tenant or its server', async () => {
    const r = await loaded([
      '--input-type=module',
      '-e',
      "await import('svc-embed'); await import('@svc-embed/api'); await import('svc-embed/testing');",
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.urls.some((u) => u.endsWith('/dist/index.js')) && r.urls.some((u) => u.endsWith('/packages/api/dist/index.js')),
      r.urls.join('\n'),
    );
    assert.deepEqual(r.urls.filter(tenantish), []);
  });

  test('nor does the svc-embed command, its help and its commands: they load the one bundled file, and builtins', async () => {
    for (const args of [
      ['--help'],
      ['tenant', '--help'],
      ['tenant', '--port', 'x'],
      ['recipients', '--deployment', '1'],
    ]) {
      const r = await loaded([cli, ...args]);
      assert.ok(
        r.urls.some((u) => u.endsWith('/dist/cli.js')),
        args.join(' '),
      );
      assert.deepEqual(r.urls.filter(tenantish), [], args.join(' '));
      assert.deepEqual(
        r.urls.filter((u) => !u.endsWith('/dist/cli.js') && !u.startsWith('node:')),
        [],
        args.join(' '),
      );
    }
  });

  test('(the log sees the tenant when it is imported)', async () => {
    const r = await loaded(['--input-type=module', '-e', "await import('@svc-embed/tenant');"]);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(
      r.urls.some((u) => u.endsWith('/packages/tenant/dist/index.js')) &&
        r.urls.some((u) => u.includes('/node_modules/koa/')),
      r.urls.join('\n'),
    );
  });
});
