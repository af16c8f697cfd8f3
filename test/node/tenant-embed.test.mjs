// The embed side of the simulated tenant over HTTP: surface pages, their framing policy, and the
// session, query and ask endpoints the surfaces call.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTenant } from '@svc-embed/tenant';
import { filterParam } from '@svc-embed/protocol';
import { filterRows } from '../../packages/tenant/dist/datasets.js';
import { createSessions, parseSession } from '../../packages/tenant/dist/sessions.js';

const HOST = 'http://localhost:45678';
let tenant;
before(async () => {
  tenant = await startTenant({ port: 0, allowOrigins: [HOST], latency: false });
});
after(() => tenant?.close());

const get = async (p) => {
  const res = await fetch(tenant.origin + p);
  const type = res.headers.get('content-type') ?? '';
  return {
    status: res.status,
    headers: res.headers,
    body: type.includes('json') ? await res.json() : await res.text(),
  };
};

describe('surface pages', () => {
  for (const p of [
    '/embed/dashboard/sales-overview?session=demo-acme',
    '/embed/app',
    '/embed/chat?session=demo-globex',
  ]) {
    test(`${p} is the embed shell, frameable only by the host origins`, async () => {
      const res = await get(p);
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type'), /text\/html/);
      const csp = res.headers.get('content-security-policy');
      assert.match(csp, new RegExp(`frame-ancestors ${HOST}(;|$)`));
      assert.match(csp, /script-src 'self'/);
      assert.ok(res.body.includes(`<meta name="svc-allow-origins" content="${HOST}">`));
    });
  }
  test('unknown surfaces and odd public ids are 404', async () => {
    assert.equal((await get('/embed/nothing')).status, 404);
    assert.equal((await get('/embed/dashboard/a%2Fb')).status, 404);
  });
  test("the page is served for exactly the public ids the element accepts (the protocol's one rule)", async () => {
    // The element accepts these (1-256 of A-Z a-z 0-9 - _ . ~); the tenant's own copy of the rule once refused the
    // dots, tildes and ids over 64 characters.
    for (const id of ['v1.2', 'a_b~c', 'x'.repeat(256), '...'])
      assert.equal((await get(`/embed/dashboard/${id}`)).status, 200, id);
    for (const id of ['x'.repeat(257), '%2e%2e', 'a%20b', '%C3%BC'])
      assert.equal((await get(`/embed/dashboard/${id}`)).status, 404, id);
  });
  test('static assets and the protocol module are served', async () => {
    assert.equal((await get('/embed/static/main.js')).status, 200);
    assert.equal((await get('/embed/protocol/index.js')).status, 200);
    // The allowed-origin rules the bridge uses are the protocol package's (they were a static file of the tenant's).
    assert.equal((await get('/embed/protocol/origins.js')).status, 200);
  });
});

describe('session rules (bootstrap)', () => {
  test('no session: private, no embed tenant', async () => {
    const res = await get('/embed/api/bootstrap?surface=dashboard&publicId=sales-overview');
    assert.equal(res.status, 200);
    assert.equal(res.body.mode, 'private');
    assert.equal(res.body.embedTenant, null);
    assert.equal(res.body.deploymentId, 1);
  });
  test('demo-<tenant>: signed for that tenant; the dashboard sets the deployment', async () => {
    const res = await get('/embed/api/bootstrap?surface=dashboard&publicId=support-ops&session=demo-globex-7');
    assert.equal(res.body.mode, 'signed');
    assert.equal(res.body.embedTenant, 'globex');
    assert.equal(res.body.deploymentId, 2);
  });
  test('expired and invalid sessions are 401 with an error name', async () => {
    const expired = await get('/embed/api/bootstrap?surface=chat&session=expired');
    assert.equal(expired.status, 401);
    assert.equal(expired.body.error.name, 'SessionExpiredError');
    for (const s of ['nope', '', 'demo-', 'demo-<x>']) {
      const res = await get(`/embed/api/bootstrap?surface=chat&session=${encodeURIComponent(s)}`);
      assert.equal(res.status, 401, s);
      assert.equal(res.body.error.name, 'InvalidSessionError');
    }
  });
  test('a repeated session is an invalid session on every endpoint, never "no session"', async () => {
    for (const sessions of [
      'session=demo-acme&session=demo-globex',
      'session=demo-acme&session=demo-acme',
      'session=x&session=y',
      'session=&session=demo-acme',
    ]) {
      for (const p of [
        '/embed/api/bootstrap?surface=dashboard&publicId=sales-overview',
        '/embed/api/bootstrap?surface=chat',
        '/embed/api/query?publicId=sales-overview&widget=kpi-orders',
        '/embed/api/ask?q=revenue',
      ]) {
        const res = await get(`${p}&${sessions}`);
        assert.equal(res.status, 401, `${p} ${sessions}`);
        assert.equal(res.body.error.name, 'InvalidSessionError');
      }
    }
  });
  test('any other repeated parameter of the embed API is a 400 (only the filter f repeats)', async () => {
    for (const p of [
      '/embed/api/bootstrap?surface=chat&surface=chat',
      '/embed/api/bootstrap?surface=dashboard&publicId=sales-overview&publicId=support-ops',
      '/embed/api/query?session=demo-acme&publicId=sales-overview&widget=kpi-orders&widget=kpi-orders',
      '/embed/api/query?session=demo-acme&publicId=sales-overview&publicId=sales-overview&widget=kpi-orders',
      '/embed/api/query?session=demo-acme&publicId=sales-overview&widget=kpi-orders&fail=0&fail=1',
      '/embed/api/query?session=demo-acme&publicId=sales-overview&widget=kpi-orders&all=1&all=1',
      '/embed/api/ask?session=demo-acme&q=revenue&q=orders',
    ]) {
      const res = await get(p);
      assert.equal(res.status, 400, p);
      assert.equal(res.body.error.name, 'BadRequest', p);
    }
  });
  test('an unknown dashboard is a 404', async () => {
    const res = await get('/embed/api/bootstrap?surface=dashboard&publicId=missing&session=demo-acme');
    assert.equal(res.status, 404);
    assert.equal(res.body.error.name, 'DashboardNotFoundError');
  });
});

