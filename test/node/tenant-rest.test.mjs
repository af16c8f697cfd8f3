// Contract tests of the simulated tenant's getRecipients endpoint (docs/api.md, "Recipients", "Authentication" and
// "Errors"), over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTenant } from '@svc-embed/tenant';
import { recipientsOf } from '../../packages/tenant/dist/seed.js';
import { rawRequest } from '../support/raw-http.mjs';

let tenant;
before(async () => {
  tenant = await startTenant({ port: 0 });
});
after(() => tenant?.close());

const path = (d, n, query = '') => `/api/v1/deployments/${d}/notifications/${n}/recipients${query}`;

async function get(p, key = 'demo-admin-key', headers = {}) {
  const res = await fetch(tenant.origin + p, {
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers },
  });
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, headers: res.headers, body };
}

const FIELDS = [
  'type',
  'userId',
  'email',
  'username',
  'embedUserId',
  'embedTenantName',
  'externalId',
  'channelId',
  'channelName',
];

function assertError(res, status) {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type'), /application\/json/);
  assert.equal(res.body.error.status, status);
  assert.equal(typeof res.body.error.code, 'string');
  assert.equal(typeof res.body.error.message, 'string');
  assert.ok(res.headers.get('x-request-id'));
}

describe('GET recipients: success', () => {
  test('deployment 1 / notification 1: default page of 100, newest first, with pageInfo', async () => {
    const res = await get(path(1, 1));
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /application\/json/);
    assert.ok(res.headers.get('x-request-id'));
    assert.equal(res.body.items.length, 100);
    assert.deepEqual(Object.keys(res.body.pageInfo).sort(), [
      'endCursor',
      'hasNextPage',
      'hasPreviousPage',
      'startCursor',
    ]);
    assert.equal(res.body.pageInfo.hasNextPage, true);
    assert.equal(res.body.pageInfo.hasPreviousPage, false);
    const seeded = recipientsOf(1, 1);
    assert.deepEqual(
      res.body.items,
      seeded.slice(0, 100).map((r) => r.item),
    );
    for (let i = 1; i < seeded.length; i++) assert.ok(seeded[i - 1].createdAt > seeded[i].createdAt);
  });

  test('walking the cursors returns all 250 recipients once, in order, with all three kinds', async () => {
    const all = [];
    const cursors = new Set();
    let after;
    let pages = 0;
    for (;;) {
      const res = await get(path(1, 1, `?first=40${after ? `&after=${encodeURIComponent(after)}` : ''}`));
      assert.equal(res.status, 200);
      pages++;
      assert.equal(res.body.pageInfo.hasPreviousPage, pages > 1);
      all.push(...res.body.items);
      if (!res.body.pageInfo.hasNextPage) break;
      after = res.body.pageInfo.endCursor;
      assert.ok(!cursors.has(after), 'cursor repeated');
      cursors.add(after);
    }
    assert.equal(pages, 7);
    assert.equal(all.length, 250);
    assert.deepEqual(
      all,
      recipientsOf(1, 1).map((r) => r.item),
    );
    const kinds = new Set(all.map((r) => r.type));
    assert.deepEqual([...kinds].sort(), ['EMBED_USER', 'SLACK', 'USER']);
  });

  test('each kind populates its own fields; all fields are present, the rest null', async () => {
    const { body } = await get(path(1, 1, '?first=200'));
    for (const r of body.items) {
      assert.deepEqual(Object.keys(r).sort(), [...FIELDS].sort());
      if (r.type === 'USER') {
        assert.ok(Number.isInteger(r.userId) && typeof r.email === 'string');
        assert.equal(r.embedUserId, null);
        assert.equal(r.channelId, null);
      } else if (r.type === 'EMBED_USER') {
        assert.ok(Number.isInteger(r.embedUserId));
        for (const f of ['embedTenantName', 'externalId', 'email']) assert.equal(typeof r[f], 'string');
        assert.equal(r.userId, null);
      } else {
        assert.equal(r.type, 'SLACK');
        assert.equal(typeof r.channelId, 'string');
        assert.equal(typeof r.channelName, 'string');
        assert.equal(r.email, null);
        assert.equal(r.userId, null);
      }
    }
  });

  test('first=1 and first=200 are accepted; startCursor/endCursor frame the page', async () => {
    const one = await get(path(1, 1, '?first=1'));
    assert.equal(one.body.items.length, 1);
    assert.equal(one.body.pageInfo.startCursor, one.body.pageInfo.endCursor);
    const max = await get(path(1, 1, '?first=200'));
    assert.equal(max.body.items.length, 200);
    const rest = await get(path(1, 1, `?first=200&after=${max.body.pageInfo.endCursor}`));
    assert.equal(rest.body.items.length, 50);
    assert.equal(rest.body.pageInfo.hasNextPage, false);
    assert.equal(rest.body.pageInfo.hasPreviousPage, true);
  });

  test('an empty notification returns no items and null cursors', async () => {
    const res = await get(path(1, 3));
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, {
      items: [],
      pageInfo: { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
  });

  test('deployment 2 has notifications of its own', async () => {
    const a = await get(path(2, 20));
    assert.equal(a.status, 200);
    assert.equal(a.body.items.length, 12);
    const b = await get(path(2, 21));
    assert.equal(b.body.items.length, 3);
    assert.notDeepEqual(a.body.items, (await get(path(1, 1, '?first=12'))).body.items);
  });

  test('the scoped key reads deployment 1', async () => {
    assert.equal((await get(path(1, 2), 'demo-scoped-key')).status, 200);
  });

  test('a safe incoming x-request-id is echoed, an unsafe one replaced', async () => {
    const ok = await get(path(1, 2), 'demo-admin-key', { 'x-request-id': 'trace-123' });
    assert.equal(ok.headers.get('x-request-id'), 'trace-123');
    const bad = await get(path(1, 2), 'demo-admin-key', { 'x-request-id': 'a b<c>' });
    assert.notEqual(bad.headers.get('x-request-id'), 'a b<c>');
  });
});

describe('GET recipients: 404', () => {
  test('a notification of another deployment', async () => {
    assertError(await get(path(2, 1)), 404);
    assertError(await get(path(1, 20)), 404);
  });
  test('an unknown notification or deployment', async () => {
    assertError(await get(path(1, 999)), 404);
    assertError(await get(path(77, 1)), 404);
  });
});

describe('GET recipients: 401', () => {
  test('missing credential, with a Bearer challenge', async () => {
    const res = await get(path(1, 1), null);
    assertError(res, 401);
    assert.match(res.headers.get('www-authenticate'), /^Bearer/);
  });
  for (const [name, header] of [
    ['empty bearer', 'Bearer '],
    ['no scheme', 'demo-admin-key'],
    ['wrong scheme', 'Basic demo-admin-key'],
    ['Api-Key scheme (SCIM only)', 'Api-Key demo-admin-key'],
    ['extra parts', 'Bearer demo-admin-key extra'],
    ['bad characters', 'Bearer demo"admin'],
  ]) {
    test(`malformed: ${name}`, async () => {
      const res = await fetch(tenant.origin + path(1, 1), { headers: { authorization: header } });
      const body = await res.json();
      assert.equal(res.status, 401);
      assert.equal(body.error.status, 401);
      assert.ok(!JSON.stringify(body).includes('demo-admin-key'), 'the credential is never echoed');
    });
  }
  test('unknown or expired key', async () => {
    const res = await get(path(1, 1), 'not-a-real-key');
    assertError(res, 401);
    assert.ok(!JSON.stringify(res.body).includes('not-a-real-key'));
  });
  test('a tab, or a space before the scheme-less token, is still malformed', async () => {
    for (const header of ['Bearer\tdemo-admin-key', 'Bearer,demo-admin-key', 'Bearer=demo-admin-key']) {
      const res = await rawRequest(tenant.origin, path(1, 2), {
        headers: [
          ['Host', new URL(tenant.origin).host],
          ['Authorization', header],
        ],
      });
      assert.equal(res.status, 401, JSON.stringify(header));
    }
  });
  test('the scheme is case-insensitive', async () => {
    const res = await fetch(tenant.origin + path(1, 2), { headers: { authorization: 'bearer demo-admin-key' } });
    assert.equal(res.status, 200);
  });
});

describe('GET recipients: the Authorization header (RFC 6750, RFC 9110)', () => {
  test('one or more spaces between the scheme and the token (1*SP)', async () => {
    for (const header of ['Bearer  demo-admin-key', 'Bearer   demo-admin-key', 'bearer     demo-admin-key']) {
      const res = await fetch(tenant.origin + path(1, 2), { headers: { authorization: header } });
      assert.equal(res.status, 200, JSON.stringify(header));
    }
  });
  test('two Authorization headers are a 400, whatever they hold', async () => {
    const hostHeader = ['Host', new URL(tenant.origin).host];
    for (const pair of [
      ['Bearer demo-viewer-key', 'Bearer demo-admin-key'],
      ['Bearer demo-admin-key', 'Bearer garbage'],
      ['Bearer demo-admin-key', 'Bearer demo-admin-key'],
      ['Bearer demo-admin-key', ''],
    ]) {
      const res = await rawRequest(tenant.origin, path(1, 2), {
        headers: [hostHeader, ...pair.map((v) => ['Authorization', v])],
      });
      assert.equal(res.status, 400, pair.join(' + '));
      const body = JSON.parse(res.body);
      assert.equal(body.error.status, 400);
      assert.equal(body.error.code, 'invalid_request');
      assert.ok(!res.body.includes('demo-admin-key') && !res.body.includes('demo-viewer-key'), 'never echoed');
    }
  });
});

describe('GET recipients: 403', () => {
  test('a key scoped to other deployments', async () => {
    assertError(await get(path(2, 20), 'demo-scoped-key'), 403);
  });
  test('a non-admin key', async () => {
    assertError(await get(path(1, 1), 'demo-viewer-key'), 403);
  });
  test('a SCIM token is not a REST admin credential', async () => {
    assertError(await get(path(1, 1), 'demo-scim-token'), 403);
  });
});

describe('GET recipients: 400 on bad input', () => {
  for (const [name, p] of [
    ['non-integer deploymentId', path('abc', 1)],
    ['decimal id', path(1, '1.5')],
    ['negative id', path(1, '-1')],
    ['zero id', path(0, 1)],
    ['huge id', path('99999999999999999999', 1)],
    ['first=0', path(1, 1, '?first=0')],
    ['first=201', path(1, 1, '?first=201')],
    ['first=abc', path(1, 1, '?first=abc')],
    ['first=1.5', path(1, 1, '?first=1.5')],
    ['first empty', path(1, 1, '?first=')],
    ['first repeated', path(1, 1, '?first=1&first=2')],
    ['garbage cursor', path(1, 1, '?after=%%%garbage')],
    ['cursor-like garbage', path(1, 1, '?after=bm90LWEtY3Vyc29y')],
    ['cursor of another notification', path(1, 2, '?after=' + Buffer.from('rc1:1:1-5').toString('base64url'))],
    ['cursor naming no recipient', path(1, 1, '?after=' + Buffer.from('rc1:1:1-999').toString('base64url'))],
  ]) {
    test(name, async () => assertError(await get(p), 400));
  }
});

describe('the rest of /api', () => {
  test('an unknown path is a JSON 404', async () => assertError(await get('/api/v1/nothing'), 404));
  test('a non-GET method is a 405 with Allow', async () => {
    const res = await fetch(tenant.origin + path(1, 1), {
      method: 'POST',
      headers: { authorization: 'Bearer demo-admin-key' },
    });
    assert.equal(res.status, 405);
    assert.match(res.headers.get('allow'), /GET/);
  });
  test('the repository itself is not served', async () => {
    for (const p of ['/package.json', '/src/protocol/index.ts', '/tenant/seed.js', '/node_modules/lit/package.json']) {
      assert.equal((await fetch(tenant.origin + p)).status, 404, p);
    }
  });
});
