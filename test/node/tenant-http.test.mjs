// HTTP hygiene of both servers (the simulated tenant and the demo host): each public prefix is served
// from its own root and nothing else can be named, only loopback Host names are answered, every
// response is nosniff, and a hostile request costs at most one line of stderr. Requests go over a bare
// socket so that paths and headers arrive exactly as written.
import { after, before, describe, mock, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mount from 'koa-mount';
import { createApp, httpError, listen, serveDir } from '../../packages/tenant/dist/http.js';
import { DASHBOARDS } from '../../packages/tenant/dist/datasets.js';
import { CREDENTIALS } from '../../packages/tenant/dist/seed.js';
import { startTenant } from '@svc-embed/tenant';
import { startHost } from '../../demo/host-server.mjs';
import { rawRequest } from '../support/raw-http.mjs';

let tenant;
let host;
before(async () => {
  tenant = await startTenant({ port: 0 });
  host = await startHost({ port: 0, tenantOrigin: tenant.origin });
});
after(async () => {
  await host?.close();
  await tenant?.close();
});

// What a leak would contain: the repository's package.json, a git config, a source file of the tenant.
const LEAK = /"name":\s*"svc-embed"|\[core\]|gitdir:|CREDENTIALS|export function|"devDependencies"/;

const UP = ['%2e%2e', '..', '%2E%2E', '.%2e', '%2e.'];
/** Every way we know to say "the parent directory" in one path segment, with every separator. */
function traversals(prefix, target) {
  const out = [];
  for (const up of UP) {
    for (const sep of ['/', '%2f', '%2F', '%5c', '\\']) {
      for (const depth of [1, 2, 3, 4, 6]) out.push(`${prefix}${Array(depth).fill(up).join(sep)}${sep}${target}`);
    }
  }
  out.push(`${prefix}%252e%252e/%252e%252e/%252e%252e/${target}`); // double-encoded
  out.push(`${prefix}.%00./.%00./${target}`);
  out.push(`${prefix}%2e%2e%00/${target}`);
  out.push(`${prefix}/${'..%2f'.repeat(6)}${target}`);
  out.push(`${prefix}%c0%ae%c0%ae/%c0%ae%c0%ae/${target}`); // overlong UTF-8 dots
  return out;
}

const SERVERS = {
  tenant: {
    server: () => tenant,
    ok: ['/embed/static/main.js', '/embed/static/embed.css', '/embed/protocol/index.js', '/embed/protocol/validate.js'],
    vectors: () => [
      ...traversals('/embed/static/', 'package.json'),
      ...traversals('/embed/static/', '.git/config'),
      ...traversals('/embed/static/', 'seed.js'),
      ...traversals('/embed/static/', 'dist/seed.js'),
      ...traversals('/embed/static/', 'src/seed.ts'),
      ...traversals('/embed/protocol/', 'package.json'),
      ...traversals('/embed/protocol/', 'cli.js'),
      '/embed/static/%2fetc%2fpasswd',
      '/embed/static//etc/passwd',
      '/embed/static/%5cetc%5cpasswd',
      '/package.json',
      '/.git/config',
      '/tenant/seed.js',
      '/tenant/public/main.js',
      '/dist/cli.js',
      '/packages/tenant/src/seed.ts',
      '/packages/api/dist/cli.js',
      '/dist/protocol/index.js',
      '/node_modules/koa/package.json',
      '/%2e%2e/package.json',
      '/embed/../package.json',
      '/embed/static/',
      '/embed/static',
      '/embed/protocol/',
      '/embed/static/.',
      '/embed/static/%2e',
      '/embed/static/../embed.js',
      '/embed/embed.html',
      '/embed/static/embed.html',
      '/embed/protocol/index.d.ts',
      '/embed/static/%2e%2e/index.d.ts',
    ],
  },
  host: {
    server: () => host,
    ok: [
      '/',
      '/compare',
      '/demo/host/playground.js',
      '/demo/host/host.css',
      '/cdn/svc-embed.min.js',
      '/dist/protocol/index.js',
      '/config.json',
    ],
    vectors: () => [
      ...traversals('/dist/', 'package.json'),
      ...traversals('/dist/', '.git/config'),
      ...traversals('/dist/protocol/', 'package.json'),
      ...traversals('/cdn/', 'package.json'),
      ...traversals('/demo/host/', 'package.json'),
      ...traversals('/demo/host/', 'tenant/seed.js'),
      '/package.json',
      '/.git/config',
      '/tenant/seed.js',
      '/demo/host/server.mjs',
      '/dist/cli.js',
      '/dist/api/index.js',
      '/packages/tenant/dist/seed.js',
      '/dist/index.js',
      '/src/index.ts',
      '/node_modules/koa/package.json',
      '/demo/host/',
      '/cdn/',
      '/dist/protocol/',
      '/dist/protocol/index.d.ts',
      '/demo/host/../host-server.mjs',
      '/demo/host/%2e%2e/host-server.mjs',
    ],
  },
};

for (const [name, spec] of Object.entries(SERVERS)) {
  describe(`${name}: only its public roots`, () => {
    test('the public files are served, with a real content type and nosniff', async () => {
      for (const p of spec.ok) {
        const res = await rawRequest(spec.server().origin, p);
        assert.equal(res.status, 200, p);
        assert.match(
          res.headers['content-type'],
          /^(text\/html|text\/css|application\/javascript|text\/javascript|application\/json)/,
          p,
        );
        assert.equal(res.headers['x-content-type-options'], 'nosniff', p);
      }
    });

    test('no traversal vector names anything outside the roots', async () => {
      const vectors = spec.vectors();
      assert.ok(vectors.length > 100);
      for (const p of vectors) {
        const res = await rawRequest(spec.server().origin, p);
        assert.doesNotMatch(res.body, LEAK, p);
        assert.ok([400, 404].includes(res.status), `${p}: ${res.status}`);
        assert.equal(res.headers['x-content-type-options'], 'nosniff', p);
        assert.ok(!res.body.trim().includes('\n'), `${p}: a one-line body`);
      }
    });

    test('malformed percent-encoding is a 400, never a 500', async () => {
      for (const p of [
        '/embed/static/%E0%A4%A',
        '/embed/static/%',
        '/dist/%ZZ',
        '/%',
        '/%c0',
        '/embed/dashboard/%E0%A4%A',
        '/api/v1/deployments/%ZZ/notifications/1/recipients',
      ]) {
        const res = await rawRequest(spec.server().origin, p);
        assert.ok(res.status >= 400 && res.status < 500, `${p}: ${res.status}`);
      }
    });

    test('a very long URL is refused cleanly, with nosniff', async () => {
      for (const length of [9000, 70000]) {
        const res = await rawRequest(spec.server().origin, `/${'a'.repeat(length)}`);
        assert.ok([414, 431].includes(res.status), `${length}: ${res.status}`);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      }
    });

    test('methods other than GET and HEAD on files: 405 with Allow; HEAD has no body', async () => {
      const file = spec.ok.find((p) => p.endsWith('.js'));
      for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE']) {
        const res = await rawRequest(spec.server().origin, file, { method });
        assert.ok([405, 501].includes(res.status), `${method}: ${res.status}`);
        if (res.status === 405) assert.match(res.headers.allow, /GET/);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
      }
      const head = await rawRequest(spec.server().origin, file, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.body, '');
    });
  });

  describe(`${name}: Host check (DNS rebinding)`, () => {
    const port = () => new URL(spec.server().origin).port;
    const get = (hostHeaders, p = spec.ok[0]) =>
      rawRequest(spec.server().origin, p, { headers: hostHeaders.map((h) => ['Host', h]) });

    test('the loopback names with the server port are answered', async () => {
      for (const h of [`localhost:${port()}`, `127.0.0.1:${port()}`, `[::1]:${port()}`, `LocalHost:${port()}`]) {
        assert.equal((await get([h])).status, 200, h);
      }
    });

    test('any other Host gets a 403 with a one-line text body and nosniff', async () => {
      for (const h of [
        'attacker.example',
        `attacker.example:${port()}`,
        `localhost.attacker.example:${port()}`,
        `127.0.0.1.nip.io:${port()}`,
        `localhost.:${port()}`,
        'localhost',
        `localhost:${Number(port()) + 1}`,
        `localhost:0${port()}`,
        `[::2]:${port()}`,
        `0.0.0.0:${port()}`,
        `localhost:${port()}@attacker.example`,
        '',
      ]) {
        const res = await get([h]);
        assert.ok([400, 403, 421].includes(res.status), `${JSON.stringify(h)}: ${res.status}`);
        assert.equal(res.headers['x-content-type-options'], 'nosniff', h);
        assert.match(res.headers['content-type'], /^text\/plain/, h);
        assert.ok(res.body.length > 0 && !res.body.trim().includes('\n'), h);
        assert.doesNotMatch(res.body, LEAK);
      }
    });

    test('a missing Host, two Host headers, or an absolute-form target are refused', async () => {
      const none = await get([]);
      assert.equal(none.status, 400);
      assert.equal(none.headers['x-content-type-options'], 'nosniff');
      assert.equal((await get([`localhost:${port()}`, 'attacker.example'])).status, 400);
      assert.equal((await get([`localhost:${port()}`, `localhost:${port()}`])).status, 400);
      const absolute = await rawRequest(spec.server().origin, `http://attacker.example${spec.ok[0]}`, {
        headers: [['Host', `localhost:${port()}`]],
      });
      assert.equal(absolute.status, 400);
      assert.equal(absolute.headers['x-content-type-options'], 'nosniff');
    });
  });
}

