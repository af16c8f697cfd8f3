// @svc-embed/tenant as a module: startTenant's options and what they change, describeTenant, the
// allowed-origin rules the CSP and the embed's bridge share, and the package entry that ships it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_ALLOW_ORIGINS, describeTenant, startTenant } from '@svc-embed/tenant';
import { allowedOrigins, parseAllowedOrigin, postTargets } from '@svc-embed/protocol';

const root = fileURLToPath(new URL('../../', import.meta.url));

async function withTenant(options, fn) {
  const tenant = await startTenant(options);
  try {
    return await fn(tenant);
  } finally {
    await tenant.close();
  }
}

const csp = async (tenant) => (await fetch(`${tenant.origin}/embed/app`)).headers.get('content-security-policy');

describe('startTenant options', () => {
  for (const [name, options, message] of [
    ['options not an object', 42, /options must be an object/],
    ['options an array', [], /options must be an object/],
    ['options null', null, /options must be an object/],
    ['an unknown option', { hostOrigins: ['http://localhost:8000'] }, /unknown option "hostOrigins"/],
    ['a misspelt option', { allowOrigin: ['http://localhost:8000'] }, /unknown option "allowOrigin"/],
    ['port below 0', { port: -1 }, /port must be an integer from 0 to 65535/],
    ['port above 65535', { port: 65536 }, /port/],
    ['port not an integer', { port: 1.5 }, /port/],
    ['port a string', { port: '8001' }, /port/],
    ['port NaN', { port: Number.NaN }, /port/],
    ['host empty', { host: '' }, /host must be a host name or an IP address/],
    ['host with a space', { host: 'local host' }, /host/],
    ['host a URL', { host: 'http://localhost' }, /host/],
    ['host with a port', { host: 'localhost:8001' }, /host/],
    ['host a number', { host: 127 }, /host/],
    ['allowOrigins empty', { allowOrigins: [] }, /non-empty array/],
    ['allowOrigins a string', { allowOrigins: 'http://localhost:*' }, /non-empty array/],
    ['allowOrigins holding a number', { allowOrigins: [8000] }, /allowOrigins: number is not an origin/],
    ['an empty origin', { allowOrigins: [''] }, /not an origin/],
    ['an origin without a scheme', { allowOrigins: ['localhost:8000'] }, /not an origin/],
    ['an origin with a path', { allowOrigins: ['http://localhost:8000/app'] }, /no path/],
    ['an origin with a query', { allowOrigins: ['http://localhost:8000?x=1'] }, /no query/],
    ['an origin with credentials', { allowOrigins: ['http://user@localhost:8000'] }, /credentials/],
    ['another scheme', { allowOrigins: ['ftp://localhost'] }, /http: or https:/],
    ['a file URL', { allowOrigins: ['file:///tmp/x.html'] }, /not an origin/],
    ['a bare star', { allowOrigins: ['*'] }, /not an origin/],
    ['a wildcard host', { allowOrigins: ['http://*.example.com'] }, /only the port may be a wildcard/],
    ['a port and a wildcard', { allowOrigins: ['http://localhost:80:*'] }, /scheme:\/\/host:\*/],
    ['a wildcard after a slash', { allowOrigins: ['http://localhost/:*'] }, /no path/],
    ['a wildcard scheme', { allowOrigins: ['*://localhost:8000'] }, /not an origin/],
    ['latency "off"', { latency: 'off' }, /latency must be true or false/],
    ['latency 0', { latency: 0 }, /latency/],
    ['reusableSessions "yes"', { reusableSessions: 'yes' }, /reusableSessions must be true or false/],
    ['reusableSessions 1', { reusableSessions: 1 }, /reusableSessions must be true or false/],
  ]) {
    test(`TypeError: ${name}`, async () => {
      // A tenant that starts when it should not is closed, so the failure cannot hold the process open.
      const error = await startTenant(options).then(
        async (tenant) => {
          await tenant.close();
          return undefined;
        },
        (e) => e,
      );
      assert.ok(error instanceof TypeError, String(error?.message ?? 'startTenant resolved'));
      assert.match(error.message, message);
      assert.match(error.message, /^(startTenant|allowOrigins):/);
    });
  }

  test('defaults: a free port on 127.0.0.1, localhost and 127.0.0.1 on any port may frame it', async () => {
    assert.deepEqual(DEFAULT_ALLOW_ORIGINS, ['http://localhost:*', 'http://127.0.0.1:*']);
    await withTenant(undefined, async (tenant) => {
      assert.match(tenant.origin, /^http:\/\/127\.0\.0\.1:[0-9]+$/);
      assert.deepEqual(tenant.allowOrigins, ['http://localhost:*', 'http://127.0.0.1:*']);
      assert.match(await csp(tenant), /frame-ancestors http:\/\/localhost:\* http:\/\/127\.0\.0\.1:\*(;|$)/);
    });
  });

  test('allowOrigins are canonicalised (case, default port, trailing slash) and de-duplicated', async () => {
    await withTenant(
      {
        allowOrigins: [
          'HTTP://LocalHost:5173/',
          'http://localhost:5173',
          'https://app.example:443',
          'http://127.0.0.1:*',
        ],
      },
      async (tenant) => {
        assert.deepEqual(tenant.allowOrigins, ['http://localhost:5173', 'https://app.example', 'http://127.0.0.1:*']);
        const policy = await csp(tenant);
        assert.match(
          policy,
          /frame-ancestors http:\/\/localhost:5173 https:\/\/app\.example http:\/\/127\.0\.0\.1:\*(;|$)/,
        );
        const page = await (await fetch(`${tenant.origin}/embed/chat`)).text();
        assert.ok(
          page.includes(
            '<meta name="svc-allow-origins" content="http://localhost:5173 https://app.example http://127.0.0.1:*">',
          ),
        );
      },
    );
  });

  test('host "localhost" gives a localhost origin; an IPv6 literal is bracketed', async () => {
    await withTenant({ host: 'localhost' }, async (tenant) => {
      assert.match(tenant.origin, /^http:\/\/localhost:[0-9]+$/);
      assert.equal((await fetch(`${tenant.origin}/embed/static/main.js`)).status, 200);
    });
  });

  test('a port in use rejects with EADDRINUSE, and the first tenant keeps working', async () => {
    await withTenant({}, async (first) => {
      const port = Number(new URL(first.origin).port);
      await assert.rejects(startTenant({ port }), (error) => error.code === 'EADDRINUSE');
      assert.equal((await fetch(`${first.origin}/embed/static/main.js`)).status, 200);
    });
  });

  test('latency: the default adds simulated latency to queries and questions; false adds none', async () => {
    const timing = async (tenant, p) => (await fetch(`${tenant.origin}${p}`)).headers.get('server-timing');
    const query = '/embed/api/query?session=demo-acme&publicId=sales-overview&widget=kpi-orders';
    const ask = '/embed/api/ask?session=demo-acme&q=revenue%20by%20region';
    await withTenant({}, async (slow) => {
      for (const p of [query, ask]) assert.match(await timing(slow, p), /^simulated;dur=[1-9][0-9]*;/, p);
    });
    await withTenant({ latency: false }, async (fast) => {
      for (const p of [query, ask]) assert.match(await timing(fast, p), /^simulated;dur=0;/, p);
    });
  });

  test('close() stops the server', async () => {
    const tenant = await startTenant();
    await tenant.close();
    await assert.rejects(fetch(`${tenant.origin}/embed/static/main.js`));
  });
});

