// The demo host server: its pages, GET /session, which mints single-use sessions through the tenant's session API, the
// way a customer's backend would, for the demo's session providers, and GET /ssr, a page rendered with one in its frame.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTenant } from '@svc-embed/tenant';
import { EARLY_SCRIPT, EARLY_SCRIPT_HASH, STYLE_HASH } from '../../dist/ssr.js';
import { startHost } from '../../demo/host-server.mjs';

let tenant;
let host;
before(async () => {
  tenant = await startTenant({ latency: false });
  host = await startHost({ port: 0, tenantOrigin: tenant.origin });
});
after(async () => {
  await host?.close();
  await tenant?.close();
});

const json = async (url, init) => {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, body: await res.json() };
};

describe('demo host pages', () => {
  test('the playground, the compare page, the four dashboards page, the routes page, the history page, the server-rendered page and the tenant origin', async () => {
    for (const p of [
      '/',
      '/index.html',
      '/compare',
      '/compare.html',
      '/sessions',
      '/sessions.html',
      '/routes',
      '/routes.html',
      '/history',
      '/history.html',
      '/ssr',
      '/ssr.html',
    ]) {
      const res = await fetch(host.origin + p);
      assert.equal(res.status, 200, p);
      assert.match(res.headers.get('content-type'), /text\/html/);
      // The routes page makes its elements from script (prerendered, or per route): it loads the element's bundle.
      assert.match(await res.text(), p.startsWith('/routes') ? /src="\/cdn\/svc-embed\.min\.js"/ : /<svc-embed/);
    }
    assert.deepEqual((await json(`${host.origin}/config.json`)).body, { tenantOrigin: tenant.origin });
  });
  test('every page, static file and answer may be framed by the host alone, and says nosniff', async () => {
    for (const p of [
      '/',
      '/compare',
      '/history',
      '/ssr',
      '/demo/host/index.html',
      '/demo/host/history.js',
      '/demo/host/ssr.js',
      '/demo/host/playground.js',
      '/config.json',
      '/session',
      '/cdn/svc-embed.min.js',
      '/cdn/svc-embed-history.min.js',
    ]) {
      const res = await fetch(host.origin + p);
      assert.equal(res.status, 200, p);
      // The server-rendered page has a policy of its own, which begins with the same rule (see below).
      const policy = res.headers.get('content-security-policy');
      if (p === '/ssr') assert.ok(policy.startsWith("frame-ancestors 'self'; "), policy);
      else assert.equal(policy, "frame-ancestors 'self'", p);
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff', p);
      await res.arrayBuffer();
    }
    // Refusals and errors too: a 404, a traversal, a method not allowed.
    for (const [p, method, status] of [
      ['/nope', 'GET', 404],
      ['/cdn/..%2fpackage.json', 'GET', 404],
      ['/session', 'POST', 405],
    ]) {
      const res = await fetch(host.origin + p, { method });
      assert.equal(res.status, status, p);
      assert.equal(res.headers.get('content-security-policy'), "frame-ancestors 'self'", p);
      await res.arrayBuffer();
    }
  });
  test('the host binds 127.0.0.1 for "localhost", so the demo opens under both names', async () => {
    assert.match(host.origin, /^http:\/\/localhost:[0-9]+$/);
    const alias = host.origin.replace('localhost', '127.0.0.1');
    assert.equal((await fetch(`${alias}/`)).status, 200);
  });
});