describe('tenant: nosniff on every kind of answer', () => {
  test('embed page, API JSON, SCIM, errors, OPTIONS', async () => {
    for (const [p, method] of [
      ['/embed/dashboard/sales-overview?session=demo-acme'],
      ['/embed/app'],
      ['/embed/api/bootstrap?surface=chat'],
      ['/embed/api/nothing'],
      ['/api/v1/deployments/1/notifications/1/recipients'],
      ['/api/scim/v2/Users'],
      ['/api/nothing'],
      ['/nothing'],
      ['/api/scim/v2/Users', 'OPTIONS'],
      ['/embed/app', 'POST'],
    ]) {
      const res = await rawRequest(tenant.origin, p, { method });
      assert.equal(res.headers['x-content-type-options'], 'nosniff', `${method ?? 'GET'} ${p}`);
    }
  });
});

describe('tenant: its root page, an index of what it serves', () => {
  // The page's text as a reader sees it: the references HTML needs, decoded.
  const decode = (html) =>
    html.replace(/&#(\d+);|&(lt|gt|amp|quot);/g, (_, n, name) =>
      n ? String.fromCharCode(Number(n)) : { lt: '<', gt: '>', amp: '&', quot: '"' }[name],
    );
  const blocks = (html) => [...html.matchAll(/<pre><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => decode(m[1]));
  const count = (html, re) => html.match(re)?.length ?? 0;

  test('GET / is an HTML page with the security headers of the embed pages, one h1 and one main, and no script', async () => {
    const res = await fetch(`${tenant.origin}/`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
    const embedPage = await fetch(`${tenant.origin}/embed/app`);
    await embedPage.arrayBuffer();
    for (const name of ['content-security-policy', 'referrer-policy', 'cache-control', 'x-content-type-options']) {
      assert.ok(embedPage.headers.get(name), name);
      assert.equal(res.headers.get(name), embedPage.headers.get(name), name);
    }
    assert.match(res.headers.get('content-security-policy'), /script-src 'self'; style-src 'self';/);
    const html = await res.text();
    assert.match(html, /^<!doctype html>\n<html lang="en">/);
    assert.equal(count(html, /<h1>/g), 1);
    assert.equal(count(html, /<main>/g), 1);
    assert.match(html, /<title>[^<]+<\/title>/);
    // Nothing the CSP would block: no script, no inline style.
    assert.doesNotMatch(html, /<script|<style|<[^>]*\sstyle=|<[^>]*\son[a-z]+=/i);
    const sheet = /<link rel="stylesheet" href="([^"]+)">/.exec(html)?.[1];
    assert.ok(sheet?.startsWith('/'), 'a stylesheet of its own origin');
    const css = await fetch(`${tenant.origin}${sheet}`);
    assert.equal(css.status, 200);
    assert.match(css.headers.get('content-type'), /^text\/css/);
    assert.match(await css.text(), /@media \(prefers-color-scheme: dark\)/);
    // Still a 404 beside it.
    assert.equal((await rawRequest(tenant.origin, '/index.html')).status, 404);
  });

  test('it links every surface, and each link, the example tag, the minted session and the base URL work as shown', async () => {
    const html = await (await fetch(`${tenant.origin}/`)).text();
    const links = [...html.matchAll(/<a href="([^"]+)">/g)].map((m) => decode(m[1]));
    const expected = [
      ...Object.keys(DASHBOARDS).map((id) => `${tenant.origin}/embed/dashboard/${id}?session=demo-acme`),
      `${tenant.origin}/embed/app?session=demo-acme`,
      `${tenant.origin}/embed/chat?session=demo-acme`,
    ];
    assert.deepEqual(links, expected);
    for (const link of links) {
      const page = await fetch(link);
      assert.equal(page.status, 200, link);
      assert.match(await page.text(), /\/embed\/static\/main\.js/, link);
    }
    for (const key of CREDENTIALS.keys()) assert.ok(html.includes(`<code>${key}</code>`), key);
    for (const session of ['demo-acme', 'demo-globex', 'demo-acme-ttl20', 'expired'])
      assert.ok(html.includes(`<code>${session}</code>`), session);

    const [tag, curl, base, ...rest] = blocks(html);
    assert.deepEqual(rest, []);
    assert.equal(
      tag,
      `<svc-embed src="${tenant.origin}/embed/dashboard/sales-overview?session=demo-acme" style="height: 640px"></svc-embed>`,
    );
    // The curl command, run as written: its headers, its body and its URL.
    const headers = Object.fromEntries(
      [...curl.matchAll(/-H '([^:]+): ([^']+)'/g)].map((m) => [m[1].toLowerCase(), m[2]]),
    );
    const body = /-d '([^']+)'/.exec(curl)?.[1];
    const url = /(http:\/\/\S+)\s*$/.exec(curl)?.[1];
    assert.equal(url, `${tenant.origin}/api/v1/embed/sessions`);
    const minted = await fetch(url, { method: 'POST', headers, body });
    assert.equal(minted.status, 201);
    const { session } = await minted.json();
    const boot = await fetch(`${tenant.origin}/embed/api/bootstrap?surface=app&session=${encodeURIComponent(session)}`);
    assert.equal(boot.status, 200);
    assert.deepEqual(await boot.json().then(({ mode, embedTenant }) => ({ mode, embedTenant })), {
      mode: 'signed',
      embedTenant: 'acme',
    });
    // SVC_BASE_URL as shown reaches the REST API.
    assert.equal(base, `SVC_BASE_URL=${tenant.origin}/api`);
    const recipients = await fetch(
      `${base.slice('SVC_BASE_URL='.length)}/v1/deployments/1/notifications/2/recipients`,
      {
        headers: { authorization: 'Bearer demo-admin-key' },
      },
    );
    assert.equal(recipients.status, 200);
  });

  test('its URLs name the host the browser used; HEAD answers without a body', async () => {
    const port = new URL(tenant.origin).port;
    const res = await rawRequest(tenant.origin, '/', { headers: [['Host', `localhost:${port}`]] });
    assert.equal(res.status, 200);
    assert.ok(res.body.includes(`href="http://localhost:${port}/embed/app?session=demo-acme"`), res.body);
    assert.ok(!res.body.includes(`127.0.0.1:${port}`));
    const head = await rawRequest(tenant.origin, '/', { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.body, '');
  });
});