describe('describeTenant', () => {
  test('the origin, an example tag on it, the sessions and the keys', () => {
    const text = describeTenant({
      origin: 'http://127.0.0.1:8001',
      allowOrigins: ['http://localhost:*', 'http://127.0.0.1:*'],
    });
    assert.match(text, /http:\/\/127\.0\.0\.1:8001/);
    assert.match(
      text,
      /<svc-embed\s+src="http:\/\/127\.0\.0\.1:8001\/embed\/dashboard\/sales-overview\?session=demo-acme"/,
    );
    assert.match(text, /http:\/\/localhost:\*/);
    for (const key of ['demo-admin-key', 'demo-scoped-key', 'demo-viewer-key', 'demo-scim-token', 'demo-acme-ttl20'])
      assert.ok(text.includes(key), key);
  });
});

describe('allowed origins (shared by the CSP and the bridge)', () => {
  const defaults = allowedOrigins(DEFAULT_ALLOW_ORIGINS);
  test('the defaults match localhost and 127.0.0.1 on any port, default port included', () => {
    for (const o of [
      'http://localhost:5173',
      'http://localhost:8000',
      'http://127.0.0.1:1',
      'http://127.0.0.1:65535',
      'http://localhost',
    ]) {
      assert.ok(defaults.matches(o), o);
    }
  });
  test('nothing else matches: other schemes, look-alike hosts, non-serialised origins', () => {
    for (const o of [
      'https://localhost:5173',
      'http://localhost.evil.example:5173',
      'http://127.0.0.1.evil.example:80',
      'http://evil.example',
      'http://xlocalhost:80',
      'http://127.0.0.10:80',
      'http://127.0.0.2:8000',
      'http://[::1]:8000',
      'null',
      '',
      'http://localhost:5173/',
      'http://LOCALHOST:5173',
      'http://localhost:5173/x',
      ' http://localhost:1',
      'http://user@localhost:1',
      'http://localhost:*',
      'ws://localhost:1',
      undefined,
      42,
      null,
    ]) {
      assert.equal(defaults.matches(o), false, String(o));
    }
  });
  test('an exact entry matches only its own port', () => {
    const exact = allowedOrigins(['http://localhost:8000']);
    assert.ok(exact.matches('http://localhost:8000'));
    for (const o of [
      'http://localhost:8001',
      'http://localhost:80',
      'http://localhost',
      'http://localhost:800',
      'http://127.0.0.1:8000',
    ]) {
      assert.equal(exact.matches(o), false, o);
    }
  });
  test('where the embed posts: the known parent when allowed; else only exact entries, never a pattern', () => {
    const mixed = allowedOrigins(['http://localhost:*', 'https://app.example']);
    assert.deepEqual(postTargets('http://localhost:5173', mixed), ['http://localhost:5173']);
    assert.deepEqual(postTargets('https://evil.example', mixed), []);
    assert.deepEqual(postTargets(undefined, mixed), ['https://app.example']);
    assert.deepEqual(postTargets(undefined, defaults), []);
  });
  test('parseAllowedOrigin returns the canonical parts', () => {
    assert.deepEqual(parseAllowedOrigin('http://LOCALHOST:*'), {
      origin: 'http://localhost:*',
      scheme: 'http:',
      host: 'localhost',
      port: '*',
    });
    assert.deepEqual(parseAllowedOrigin('https://a.example:8443'), {
      origin: 'https://a.example:8443',
      scheme: 'https:',
      host: 'a.example',
      port: '8443',
    });
    assert.deepEqual(parseAllowedOrigin('http://[::1]:*'), {
      origin: 'http://[::1]:*',
      scheme: 'http:',
      host: '[::1]',
      port: '*',
    });
  });
});

