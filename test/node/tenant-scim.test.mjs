// Contract tests of the simulated tenant's SCIM user listing (docs/api.md, "SCIM users" and "Authentication"; RFC
// 7644), over HTTP.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTenant } from '@svc-embed/tenant';
import { rawRequest } from '../support/raw-http.mjs';

const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
let tenant;
before(async () => {
  tenant = await startTenant({ port: 0 });
});
after(() => tenant?.close());

async function scim(query = '', authorization = 'Bearer demo-scim-token', p = '/api/scim/v2/Users') {
  const res = await fetch(`${tenant.origin}${p}${query}`, { headers: authorization ? { authorization } : {} });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function assertScimError(res, status) {
  assert.equal(res.status, status);
  assert.match(res.headers.get('content-type'), /application\/scim\+json/);
  assert.deepEqual(res.body.schemas, [ERROR]);
  assert.equal(res.body.status, String(status));
  assert.equal(typeof res.body.detail, 'string');
}

describe('SCIM ListResponse', () => {
  test('a page with count and 1-based startIndex', async () => {
    const res = await scim('?count=10&startIndex=1');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type'), /application\/scim\+json/);
    assert.ok(res.headers.get('x-request-id'));
    assert.deepEqual(res.body.schemas, [LIST]);
    assert.equal(res.body.totalResults, 137);
    assert.equal(res.body.startIndex, 1);
    assert.equal(res.body.itemsPerPage, 10);
    assert.equal(res.body.Resources.length, 10);
    const u = res.body.Resources[0];
    assert.deepEqual(u.schemas, ['urn:ietf:params:scim:schemas:core:2.0:User']);
    for (const f of ['id', 'userName', 'displayName']) assert.equal(typeof u[f], 'string');
    assert.equal(u.meta.resourceType, 'User');
    assert.equal(u.meta.location, `${tenant.origin}/api/scim/v2/Users/${u.id}`);
  });

  test('paging by startIndex += itemsPerPage visits every user once', async () => {
    const ids = new Set();
    let startIndex = 1;
    for (;;) {
      const { body } = await scim(`?count=50&startIndex=${startIndex}`);
      assert.equal(body.startIndex, startIndex);
      for (const u of body.Resources) ids.add(u.id);
      if (body.itemsPerPage === 0 || startIndex + body.itemsPerPage > body.totalResults) break;
      startIndex += body.itemsPerPage;
    }
    assert.equal(ids.size, 137);
  });

  test('the last partial page and a startIndex past the end', async () => {
    const last = await scim('?count=50&startIndex=101');
    assert.equal(last.body.itemsPerPage, 37);
    const past = await scim('?count=50&startIndex=500');
    assert.equal(past.body.itemsPerPage, 0);
    assert.deepEqual(past.body.Resources, []);
    assert.equal(past.body.totalResults, 137);
  });

  test('out-of-range values are clamped per RFC 7644 (startIndex < 1 → 1, count < 0 → 0)', async () => {
    const a = await scim('?startIndex=0&count=5');
    assert.equal(a.body.startIndex, 1);
    const b = await scim('?count=-3');
    assert.equal(b.body.itemsPerPage, 0);
    const c = await scim('');
    assert.equal(c.body.itemsPerPage, 100);
  });

  test('a huge count is clamped to the maximum (RFC 7644 3.4.2.4), not refused', async () => {
    for (const count of ['9999999999', '9'.repeat(400), '201', '200000']) {
      const res = await scim(`?count=${count}`);
      assert.equal(res.status, 200, count.slice(0, 20));
      assert.equal(res.body.itemsPerPage, 137);
    }
    const res = await scim('?count=9999999999&startIndex=101');
    assert.equal(res.body.itemsPerPage, 37);
    assert.equal((await scim('?count=-9999999999')).body.itemsPerPage, 0);
  });

  test('a huge startIndex is an empty page with an integer startIndex; a huge negative one counts as 1', async () => {
    for (const startIndex of ['9999999999', '9'.repeat(40)]) {
      const res = await scim(`?startIndex=${startIndex}&count=5`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.Resources, []);
      assert.equal(res.body.itemsPerPage, 0);
      assert.equal(res.body.totalResults, 137);
      assert.ok(Number.isSafeInteger(res.body.startIndex) && res.body.startIndex > 137, String(res.body.startIndex));
    }
    const neg = await scim('?startIndex=-9999999999&count=5');
    assert.equal(neg.body.startIndex, 1);
    assert.equal(neg.body.itemsPerPage, 5);
  });

  test('Bearer with several spaces, as RFC 6750 allows', async () => {
    assert.equal((await scim('?count=1', 'Bearer   demo-scim-token')).status, 200);
    assert.equal((await scim('?count=1', 'Api-Key  demo-scim-token')).status, 200);
  });

  test('Api-Key is accepted as well as Bearer', async () => {
    const res = await scim('?count=2', 'Api-Key demo-scim-token');
    assert.equal(res.status, 200);
    assert.equal(res.body.itemsPerPage, 2);
  });

  test('filter userName eq finds one user', async () => {
    const { body } = await scim('?count=1&startIndex=7');
    const name = body.Resources[0].userName;
    const res = await scim(`?filter=${encodeURIComponent(`userName eq "${name.toUpperCase()}"`)}`);
    assert.equal(res.body.totalResults, 1);
    assert.equal(res.body.Resources[0].userName, name);
  });

  test('a single user by id, and a 404 SCIM error for an unknown id', async () => {
    const { body } = await scim('?count=1');
    const one = await scim('', 'Bearer demo-scim-token', `/api/scim/v2/Users/${body.Resources[0].id}`);
    assert.equal(one.body.id, body.Resources[0].id);
    assertScimError(await scim('', 'Bearer demo-scim-token', '/api/scim/v2/Users/nope'), 404);
  });
});

describe('SCIM errors', () => {
  test('401 without a credential', async () => {
    const res = await scim('', null);
    assertScimError(res, 401);
    assert.ok(res.headers.get('www-authenticate'));
  });
  test('401 malformed and unknown', async () => {
    assertScimError(await scim('', 'Token demo-scim-token'), 401);
    assertScimError(await scim('', 'Bearer'), 401);
    const unknown = await scim('', 'Api-Key nope-token');
    assertScimError(unknown, 401);
    assert.ok(!JSON.stringify(unknown.body).includes('nope-token'));
  });
  test('400 for two Authorization headers', async () => {
    const res = await rawRequest(tenant.origin, '/api/scim/v2/Users?count=1', {
      headers: [
        ['Host', new URL(tenant.origin).host],
        ['Authorization', 'Bearer demo-scim-token'],
        ['Authorization', 'Api-Key demo-scim-token'],
      ],
    });
    assert.equal(res.status, 400);
    assert.match(res.headers['content-type'], /application\/scim\+json/);
    assert.equal(JSON.parse(res.body).status, '400');
  });
  test('403 for a REST key', async () => {
    assertScimError(await scim('', 'Bearer demo-admin-key'), 403);
  });
  test('400 invalidValue for non-integer paging', async () => {
    for (const q of [
      '?count=abc',
      '?startIndex=1.5',
      '?count=',
      '?count=1&count=2',
      '?startIndex=1&startIndex=2',
      '?count=1e3',
      '?count=0x10',
      '?count=%205',
      '?count=5%20',
      '?count=+5',
      '?startIndex=--1',
      '?filter=a&filter=b',
    ]) {
      const res = await scim(q);
      assertScimError(res, 400);
      assert.equal(res.body.scimType, 'invalidValue', q);
    }
  });
  test('400 invalidFilter for an unsupported filter', async () => {
    const res = await scim(`?filter=${encodeURIComponent('emails co "x"')}`);
    assertScimError(res, 400);
    assert.equal(res.body.scimType, 'invalidFilter');
  });
});