describe('queries', () => {
  const q = (extra) => get(`/embed/api/query?publicId=sales-overview&session=demo-acme&${extra}`);
  test('a KPI honours filters built with filterParam, including "any of"', async () => {
    const region = await q(`widget=kpi-orders&f=${encodeURIComponent(filterParam('orders', 'region', 'EMEA'))}`);
    assert.equal(
      region.body.value,
      filterRows('orders', [{ view: 'orders', dimension: 'region', value: 'EMEA' }]).length,
    );
    const two = await q(`widget=kpi-orders&f=${encodeURIComponent(filterParam('orders', 'region', ['EMEA', 'APAC']))}`);
    assert.equal(
      two.body.value,
      filterRows('orders', [{ view: 'orders', dimension: 'region', value: ['EMEA', 'APAC'] }]).length,
    );
    assert.ok(two.body.value > region.body.value);
  });
  test('a malformed filter is a 400, a failing widget a 502', async () => {
    assert.equal((await q('widget=kpi-orders&f=region%3DEMEA')).status, 400);
    const failed = await q('widget=revenue-by-region&fail=1');
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error.name, 'QueryError');
  });
  test('an expired session cannot query', async () => {
    assert.equal((await get('/embed/api/query?publicId=sales-overview&widget=kpi-orders&session=expired')).status, 401);
  });
  test('the agent answers what it can map, and refuses the rest', async () => {
    const ok = await get('/embed/api/ask?session=demo-acme&q=revenue%20by%20region');
    assert.equal(ok.status, 200);
    assert.equal(ok.body.table.rows.length, 4);
    const no = await get('/embed/api/ask?session=demo-acme&q=weather%20in%20Paris');
    assert.equal(no.status, 422);
  });
});