describe('the package entry', () => {
  test('@svc-embed/tenant resolves through exports, and its typings check', () => {
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const m = await import('@svc-embed/tenant');
      const t = await m.startTenant({ latency: false });
      const res = await fetch(t.origin + '/embed/protocol/index.js');
      console.log(JSON.stringify({ keys: Object.keys(m).sort(), status: res.status }));
      await t.close();
    `,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(JSON.parse(result.stdout), {
      keys: ['DEFAULT_ALLOW_ORIGINS', 'describeTenant', 'startTenant'],
      status: 200,
    });
    const tsc = spawnSync(
      process.execPath,
      [
        'node_modules/typescript/bin/tsc',
        '--noEmit',
        '--strict',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        'test/node/fixtures/tenant-types.ts',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
  });

  test('import "svc-embed" and "@svc-embed/api" load nothing of the tenant or its server libraries', () => {
    const hook = `let port;
      export function initialize(data) { port = data.port; }
      export async function resolve(specifier, context, next) { const r = await next(specifier, context); port.postMessage(r.url); return r; }`;
    const result = spawnSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      import { register } from 'node:module';
      import { MessageChannel } from 'node:worker_threads';
      const { port1, port2 } = new MessageChannel();
      const seen = [];
      port1.on('message', (u) => seen.push(u));
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}), { data: { port: port2 }, transferList: [port2] });
      await import('svc-embed');
      await import('@svc-embed/api');
      await new Promise((r) => setTimeout(r, 200));
      port1.close();
      console.log(JSON.stringify(seen));
    `,
      ],
      { cwd: root, encoding: 'utf8' },
    );
    assert.equal(result.status, 0, result.stderr);
    const seen = JSON.parse(result.stdout);
    assert.ok(
      seen.some((u) => u.endsWith('/dist/index.js')),
      'the hook saw the main entry',
    );
    assert.ok(
      seen.some((u) => u.endsWith('/packages/api/dist/index.js')),
      'the hook saw the client',
    );
    assert.deepEqual(
      seen.filter((u) => /\/tenant\/|\/node_modules\/(koa|@koa)/.test(u)),
      [],
    );
  });

  test('npm pack of @svc-embed/tenant ships its server, pages, typings and command, and no sources or tests', () => {
    const result = spawnSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts', '-w', '@svc-embed/tenant'], {
      cwd: root,
      encoding: 'utf8',
    });
    assert.equal(result.status, 0, result.stderr);
    const files = JSON.parse(result.stdout)[0].files.map((f) => f.path);
    for (const f of [
      'dist/index.js',
      'dist/index.d.ts',
      'dist/http.js',
      'dist/bin.js',
      'bin/svc-embed-tenant.js',
      'embed.html',
      'public/bridge.js',
      'public/main.js',
      'dist/seed.js',
      'package.json',
    ]) {
      assert.ok(files.includes(f), f);
    }
    assert.deepEqual(
      files.filter((f) => /^(test|demo|src|scripts)\/|\.ts$/.test(f) && !f.endsWith('.d.ts')),
      [],
    );
    const pkg = JSON.parse(readFileSync(join(root, 'packages/tenant/package.json'), 'utf8'));
    assert.deepEqual(pkg.exports['.'], { types: './dist/index.d.ts', default: './dist/index.js' });
    // The bin is a file of the source tree that runs dist/bin.js, so that npm links it before any build.
    assert.deepEqual(pkg.bin, { 'svc-embed-tenant': 'bin/svc-embed-tenant.js' });
    for (const dep of ['koa', '@koa/router', '@koa/send', 'koa-mount', '@svc-embed/protocol'])
      assert.ok(pkg.dependencies[dep], dep);
  });
});