describe('GET /session', () => {
  test('with a ttl, a fresh session minted by the tenant (it carries its end), never cached', async () => {
    const a = await json(`${host.origin}/session?tenant=acme&ttl=20`);
    const b = await json(`${host.origin}/session?tenant=acme&ttl=20`);
    assert.equal(a.status, 200);
    assert.equal(a.headers.get('cache-control'), 'no-store');
    assert.match(a.body.session, /^demo-acme-exp[0-9]{13}-x[0-9]{13}-[0-9a-f]{12}-[A-Za-z0-9_-]{32}$/);
    assert.ok(Date.parse(a.body.expiresAt) - Date.now() <= 20_000, a.body.expiresAt);
    assert.equal(a.body.ttlSeconds, 20);
    assert.notEqual(a.body.session, b.body.session);
  });
  test('the tenant accepts it: signed for that tenant, with the time left', async () => {
    const { body } = await json(`${host.origin}/session?tenant=Globex&ttl=20`);
    assert.match(body.session, /^demo-globex-exp/);
    const boot = await json(
      `${tenant.origin}/embed/api/bootstrap?surface=chat&session=${encodeURIComponent(body.session)}`,
    );
    assert.equal(boot.status, 200);
    assert.equal(boot.body.embedTenant, 'globex');
    assert.ok(boot.body.expiresInMs > 0 && boot.body.expiresInMs <= 20000);
  });
  test('single-use: the first load exchanges it, a second load is refused as used', async () => {
    const { body } = await json(`${host.origin}/session?tenant=acme&ttl=20`);
    const url = `${tenant.origin}/embed/api/bootstrap?surface=chat&session=${encodeURIComponent(body.session)}`;
    assert.equal((await json(url)).status, 200);
    const again = await json(url);
    assert.equal(again.status, 401);
    assert.equal(again.body.error.name, 'SessionUsedError');
  });
  test('without ttl: a minted session too, that lasts a day; without tenant: acme', async () => {
    const { body } = await json(`${host.origin}/session`);
    assert.match(body.session, /^demo-acme-exp[0-9]{13}-/);
    assert.equal(body.ttlSeconds, undefined);
    const left = Date.parse(body.expiresAt) - Date.now();
    assert.ok(left > 86_000_000 && left <= 86_400_000, body.expiresAt);
    const boot = await json(
      `${tenant.origin}/embed/api/bootstrap?surface=chat&session=${encodeURIComponent(body.session)}`,
    );
    assert.equal(boot.body.mode, 'signed');
    assert.ok(boot.body.expiresInMs > 86_000_000, String(boot.body.expiresInMs));
  });
  test('bad input is a 400 with a message; other methods a 405', async () => {
    for (const q of [
      'tenant=',
      'tenant=a%20b',
      'tenant=acme-x',
      `tenant=${'a'.repeat(33)}`,
      'ttl=0',
      'ttl=86401',
      'ttl=abc',
      'ttl=1.5',
      'ttl=-5',
      'ttl=',
      'tenant=acme&tenant=globex',
      'ttl=1&ttl=2',
    ]) {
      const res = await json(`${host.origin}/session?${q}`);
      assert.equal(res.status, 400, q);
      assert.equal(typeof res.body.error.message, 'string');
    }
    const post = await fetch(`${host.origin}/session`, { method: 'POST' });
    assert.equal(post.status, 405);
  });
});

describe('GET /ssr', () => {
  /** The session in the page's frame, and the page's element and frame tags. */
  const page = async () => {
    const res = await fetch(`${host.origin}/ssr`);
    const html = await res.text();
    const frame = /<template shadowrootmode="open"><iframe [^>]*src="([^"]+)"[^>]*><\/iframe>/.exec(html);
    return { res, html, src: frame?.[1].replaceAll('&#38;', '&') };
  };

  test('the frame in the HTML, with a session minted for this request, never cached, under a strict policy', async () => {
    const a = await page();
    const b = await page();
    assert.equal(a.res.status, 200);
    assert.equal(a.res.headers.get('cache-control'), 'no-store');
    assert.ok(a.src, a.html);
    const url = new URL(a.src);
    assert.equal(url.origin + url.pathname, `${tenant.origin}/embed/dashboard/sales-overview`);
    const session = url.searchParams.get('session');
    assert.match(session, /^demo-acme-exp[0-9]{13}-/);
    assert.notEqual(new URL(b.src).searchParams.get('session'), session, 'a new session for each request');
    // The early-message script before the element, and the element with its id and title.
    assert.ok(a.html.includes(`<script>${EARLY_SCRIPT}</script><svc-embed id="sales" src="`), a.html);
    assert.match(a.html, /<svc-embed id="sales" src="[^"]+" title="Sales overview" aria-busy="true">/);
    assert.equal(a.html.match(/<iframe /g).length, 1);
    assert.equal(
      a.res.headers.get('content-security-policy'),
      `frame-ancestors 'self'; default-src 'self'; script-src 'self' ${EARLY_SCRIPT_HASH}; style-src 'self' ${STYLE_HASH}; frame-src ${tenant.origin}`,
    );
    // The session the page holds has not been loaded: the frame is the first to present it.
    const boot = await json(
      `${tenant.origin}/embed/api/bootstrap?surface=dashboard&publicId=sales-overview&session=${encodeURIComponent(session)}`,
    );
    assert.equal(boot.status, 200);
  });

  test('a tenant that does not answer: a 502 page that says so, with no element', async () => {
    const lone = await startHost({ port: 0, tenantOrigin: 'http://127.0.0.1:9' });
    try {
      const res = await fetch(`${lone.origin}/ssr`);
      assert.equal(res.status, 502);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      const html = await res.text();
      assert.match(html, /No dashboard: the tenant did not answer the session request\./);
      assert.doesNotMatch(html, /<svc-embed/);
    } finally {
      await lone.close();
    }
  });
});