describe('sessions that expire: demo-<tenant>-ttl<N>', () => {
  test('the rules, with a clock of our own: valid for N seconds from first sight, then expired for good', () => {
    let now = 1_000_000;
    const sessions = createSessions({ now: () => now });
    const first = sessions.check(['demo-acme-ttl2-a']);
    assert.deepEqual([first.ok, first.mode, first.embedTenant, first.expiresInMs], [true, 'signed', 'acme', 2000]);
    now += 1999;
    assert.equal(sessions.check(['demo-acme-ttl2-a']).expiresInMs, 1);
    assert.equal(sessions.check(['demo-acme-ttl2-b']).expiresInMs, 2000, 'each session id has its own clock');
    now += 1;
    assert.equal(sessions.check(['demo-acme-ttl2-a']).name, 'SessionExpiredError');
    now += 3_600_000;
    assert.equal(sessions.check(['demo-acme-ttl2-a']).name, 'SessionExpiredError', 'it never comes back');
    assert.equal(sessions.check(['demo-acme']).expiresInMs, undefined, 'plain sessions do not expire');
  });

  test('an expired ttl session stays expired after 10,000 other ttl sessions (the clocks are never evicted)', () => {
    let now = 1_000_000;
    const sessions = createSessions({ now: () => now });
    assert.equal(sessions.check(['demo-acme-ttl1-old']).ok, true);
    now += 1000;
    assert.equal(sessions.check(['demo-acme-ttl1-old']).name, 'SessionExpiredError');
    for (let i = 0; i < 10_000; i++) sessions.check([`demo-acme-ttl60-flood${i}`]);
    assert.equal(sessions.check(['demo-acme-ttl1-old']).name, 'SessionExpiredError', 'not revived by a flood');
    now += 3_600_000;
    assert.equal(sessions.check(['demo-acme-ttl1-old']).name, 'SessionExpiredError');
  });

  test('memory stays bounded: past maxTracked clocks, a new ttl session is refused, the known ones keep theirs', () => {
    let now = 0;
    const sessions = createSessions({ now: () => now, maxTracked: 3 });
    for (const id of ['a', 'b', 'c']) assert.equal(sessions.check([`demo-acme-ttl10-${id}`]).ok, true, id);
    const refused = sessions.check(['demo-acme-ttl10-d']);
    assert.equal(refused.name, 'InvalidSessionError');
    assert.match(
      refused.message,
      /keeps the clocks of 3 ttl sessions.*minted session \(POST \/api\/v1\/embed\/sessions\)/,
    );
    now += 5000;
    assert.equal(sessions.check(['demo-acme-ttl10-a']).expiresInMs, 5000, 'a known session keeps its clock');
    now += 5000;
    assert.equal(sessions.check(['demo-acme-ttl10-a']).name, 'SessionExpiredError');
    assert.equal(sessions.check(['demo-acme']).ok, true, 'sessions without a clock are not affected');
    assert.equal(sessions.check([sessions.mint('acme', 10).session]).ok, true, 'nor are minted ones');
  });

  test('what counts as a ttl session, and what is invalid', () => {
    assert.equal(parseSession(['demo-GLOBEX-ttl20']).embedTenant, 'globex');
    assert.equal(parseSession(['demo-acme-ttl86400-x_y-z']).ttlMs, 86_400_000);
    for (const s of [
      'demo-acme-ttl0',
      'demo-acme-ttl86401',
      'demo-acme-ttl',
      'demo-acme-ttlx',
      'demo-acme-ttl-5',
      'demo-acme-ttl1.5',
      'demo-acme-ttl20-',
    ]) {
      assert.equal(parseSession([s]).name, 'InvalidSessionError', s);
    }
    assert.equal(parseSession(['demo-acme-ttl20', 'demo-acme-ttl20']).name, 'InvalidSessionError');
  });

  test('over HTTP: the bootstrap says how long is left; once it is over, every endpoint refuses the session', async () => {
    const id = `demo-acme-ttl1-${Date.now().toString(36)}`;
    const boot = await get(`/embed/api/bootstrap?surface=dashboard&publicId=sales-overview&session=${id}`);
    assert.equal(boot.status, 200);
    assert.equal(boot.body.mode, 'signed');
    assert.ok(boot.body.expiresInMs > 0 && boot.body.expiresInMs <= 1000, String(boot.body.expiresInMs));
    let res;
    const deadline = Date.now() + 30_000;
    do {
      await new Promise((r) => setTimeout(r, 100));
      res = await get(`/embed/api/query?publicId=sales-overview&widget=kpi-orders&session=${id}`);
    } while (res.status === 200 && Date.now() < deadline);
    assert.equal(res.status, 401);
    assert.equal(res.body.error.name, 'SessionExpiredError');
    for (const p of ['/embed/api/bootstrap?surface=dashboard&publicId=sales-overview', '/embed/api/ask?q=revenue']) {
      const again = await get(`${p}&session=${id}`);
      assert.equal(again.status, 401, p);
      assert.equal(again.body.error.name, 'SessionExpiredError');
    }
    const plain = await get('/embed/api/bootstrap?surface=chat&session=demo-acme');
    assert.equal(plain.body.expiresInMs, undefined);
  });
});
describe('minted sessions: demo-<tenant>-exp<T>-x<X>-<nonce>-<mac>', () => {
  test('valid until the end they carry, then expired for good, whatever else the tenant sees', () => {
    let now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now });
    const { session, expiresAt } = sessions.mint('Globex', 20);
    assert.match(session, /^demo-globex-exp[0-9]{13}-x[0-9]{13}-[0-9a-f]{12}-[A-Za-z0-9_-]{32}$/);
    assert.notEqual(sessions.mint('globex', 20).session, session, 'two mints, two sessions');
    assert.equal(expiresAt, 1_700_000_020_000);
    const ok = sessions.check([session]);
    assert.deepEqual([ok.ok, ok.mode, ok.embedTenant, ok.expiresInMs], [true, 'signed', 'globex', 20_000]);
    now += 20_000;
    assert.equal(sessions.check([session]).name, 'SessionExpiredError');
    for (let i = 0; i < 10_000; i++) sessions.check([sessions.mint('acme', 60).session]);
    for (let i = 0; i < 100; i++) sessions.check([`demo-acme-ttl60-flood${i}`]);
    assert.equal(sessions.check([session]).name, 'SessionExpiredError', 'nothing brings it back');
  });

  test("a forged, altered or other tenant's session is invalid, never a plain one that does not expire", () => {
    const sessions = createSessions();
    const { session } = sessions.mint('acme', 60);
    const [, exp, by, nonce, mac] = /-exp([0-9]{13})-x([0-9]{13})-([0-9a-f]{12})-(.+)$/.exec(session);
    const later = String(Number(exp) + 86_400_000);
    for (const forged of [
      session.replace(`exp${exp}`, `exp${later}`),
      session.replace(`-x${by}-`, `-x${String(Number(by) + 60_000)}-`),
      session.replace(`-x${by}-`, '-'),
      session.replace('demo-acme-', 'demo-globex-'),
      session.slice(0, -1) + (session.endsWith('A') ? 'B' : 'A'),
      `demo-acme-exp${exp}-x${by}-${nonce}-${'A'.repeat(32)}`,
      session.replace(`-${nonce}-`, `-${nonce.slice(1)}0-`),
      createSessions().mint('acme', 60).session,
      `demo-acme-exp${exp}`,
      `demo-acme-exp${exp}-${mac}`,
      `demo-acme-exp${exp}-x${by}-${nonce}-${mac}-x`,
    ]) {
      assert.equal(sessions.check([forged]).name, 'InvalidSessionError', forged);
      assert.equal(parseSession([forged]).name, 'InvalidSessionError', forged);
    }
  });

  test('POST /api/v1/embed/sessions: an admin key mints one; the embed accepts it and says how long is left', async () => {
    const mint = (body, headers = {}) =>
      fetch(`${tenant.origin}/api/v1/embed/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const res = await mint({ embedTenant: 'acme', ttlSeconds: 30 });
    assert.equal(res.status, 201);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const minted = await res.json();
    assert.match(minted.session, /^demo-acme-exp[0-9]{13}-/);
    assert.equal(minted.embedTenant, 'acme');
    const boot = await get(`/embed/api/bootstrap?surface=chat&session=${minted.session}`);
    assert.equal(boot.status, 200);
    assert.ok(boot.body.expiresInMs > 20_000 && boot.body.expiresInMs <= 30_000, String(boot.body.expiresInMs));
    assert.ok(Date.parse(minted.expiresAt) - Date.now() <= 30_000, minted.expiresAt);
    for (const [body, headers, status] of [
      [{ embedTenant: 'acme', ttlSeconds: 30 }, { authorization: '' }, 401],
      [{ embedTenant: 'acme', ttlSeconds: 30 }, { authorization: 'Bearer demo-viewer-key' }, 403],
      [{ embedTenant: 'acme', ttlSeconds: 30 }, { authorization: 'Bearer demo-scim-token' }, 403],
      [{ embedTenant: 'acme', ttlSeconds: 30 }, { 'content-type': 'text/plain' }, 415],
      ['{"embedTenant":', {}, 400],
      [[1], {}, 400],
      [{ embedTenant: 'a-b', ttlSeconds: 30 }, {}, 400],
      [{ embedTenant: 'acme', ttlSeconds: 0 }, {}, 400],
      [{ embedTenant: 'acme', ttlSeconds: 86_401 }, {}, 400],
      [{ embedTenant: 'acme', ttlSeconds: 1.5 }, {}, 400],
      [{ embedTenant: 'acme', ttlSeconds: 30, admin: true }, {}, 400],
      [{ embedTenant: 'acme', ttlSeconds: 30, pad: 'x'.repeat(2000) }, {}, 413],
    ]) {
      const r = await mint(body, headers);
      assert.equal(r.status, status, JSON.stringify([body, headers]).slice(0, 120));
      assert.equal(typeof (await r.json()).error.message, 'string');
    }
    const other = await fetch(`${tenant.origin}/api/v1/embed/sessions`, {
      headers: { authorization: 'Bearer demo-admin-key' },
    });
    assert.equal(other.status, 405);
    assert.equal(other.headers.get('allow'), 'POST');
  });
});
