// Integration tests of @svc-embed/api over real HTTP with Node's own fetch: a minimal loopback
// server for the faults a real tenant would not produce, then the simulated tenant (@svc-embed/tenant).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { getEventListeners, once } from 'node:events';
import { SvcApiError, SvcClient } from '@svc-embed/api';
import { startTenant } from '@svc-embed/tenant';
import { CREDENTIALS, SCIM_USERS, recipientsOf } from '../../packages/tenant/dist/seed.js';
import { expectedRecipient } from '../support/recipients.mjs';

const TOKEN = 'loopback-token-123';

/** A loopback server whose behaviour each test sets in `srv.handle`; logs every request. */
async function startLoopback() {
  const srv = { requests: [], handle: null };
  const server = createServer((req, res) => {
    srv.requests.push({ url: req.url, headers: req.headers });
    srv.handle(req, res);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  srv.origin = `http://127.0.0.1:${server.address().port}`;
  srv.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return srv;
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
}

/** 250 recipients over cursor pages (docs/api.md, "Pagination"); cursors are the index, base64url-encoded. */
function recipientsHandler(req, res) {
  const url = new URL(req.url, 'http://x');
  if (req.headers.authorization !== `Bearer ${TOKEN}`) return send(res, 401, { message: 'who are you?' });
  const first = Number(url.searchParams.get('first') ?? 100);
  const afterRaw = url.searchParams.get('after');
  const start = afterRaw ? Number(Buffer.from(afterRaw, 'base64url').toString()) + 1 : 0;
  const items = [];
  for (let i = start; i < Math.min(250, start + first); i++) {
    items.push(
      i % 2
        ? { type: 'USER', userId: i, email: `u${i}@example.com` }
        : { type: 'SLACK', channelId: `C${i}`, channelName: `c-${i}` },
    );
  }
  const end = start + items.length - 1;
  send(
    res,
    200,
    {
      items,
      pageInfo: {
        hasNextPage: end < 249,
        hasPreviousPage: start > 0,
        startCursor: null,
        endCursor: Buffer.from(String(end)).toString('base64url'),
      },
    },
    { 'x-request-id': `rq-${start}` },
  );
}

describe('over real HTTP against a loopback server', () => {
  let srv;
  before(async () => {
    srv = await startLoopback();
  });
  after(() => srv?.close());
  const client = (options = {}) =>
    new SvcClient({
      baseUrl: `${srv.origin}/api/`,
      token: TOKEN,
      retryBaseDelayMs: 1,
      retryMaxDelayMs: 20,
      ...options,
    });

  test('iterates 250 recipients over 3 pages with the right request line and headers', async () => {
    srv.requests.length = 0;
    srv.handle = recipientsHandler;
    const got = [];
    for await (const r of client().recipients({ deploymentId: 1, notificationId: 10, first: 100 }))
      got.push(r.type === 'USER' ? r.userId : r.channelId);
    assert.equal(got.length, 250);
    assert.deepEqual(got.slice(0, 3), ['C0', 1, 'C2']);
    assert.equal(new Set(got).size, 250);
    assert.equal(srv.requests.length, 3);
    assert.equal(srv.requests[0].url, '/api/v1/deployments/1/notifications/10/recipients?first=100');
    assert.equal(srv.requests[0].headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(srv.requests[0].headers.accept, 'application/json');
  });

  test('a redirect is not followed: the target is never requested', async () => {
    srv.requests.length = 0;
    srv.handle = (req, res) => {
      if (req.url.startsWith('/target')) return send(res, 200, { items: [] });
      res.writeHead(302, { location: `${srv.origin}/target` });
      res.end();
    };
    await assert.rejects(client().listRecipients({ deploymentId: 1, notificationId: 1 }), (err) => {
      assert.ok(err instanceof SvcApiError);
      assert.equal(err.code, 'REDIRECT');
      assert.match(err.message, /redirect/);
      return true;
    });
    assert.deepEqual(
      srv.requests.map((r) => r.url),
      ['/api/v1/deployments/1/notifications/1/recipients'],
    );
  });

  test('503 with Retry-After: 0, then success', async () => {
    srv.requests.length = 0;
    srv.handle = (req, res) =>
      srv.requests.length === 1
        ? send(res, 503, { message: 'busy' }, { 'retry-after': '0' })
        : recipientsHandler(req, res);
    const page = await client().listRecipients({ deploymentId: 1, notificationId: 10, first: 5 });
    assert.equal(page.items.length, 5);
    assert.equal(srv.requests.length, 2);
  });

  test('a reset connection is a retried NETWORK_ERROR', async () => {
    srv.requests.length = 0;
    srv.handle = (req) => req.socket.destroy();
    await assert.rejects(client({ maxRetries: 1 }).listRecipients({ deploymentId: 1, notificationId: 1 }), {
      code: 'NETWORK_ERROR',
      status: 0,
    });
    assert.equal(srv.requests.length, 2);
  });

  test('a refused connection is a NETWORK_ERROR naming the cause', async () => {
    const closed = await startLoopback();
    await closed.close();
    const c = new SvcClient({ baseUrl: closed.origin, token: TOKEN, maxRetries: 0 });
    await assert.rejects(c.listRecipients({ deploymentId: 1, notificationId: 1 }), (err) => {
      assert.equal(err.code, 'NETWORK_ERROR');
      assert.match(err.message, /ECONNREFUSED/);
      return true;
    });
  });

  // Outcome only: a TIMEOUT, and the socket closed. Under load the request may not even reach the
  // server within 100 ms; the client must time out all the same.
  test('a server that never answers hits timeoutMs and the socket is closed', { timeout: 60_000 }, async () => {
    srv.requests.length = 0;
    let closed;
    srv.handle = (req) => {
      closed = once(req.socket, 'close');
    };
    await assert.rejects(
      client({ timeoutMs: 100, maxRetries: 0 }).listRecipients({ deploymentId: 1, notificationId: 1 }),
      { code: 'TIMEOUT' },
    );
    await closed;
  });

  test('an abort cancels the request in flight', async () => {
    srv.requests.length = 0;
    let arrived;
    const reached = new Promise((r) => {
      arrived = r;
    });
    let closed;
    srv.handle = (req) => {
      closed = once(req.socket, 'close');
      arrived();
    };
    const ctrl = new AbortController();
    const pending = client().listRecipients({ deploymentId: 1, notificationId: 1, signal: ctrl.signal });
    await reached;
    ctrl.abort();
    await assert.rejects(pending, { name: 'AbortError' });
    await closed;
    assert.equal(srv.requests.length, 1);
  });

  // The transport hands an AbortController that ended an attempt without an abort to the next attempt: the
  // outcomes below are what reusing one must never change.
  test('requests in a row: the signal of the caller keeps no listener, and a timeout is not carried to the next request', async () => {
    srv.handle = recipientsHandler;
    const c = client({ timeoutMs: 2_000, maxRetries: 0 });
    const ctrl = new AbortController();
    for (let i = 0; i < 20; i++) {
      const page = await c.listRecipients({ deploymentId: 1, notificationId: 1, first: 1, signal: ctrl.signal });
      assert.equal(page.items.length, 1);
      assert.equal(getEventListeners(ctrl.signal, 'abort').length, 0, `after request ${i + 1}`);
    }
    let closed;
    srv.handle = (req) => {
      closed = once(req.socket, 'close');
    };
    await assert.rejects(c.listRecipients({ deploymentId: 1, notificationId: 1, signal: ctrl.signal }), {
      code: 'TIMEOUT',
    });
    await closed;
    assert.equal(getEventListeners(ctrl.signal, 'abort').length, 0);
    srv.handle = recipientsHandler;
    for (let i = 0; i < 3; i++) {
      const page = await c.listRecipients({ deploymentId: 1, notificationId: 1, first: 2 });
      assert.equal(page.items.length, 2);
    }
  });

  test('concurrent requests: aborting one leaves the other to finish', async () => {
    const c = client({ maxRetries: 0 });
    // Requests in turn first, so that the transport has controllers to hand on.
    srv.handle = recipientsHandler;
    for (let i = 0; i < 3; i++) await c.listRecipients({ deploymentId: 1, notificationId: 1, first: 1 });
    // Both requests are held; the first is aborted by its caller, then the second is answered.
    const held = [];
    let firstClosed;
    srv.handle = (req, res) => {
      if (req.url.startsWith('/api/v1/deployments/1/')) firstClosed = once(req.socket, 'close');
      held.push({ req, res });
    };
    const ctrl = new AbortController();
    const first = c.listRecipients({ deploymentId: 1, notificationId: 1, signal: ctrl.signal });
    const second = c.listRecipients({ deploymentId: 2, notificationId: 1 });
    while (held.length < 2) await new Promise((r) => setTimeout(r, 10));
    ctrl.abort();
    await assert.rejects(first, { name: 'AbortError' });
    await firstClosed;
    const other = held.find(({ req }) => req.url.startsWith('/api/v1/deployments/2/'));
    send(other.res, 200, { items: [{ type: 'USER', userId: 7 }], pageInfo: null });
    const page = await second;
    assert.deepEqual(
      page.items.map((r) => r.userId),
      [7],
    );
  });

  test("a fetch of the caller's own gets a signal per request: an abort reaches only the request it ends", async () => {
    srv.handle = recipientsHandler;
    // A fetch that listens to each request's signal and never stops, as wrappers and mocks may.
    const heard = [];
    let n = 0;
    const fetch = (url, init) => {
      const id = ++n;
      init.signal.addEventListener('abort', () => heard.push(id));
      return globalThis.fetch(url, init);
    };
    const warnings = [];
    const onWarning = (w) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const c = client({ fetch, maxRetries: 0 });
      for (let i = 0; i < 12; i++) await c.listRecipients({ deploymentId: 1, notificationId: 1, first: 1 });
      srv.handle = () => {};
      const ctrl = new AbortController();
      const pending = c.listRecipients({ deploymentId: 1, notificationId: 1, signal: ctrl.signal });
      while (n < 13) await new Promise((r) => setTimeout(r, 10));
      ctrl.abort();
      await assert.rejects(pending, { name: 'AbortError' });
      assert.deepEqual(heard, [13]);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(warnings, []);
    } finally {
      process.off('warning', onWarning);
    }
  });

  test('an HTML page with status 200 is refused as a wrong content type', async () => {
    srv.handle = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<h1>Sign in</h1>');
    };
    await assert.rejects(client().listRecipients({ deploymentId: 1, notificationId: 1 }), {
      code: 'INVALID_RESPONSE',
      field: 'content-type',
    });
  });

  test('SCIM users() over HTTP pages by startIndex', async () => {
    srv.requests.length = 0;
    srv.handle = (req, res) => {
      const url = new URL(req.url, 'http://x');
      const start = Number(url.searchParams.get('startIndex'));
      const count = Number(url.searchParams.get('count'));
      const users = [];
      for (let i = start; i < start + count && i <= 7; i++) users.push({ id: `u${i}`, userName: `user${i}` });
      send(
        res,
        200,
        {
          schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
          totalResults: 7,
          startIndex: start,
          itemsPerPage: users.length,
          Resources: users,
        },
        { 'content-type': 'application/scim+json' },
      );
    };
    const got = [];
    for await (const u of client({ scimAuthScheme: 'Api-Key' }).scim.users({ count: 3 })) got.push(u.id);
    assert.deepEqual(got, ['u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7']);
    assert.deepEqual(
      srv.requests.map((r) => r.url),
      [
        '/api/scim/v2/Users?startIndex=1&count=3',
        '/api/scim/v2/Users?startIndex=4&count=3',
        '/api/scim/v2/Users?startIndex=7&count=3',
      ],
    );
    assert.equal(srv.requests[0].headers.authorization, `Api-Key ${TOKEN}`);
  });
});

describe('against the simulated tenant (@svc-embed/tenant)', () => {
  let tenant;
  before(async () => {
    tenant = await startTenant({ port: 0 });
  });
  after(() => tenant?.close());

  /** A client for `token` whose fetch counts requests. */
  function client(token, options = {}) {
    const counted = (url, init) => {
      counted.count++;
      return fetch(url, init);
    };
    counted.count = 0;
    const c = new SvcClient({
      baseUrl: `${tenant.origin}/api`,
      token,
      fetch: counted,
      retryBaseDelayMs: 1,
      ...options,
    });
    return { c, counted };
  }

  test('the demo credentials exist as the tests expect', () => {
    for (const key of ['demo-admin-key', 'demo-scoped-key', 'demo-viewer-key', 'demo-scim-token'])
      assert.ok(CREDENTIALS.has(key), key);
  });

  test('deployment 1, notification 1: all 250 recipients, newest first, in 2 pages of 200', async () => {
    const { c, counted } = client('demo-admin-key');
    const got = [];
    for await (const r of c.recipients({ deploymentId: 1, notificationId: 1, first: 200 })) got.push(r);
    assert.equal(got.length, 250);
    assert.deepEqual(
      got,
      recipientsOf(1, 1).map((r) => expectedRecipient(r.item)),
    );
    assert.equal(counted.count, 2);
    assert.deepEqual(new Set(got.map((r) => r.type)), new Set(['USER', 'EMBED_USER', 'SLACK']));
  });

  test('one page with the server default size and a usable cursor', async () => {
    const { c } = client('demo-admin-key');
    const first = await c.listRecipients({ deploymentId: 1, notificationId: 1 });
    assert.equal(first.items.length, 100);
    assert.equal(first.pageInfo.hasNextPage, true);
    const second = await c.listRecipients({
      deploymentId: 1,
      notificationId: 1,
      first: 200,
      after: first.pageInfo.endCursor,
    });
    assert.equal(second.items.length, 150);
    assert.equal(second.pageInfo.hasNextPage, false);
    assert.equal(second.pageInfo.hasPreviousPage, true);
  });

  test('an empty notification yields nothing after one request', async () => {
    const { c, counted } = client('demo-admin-key');
    for await (const _ of c.recipients({ deploymentId: 1, notificationId: 3 })) assert.fail('no recipients expected');
    assert.equal(counted.count, 1);
  });

  test('the scoped key reads deployment 1 and gets 403 on deployment 2', async () => {
    const { c } = client('demo-scoped-key');
    assert.equal((await c.listRecipients({ deploymentId: 1, notificationId: 2 })).items.length, 7);
    await assert.rejects(c.listRecipients({ deploymentId: 2, notificationId: 20 }), (err) => {
      assert.equal(err.status, 403);
      assert.match(err.message, /not authorized for this deployment/);
      assert.match(err.detail, /not scoped to the requested deployment/);
      assert.match(err.requestId, /^[0-9a-f-]{36}$/);
      return true;
    });
  });

  test('a non-admin key gets 403, an unknown key 401, a foreign notification 404', async () => {
    await assert.rejects(client('demo-viewer-key').c.listRecipients({ deploymentId: 1, notificationId: 1 }), {
      status: 403,
    });
    const { c: bad, counted } = client('not-a-real-key');
    await assert.rejects(bad.listRecipients({ deploymentId: 1, notificationId: 1 }), (err) => {
      assert.equal(err.status, 401);
      assert.match(err.message, /missing, malformed or expired/);
      assert.ok(!JSON.stringify(err).includes('not-a-real-key'));
      return true;
    });
    assert.equal(counted.count, 1, '401 is not retried');
    await assert.rejects(client('demo-admin-key').c.listRecipients({ deploymentId: 1, notificationId: 20 }), (err) => {
      assert.equal(err.status, 404);
      assert.match(err.message, /notification 20 is not in deployment 1/);
      return true;
    });
  });

  test('a cursor the tenant does not know is a 400 with its explanation', async () => {
    await assert.rejects(
      client('demo-admin-key').c.listRecipients({ deploymentId: 1, notificationId: 1, after: 'bogus' }),
      (err) => {
        assert.equal(err.status, 400);
        assert.match(err.detail, /after: not a cursor/);
        return true;
      },
    );
  });

  test('SCIM: every one of the users with Bearer and with Api-Key', async () => {
    for (const scimAuthScheme of ['Bearer', 'Api-Key']) {
      const { c, counted } = client('demo-scim-token', { scimAuthScheme });
      const ids = [];
      for await (const u of c.scim.users({ count: 50 })) ids.push(u.id);
      assert.deepEqual(
        ids,
        SCIM_USERS.map((u) => u.id),
      );
      assert.equal(counted.count, Math.ceil(SCIM_USERS.length / 50));
    }
    const { c } = client('demo-scim-token');
    const tail = await c.scim.listUsers({ startIndex: SCIM_USERS.length - 1, count: 10 });
    assert.equal(tail.totalResults, SCIM_USERS.length);
    assert.equal(tail.startIndex, SCIM_USERS.length - 1);
    assert.deepEqual(
      tail.Resources.map((u) => u.userName),
      SCIM_USERS.slice(-2).map((u) => u.userName),
    );
  });

  test('SCIM errors: a REST key gets a parsed 403, a bad token a parsed 401', async () => {
    await assert.rejects(client('demo-admin-key').c.scim.listUsers(), (err) => {
      assert.equal(err.status, 403);
      assert.equal(err.detail, 'This endpoint needs a SCIM token.');
      assert.match(err.message, /a REST API key sent to the SCIM endpoint/);
      return true;
    });
    await assert.rejects(client('nope-not-a-token', { scimAuthScheme: 'Api-Key' }).c.scim.listUsers(), (err) => {
      assert.equal(err.status, 401);
      assert.match(err.message, /SCIM token is missing, malformed or expired/);
      assert.match(err.detail, /unknown, revoked or expired/);
      return true;
    });
  });
});