describe('stderr under attack', () => {
  test('hostile requests to both servers write no stack trace, and at most one line each', async () => {
    const script = `
      const { startTenant } = await import(${JSON.stringify(import.meta.resolve('@svc-embed/tenant'))});
      const { startHost } = await import(${JSON.stringify(new URL('../../demo/host-server.mjs', import.meta.url).href)});
      const tenant = await startTenant({ port: 0 });
      const host = await startHost({ port: 0, tenantOrigin: tenant.origin });
      console.log(JSON.stringify([tenant.origin, host.origin]));
      process.stdin.on('end', async () => { await host.close(); await tenant.close(); });
      process.stdin.resume();
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    try {
      const [line] = await once(child.stdout, 'data');
      const [tenantOrigin, hostOrigin] = JSON.parse(line.toString());
      let sent = 0;
      for (const [origin, prefix] of [
        [tenantOrigin, '/embed/static/'],
        [tenantOrigin, '/embed/protocol/'],
        [hostOrigin, '/dist/'],
        [hostOrigin, '/cdn/'],
      ]) {
        for (const p of [
          ...traversals(prefix, 'package.json'),
          `${prefix}%E0%A4%A`,
          `${prefix}%00`,
          `${prefix}a%00.js`,
        ]) {
          await rawRequest(origin, p);
          sent++;
        }
      }
      await rawRequest(tenantOrigin, '/embed/static/main.js', { headers: [['Host', 'attacker.example']] });
      await rawRequest(tenantOrigin, '/api/v1/deployments/%ZZ/notifications/1/recipients');
      child.stdin.end();
      await once(child, 'exit');
      assert.doesNotMatch(stderr, /^\s+at /m, 'no stack frames');
      assert.ok(stderr.split('\n').filter(Boolean).length <= sent, stderr.slice(0, 500));
    } finally {
      child.kill();
    }
  });
});

describe('serveDir on a directory of its own: dotfiles, symbolic links, extensions', () => {
  let base;
  let served;
  before(async () => {
    base = await mkdtemp(join(tmpdir(), 'svc-serve-dir-'));
    const root = join(base, 'root');
    const outside = join(base, 'outside');
    await mkdir(join(root, 'sub'), { recursive: true });
    await mkdir(join(root, '.hidden'));
    await mkdir(outside);
    await writeFile(join(root, 'index.js'), 'export const ok = 1;\n');
    await writeFile(join(root, 'sub', 'a.js'), 'export const a = 1;\n');
    await writeFile(join(root, 'notes.txt'), 'not a script\n');
    await writeFile(join(root, '.secret.js'), 'export const CREDENTIALS = 1;\n');
    await writeFile(join(root, '.hidden', 'x.js'), 'export const CREDENTIALS = 2;\n');
    await writeFile(join(outside, 'secret.js'), 'export const CREDENTIALS = 3;\n');
    await symlink(join(outside, 'secret.js'), join(root, 'link.js'));
    await symlink(outside, join(root, 'linkdir'));
    await symlink(join(root, 'sub', 'a.js'), join(root, 'inner.js'));
    await symlink(join(root, 'loop.js'), join(root, 'loop.js'));
    const app = createApp('test');
    app.use(mount('/files', serveDir(root, { extensions: ['.js'] })));
    served = await listen(app, { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await served?.close();
    await rm(base, { recursive: true, force: true });
  });

  test('files under the root with an allowed extension, and links that stay inside it', async () => {
    for (const p of ['/files/index.js', '/files/sub/a.js', '/files/inner.js', '/files/sub%2fa.js']) {
      const res = await rawRequest(served.origin, p);
      assert.equal(res.status, 200, p);
      assert.match(res.body, /export const/);
    }
  });

  test('dotfiles, dot directories, links out of the root, loops, directories and other extensions are 404', async () => {
    for (const p of [
      '/files/.secret.js',
      '/files/%2esecret.js',
      '/files/.hidden/x.js',
      '/files/%2ehidden/x.js',
      '/files/link.js',
      '/files/linkdir/secret.js',
      '/files/loop.js',
      '/files/sub',
      '/files/sub/',
      '/files/',
      '/files',
      '/files/notes.txt',
      '/files/index.js/',
      '/files/index.js%00',
      '/files/index.js%2f',
      '/files//index.js',
      '/files/sub/../index.js',
    ]) {
      const res = await rawRequest(served.origin, p);
      assert.ok([400, 404].includes(res.status), `${p}: ${res.status}`);
      assert.doesNotMatch(res.body, /CREDENTIALS/, p);
    }
  });
});

describe('the error boundary', () => {
  let served;
  const logged = [];
  before(async () => {
    mock.method(console, 'error', (...args) => logged.push(args.join(' ')));
    const app = createApp('test');
    app.use(async (ctx) => {
      if (ctx.path === '/boom') throw new Error('boom\nsecond line\u001b[31m\u202e');
      if (ctx.path === '/teapot') throw httpError(418, 'No coffee here.');
      ctx.body = 'ok';
    });
    served = await listen(app, { port: 0, host: '127.0.0.1' });
  });
  after(async () => {
    await served?.close();
    mock.restoreAll();
  });

  test('a failure of the server is a bare 500 and one neutralised log line', async () => {
    const res = await rawRequest(served.origin, '/boom');
    assert.equal(res.status, 500);
    assert.equal(res.body, 'Internal Server Error\n');
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(logged.length, 1);
    // eslint-disable-next-line no-control-regex -- ESC is one of the characters a log line must not hold
    assert.doesNotMatch(logged[0], /[\n\r\u001b\u202e]/);
    assert.match(logged[0], /^\[test\] 500 GET \/boom: boom\?second line\?\[31m\?$/);
  });

  test('a refusal (4xx) is answered with its own message and logs nothing', async () => {
    const before = logged.length;
    const res = await rawRequest(served.origin, '/teapot');
    assert.equal(res.status, 418);
    assert.equal(res.body, 'No coffee here.\n');
    assert.equal(logged.length, before);
  });
});
