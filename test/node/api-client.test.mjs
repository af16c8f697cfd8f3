// Unit tests of @svc-embed/api with an injected fetch: every input rule, every fault, every way a
// pagination could fail to end. Each test counts the requests it expects.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { MAX_FIRST, SvcApiError, SvcClient } from '@svc-embed/api';

const BASE = 'https://acme.example.com/api';
const TOKEN = 'sk_live.Secret-Token_0123456789';
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SCIM_LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

/** A JSON Response. */
function json(body, { status = 200, headers = {} } = {}) {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A fetch that answers from `handlers` in order (the last one repeats) and records every call. */
function fakeFetch(...handlers) {
  const calls = [];
  const fetch = async (url, init) => {
    calls.push({ url: new URL(url), init });
    const h = handlers[Math.min(calls.length - 1, handlers.length - 1)];
    // A fixed Response is cloned so that it can answer more than once.
    return typeof h === 'function' ? h(new URL(url), init) : h.clone();
  };
  fetch.calls = calls;
  return fetch;
}

function client(fetch, options = {}) {
  return new SvcClient({ baseUrl: BASE, token: TOKEN, fetch, retryBaseDelayMs: 1, retryMaxDelayMs: 20, ...options });
}

const page = (items, pageInfo) => json({ items, ...(pageInfo === undefined ? {} : { pageInfo }) });
const info = (hasNextPage, endCursor) => ({ hasNextPage, hasPreviousPage: false, startCursor: null, endCursor });
const user = (id) => ({ type: 'USER', userId: id, email: `u${id}@example.com`, username: `u${id}` });
const ids = { deploymentId: 1, notificationId: 10 };

/** Reads `items` (an async iterable) to its end: resolves, or rejects with the error that ends it. */
async function drain(items) {
  for await (const item of items) void item;
}

/** Reads the first item of `items`, then stops, as a break out of for await does. */
async function first(items) {
  for await (const item of items) return item;
}

/** Rejects when fn's promise does not reject with an instance of type whose message matches. */
async function rejectsWith(promise, type, re) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof type, `expected ${type.name}, got ${err?.constructor?.name}: ${err?.message}`);
    if (re) assert.match(err.message, re);
    return true;
  });
}

/** Everything a careless logger could print about an error or a client. */
function leakSurface(...values) {
  return values
    .flatMap((v) => [
      String(v),
      v?.message,
      v?.stack,
      JSON.stringify(v),
      inspect(v, { depth: Infinity, showHidden: true }),
      inspect(v?.cause, { depth: Infinity, showHidden: true }),
    ])
    .join('\n');
}

describe('constructor validation', () => {
  test('accepted base URLs are normalised without trailing slashes', async () => {
    const cases = [
      ['https://acme.example.com/api/', 'https://acme.example.com/api'],
      ['https://acme.example.com/api///', 'https://acme.example.com/api'],
      ['https://ACME.example.com', 'https://acme.example.com'],
      ['http://localhost:8080/api/', 'http://localhost:8080/api'],
      ['http://127.0.0.1:3000/api', 'http://127.0.0.1:3000/api'],
      ['http://127.9.8.7/api', 'http://127.9.8.7/api'],
      ['http://[::1]:3000/api', 'http://[::1]:3000/api'],
      [new URL('https://acme.example.com/x/'), 'https://acme.example.com/x'],
      ['https://acme.example.com/users/@me/', 'https://acme.example.com/users/@me'],
    ];
    for (const [input, expected] of cases) {
      const fetch = fakeFetch(() => page([], null));
      const c = new SvcClient({ baseUrl: input, token: TOKEN, fetch });
      assert.equal(c.baseUrl, expected);
      await c.listRecipients(ids);
      assert.equal(fetch.calls[0].url.href, `${expected}/v1/deployments/1/notifications/10/recipients`);
    }
  });

  test('rejected base URLs throw TypeError naming the accepted form, without echoing the URL', () => {
    const bad = [
      'http://acme.example.com/api',
      'http://localhost.evil.example/api',
      'http://127.0.0.1.nip.io/api',
      'http://10.0.0.1/api',
      'ftp://acme.example.com/api',
      'file:///etc/passwd',
      'acme.example.com/api',
      '',
      'https://admin:hunter2@acme.example.com/api',
      'https://hunter2@acme.example.com/api',
      'https://:hunter2@acme.example.com/api',
      // An empty user-info is dropped by the URL parser, so only the written form shows it.
      'https://@acme.example.com/api',
      'https://:@acme.example.com/api',
      'https:@acme.example.com/api',
      ' https://@acme.example.com',
      'http://@localhost:8080/api',
      'https:\\\\@acme.example.com/api',
      'https://acme.example.com/api?tenant=1',
      'https://acme.example.com/api#frag',
      'https://acme.example.com/api?',
      'https://acme.example.com/api#',
      'javascript:alert(1)',
      42,
      null,
      undefined,
      {},
    ];
    for (const baseUrl of bad) {
      assert.throws(
        () => new SvcClient({ baseUrl, token: TOKEN, fetch: fakeFetch() }),
        (err) => {
          assert.ok(err instanceof TypeError, `${String(baseUrl)}: ${err}`);
          assert.match(err.message, /https:/);
          assert.doesNotMatch(err.message, /hunter2/);
          return true;
        },
      );
    }
  });

  test('tokens with whitespace, control characters or non-ASCII are refused without echoing them', () => {
    const bad = [
      '',
      ' ',
      'abcdefgh ijk',
      'abcdefgh\r\nX-Injected: 1',
      'abcdefgh\n',
      '\tabcdefgh',
      'abcdefgh\u0000',
      'abcdefgh\u007f',
      'tökén-tökén',
      'abcdefgh\u2028',
      123,
      null,
      ['abcdefgh'],
    ];
    for (const token of bad) {
      assert.throws(
        () => new SvcClient({ baseUrl: BASE, token, fetch: fakeFetch() }),
        (err) => {
          assert.ok(err instanceof TypeError, `${JSON.stringify(token)}: ${err}`);
          assert.match(err.message, /^token/);
          if (typeof token === 'string' && token.trim()) assert.ok(!err.message.includes(token.trim()));
          return true;
        },
      );
    }
    // The type accepts undefined (process.env.X); the run time says what is wrong.
    assert.throws(() => new SvcClient({ baseUrl: BASE, token: undefined, fetch: fakeFetch() }), {
      name: 'TypeError',
      message: /^token is missing/,
    });
  });

  test('tokens shorter than 8 characters are refused, so redaction cannot hit ordinary words', async () => {
    for (const token of ['a', 'GET', 'failed', 'seven77']) {
      assert.throws(
        () => new SvcClient({ baseUrl: BASE, token, fetch: fakeFetch() }),
        (err) => {
          assert.ok(err instanceof TypeError, `${token}: ${err}`);
          assert.match(
            err.message,
            /^token is too short \(\d characters\); it must be a string of at least 8 visible ASCII/,
          );
          assert.ok(!err.message.includes(token) || token === 'a', err.message);
          return true;
        },
      );
    }
    const fetch = fakeFetch(() => json({ message: 'eight888 GET failed' }, { status: 400 }));
    const err = await new SvcClient({ baseUrl: BASE, token: 'eight888', fetch }).listRecipients(ids).catch((e) => e);
    assert.equal(err.detail, '[REDACTED] GET failed');
    assert.match(err.message, /^GET \/v1\/deployments\/1\/notifications\/10\/recipients failed: HTTP 400/);
  });

  test('the Authorization header is exactly "Bearer <token>" with redirect: error', async () => {
    const fetch = fakeFetch(() => page([], null));
    await client(fetch).listRecipients(ids);
    const { init } = fetch.calls[0];
    assert.equal(init.headers.authorization, `Bearer ${TOKEN}`);
    assert.equal(init.headers.accept, 'application/json');
    assert.equal(init.redirect, 'error');
    assert.equal(init.method, 'GET');
  });

  test('invalid options throw TypeError or RangeError', () => {
    const f = fakeFetch();
    const cases = [
      [{ timeoutMs: 0 }, RangeError],
      [{ timeoutMs: -5 }, RangeError],
      [{ timeoutMs: NaN }, RangeError],
      [{ timeoutMs: '100' }, TypeError],
      [{ timeoutMs: 2 ** 31 }, RangeError],
      [{ maxRetries: -1 }, RangeError],
      [{ maxRetries: 11 }, RangeError],
      [{ maxRetries: 1.5 }, RangeError],
      [{ maxRetries: '2' }, TypeError],
      [{ scimAuthScheme: 'Basic' }, TypeError],
      [{ scimAuthScheme: 'bearer' }, TypeError],
      [{ fetch: 'fetch' }, TypeError],
      [{ onRetry: 1 }, TypeError],
      [{ retryBaseDelayMs: -1 }, RangeError],
    ];
    for (const [opts, type] of cases) {
      assert.throws(
        () => new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: f, ...opts }),
        type,
        JSON.stringify(opts),
      );
    }
    assert.throws(() => new SvcClient(), TypeError);
    assert.throws(() => new SvcClient(null), TypeError);
    assert.equal(f.calls.length, 0);
  });

  test('in a browser the constructor refuses unless allowBrowser: true', () => {
    const g = globalThis;
    assert.equal(g.window, undefined);
    g.window = {};
    try {
      // window alone (as in some server runtimes) is not a browser.
      assert.ok(new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch() }));
      g.document = {};
      assert.throws(() => new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch() }), /browser/);
      assert.throws(
        () => new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch(), allowBrowser: 'yes' }),
        /allowBrowser/,
      );
      assert.ok(new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch(), allowBrowser: true }));
    } finally {
      delete g.window;
      delete g.document;
    }
  });

  test('in a Web, Shared or Service Worker (importScripts, no window) the constructor refuses too', () => {
    const g = globalThis;
    assert.equal(g.importScripts, undefined);
    g.importScripts = () => {};
    try {
      assert.throws(
        () => new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch() }),
        /refuses to run in a browser/,
      );
      assert.ok(new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch(), allowBrowser: true }));
    } finally {
      delete g.importScripts;
    }
    assert.ok(new SvcClient({ baseUrl: BASE, token: TOKEN, fetch: fakeFetch() }), 'Node itself is not a browser');
  });
});

describe('call validation sends zero requests', () => {
  const badIds = [
    [0, RangeError],
    [-1, RangeError],
    [1.5, RangeError],
    [NaN, RangeError],
    [Infinity, RangeError],
    [2 ** 53, RangeError],
    ['1', TypeError],
    [null, TypeError],
    [undefined, TypeError],
    [1n, TypeError],
  ];

  test('deploymentId and notificationId must be positive safe integers', async () => {
    const fetch = fakeFetch(() => page([], null));
    const c = client(fetch);
    for (const [value, type] of badIds) {
      await rejectsWith(
        c.listRecipients({ ...ids, deploymentId: value }),
        type,
        /deploymentId must be a positive safe integer/,
      );
      await rejectsWith(
        c.listRecipients({ ...ids, notificationId: value }),
        type,
        /notificationId must be a positive safe integer/,
      );
      assert.throws(() => c.recipients({ ...ids, deploymentId: value }), type);
    }
    assert.equal(fetch.calls.length, 0);
    await c.listRecipients({ deploymentId: Number.MAX_SAFE_INTEGER, notificationId: 1 });
    assert.equal(fetch.calls.length, 1);
  });

  test('first must be an integer from 1 to 200; omitted, no first parameter is sent', async () => {
    const fetch = fakeFetch(() => page([], null));
    const c = client(fetch);
    for (const [first, type] of [
      [0, RangeError],
      [201, RangeError],
      [1.5, RangeError],
      [-1, RangeError],
      ['50', TypeError],
      [null, TypeError],
    ]) {
      await rejectsWith(c.listRecipients({ ...ids, first }), type, /first must be an integer from 1 to 200/);
      assert.throws(() => c.recipients({ ...ids, first }), type);
    }
    assert.equal(fetch.calls.length, 0);
    assert.equal(MAX_FIRST, 200);
    await c.listRecipients({ ...ids, first: 1 });
    await c.listRecipients({ ...ids, first: 200 });
    await c.listRecipients(ids);
    assert.deepEqual(
      fetch.calls.map((x) => x.url.searchParams.get('first')),
      ['1', '200', null],
    );
  });

  test('after must be a non-empty string or null; signal must be an AbortSignal', async () => {
    const fetch = fakeFetch(() => page([], null));
    const c = client(fetch);
    await rejectsWith(c.listRecipients({ ...ids, after: '' }), RangeError, /after/);
    await rejectsWith(c.listRecipients({ ...ids, after: 5 }), TypeError, /after/);
    await rejectsWith(c.listRecipients({ ...ids, signal: {} }), TypeError, /signal/);
    await rejectsWith(c.listRecipients(), TypeError, /options object/);
    assert.equal(fetch.calls.length, 0);
    await c.listRecipients({ ...ids, after: null });
    assert.equal(fetch.calls[0].url.searchParams.has('after'), false);
  });

  test('an already aborted signal rejects with its reason and sends nothing', async () => {
    const fetch = fakeFetch(() => page([], null));
    const reason = new Error('stop');
    await assert.rejects(
      client(fetch).listRecipients({ ...ids, signal: AbortSignal.abort(reason) }),
      (e) => e === reason,
    );
    await assert.rejects(client(fetch).scim.listUsers({ signal: AbortSignal.abort() }), { name: 'AbortError' });
    assert.equal(fetch.calls.length, 0);
  });

  test('SCIM arguments: startIndex >= 1, count >= 0 (>= 1 when iterating)', async () => {
    const fetch = fakeFetch(() => json({ schemas: [SCIM_LIST], totalResults: 0 }));
    const c = client(fetch);
    await rejectsWith(c.scim.listUsers({ startIndex: 0 }), RangeError, /startIndex/);
    await rejectsWith(c.scim.listUsers({ count: -1 }), RangeError, /count/);
    await rejectsWith(c.scim.listUsers({ count: '10' }), TypeError, /count/);
    assert.throws(() => c.scim.users({ count: 0 }), RangeError);
    assert.throws(() => c.scim.users({ startIndex: 0.5 }), RangeError);
    assert.throws(() => c.scim.users({ onPage: 'x' }), TypeError);
    assert.equal(fetch.calls.length, 0);
  });
});

describe('responses', () => {
  test('known kinds are typed with nullable fields; unknown kinds pass through, never dropped', async () => {
    const raw = [
      { type: 'USER', userId: 7, email: 'a@example.com', username: null, channelId: null },
      { type: 'EMBED_USER', embedUserId: 9, embedTenantName: 'acme', externalId: 'x-1', email: null },
      { type: 'SLACK', channelId: 'C1', channelName: 'alerts' },
      { type: 'TEAMS', teamId: 'T9', nested: { a: [1, 2] }, email: 'z@example.com' },
    ];
    const fetch = fakeFetch(page(raw, info(false, 'end')));
    const res = await client(fetch).listRecipients(ids);
    assert.deepEqual(res.items, [
      { type: 'USER', userId: 7, email: 'a@example.com', username: null },
      { type: 'EMBED_USER', embedUserId: 9, embedTenantName: 'acme', externalId: 'x-1', email: null, username: null },
      { type: 'SLACK', channelId: 'C1', channelName: 'alerts', username: null },
      { type: 'UNKNOWN', rawType: 'TEAMS', raw: raw[3] },
    ]);
    assert.deepEqual(res.pageInfo, { hasNextPage: false, hasPreviousPage: false, startCursor: null, endCursor: 'end' });
  });

  test('a missing pageInfo is null and ends iteration after one page', async () => {
    const fetch = fakeFetch(page([user(1), { type: 'FAX', number: '1' }]));
    const c = client(fetch);
    assert.equal((await c.listRecipients(ids)).pageInfo, null);
    const all = [];
    for await (const r of c.recipients(ids)) all.push(r.type === 'UNKNOWN' ? r.rawType : r.type);
    assert.deepEqual(all, ['USER', 'FAX']);
    assert.equal(fetch.calls.length, 2);
  });

  test('an own "__proto__" key in an unknown item stays data', async () => {
    const body = '{"items":[{"type":"NEW","__proto__":{"polluted":true}}],"pageInfo":null}';
    const fetch = fakeFetch(new Response(body, { headers: { 'content-type': 'application/json' } }));
    const [item] = (await client(fetch).listRecipients(ids)).items;
    assert.equal(item.type, 'UNKNOWN');
    assert.ok(Object.hasOwn(item.raw, '__proto__'));
    assert.equal(item.raw.polluted, undefined);
    assert.equal({}.polluted, undefined);
  });

  test('malformed pages raise INVALID_RESPONSE naming the field', async () => {
    const cases = [
      [[], 'body'],
      [{ pageInfo: null }, 'items'],
      [{ items: {} }, 'items'],
      [{ items: [null] }, 'items[0]'],
      [{ items: [{ userId: 1 }] }, 'items[0].type'],
      [{ items: [{ type: 5 }] }, 'items[0].type'],
      [{ items: [user(1), { type: 'USER', userId: '2' }] }, 'items[1].userId'],
      [{ items: [{ type: 'USER', userId: 1.5 }] }, 'items[0].userId'],
      [{ items: [{ type: 'EMBED_USER', email: 42 }] }, 'items[0].email'],
      [{ items: [{ type: 'SLACK', channelName: ['x'] }] }, 'items[0].channelName'],
      [{ items: [{ type: 'EMBED_USER', embedUserId: '9' }] }, 'items[0].embedUserId'],
      [{ items: [], pageInfo: 'next' }, 'pageInfo'],
      [{ items: [], pageInfo: { hasPreviousPage: false } }, 'pageInfo.hasNextPage'],
      [{ items: [], pageInfo: { hasNextPage: 'false', hasPreviousPage: false } }, 'pageInfo.hasNextPage'],
      [{ items: [], pageInfo: { hasNextPage: false } }, 'pageInfo.hasPreviousPage'],
      [{ items: [], pageInfo: { ...info(false, null), endCursor: 7 } }, 'pageInfo.endCursor'],
    ];
    for (const [body, field] of cases) {
      const fetch = fakeFetch(json(body, { headers: { 'x-request-id': 'req-9' } }));
      await assert.rejects(client(fetch).listRecipients(ids), (err) => {
        assert.ok(err instanceof SvcApiError, String(err));
        assert.equal(err.code, 'INVALID_RESPONSE');
        assert.equal(err.field, field, JSON.stringify(body));
        assert.equal(err.status, 200);
        assert.equal(err.requestId, 'req-9');
        assert.ok(err.message.includes(field), err.message);
        return true;
      });
      assert.equal(fetch.calls.length, 1, 'a malformed page is not retried');
    }
  });

  test('malformed JSON raises a clear error, not a SyntaxError, and is not retried', async () => {
    const fetch = fakeFetch(() => new Response('{"items": [', { headers: { 'content-type': 'application/json' } }));
    await assert.rejects(client(fetch).listRecipients(ids), (err) => {
      assert.ok(err instanceof SvcApiError);
      assert.equal(err.code, 'INVALID_RESPONSE');
      assert.match(err.message, /not valid JSON/);
      return true;
    });
    assert.equal(fetch.calls.length, 1);
  });

  test('a wrong content type raises a clear error naming it', async () => {
    for (const type of ['text/html; charset=utf-8', 'text/plain', null, 'application/jsonp']) {
      const headers = type ? { 'content-type': type } : {};
      const fetch = fakeFetch(() => {
        const res = new Response(type ? '<html>login</html>' : null, { headers });
        // A string body would make Response add text/plain itself: the "none" case must really have none.
        assert.equal(res.headers.get('content-type'), type);
        return res;
      });
      await assert.rejects(client(fetch).listRecipients(ids), (err) => {
        assert.equal(err.code, 'INVALID_RESPONSE');
        assert.equal(err.field, 'content-type');
        assert.match(err.message, /expected a JSON response/);
        assert.ok(err.message.includes(type ? type.split(';')[0] : 'none'), err.message);
        return true;
      });
      assert.equal(fetch.calls.length, 1);
    }
    // JSON with parameters and +json subtypes are fine.
    const ok = fakeFetch(
      new Response('{"items":[]}', { headers: { 'content-type': 'Application/JSON; charset=UTF-8' } }),
    );
    assert.deepEqual((await client(ok).listRecipients(ids)).items, []);
  });
});

describe('HTTP errors', () => {
  const statusCase = async (status, body, headers = {}) => {
    const fetch = fakeFetch(() => json(body, { status, headers: { 'x-request-id': 'req-42', ...headers } }));
    const err = await client(fetch)
      .listRecipients(ids)
      .then(
        () => assert.fail('resolved'),
        (e) => e,
      );
    assert.ok(err instanceof SvcApiError);
    assert.ok(err instanceof Error);
    assert.equal(err.name, 'SvcApiError');
    assert.equal(err.status, status);
    assert.equal(err.requestId, 'req-42');
    assert.ok(err.message.includes('req-42'));
    return { err, calls: fetch.calls.length };
  };

  test('401: a missing or expired credential; not retried', async () => {
    const { err, calls } = await statusCase(401, { error: { message: 'Token expired.' } });
    assert.equal(err.code, 'HTTP_ERROR');
    assert.match(err.message, /HTTP 401, the credential is missing, malformed or expired/);
    assert.equal(err.detail, 'Token expired.');
    assert.equal(calls, 1);
  });

  test('403: a key not authorized for this deployment, or not an admin', async () => {
    const { err, calls } = await statusCase(403, { message: 'forbidden' });
    assert.match(err.message, /not authorized for this deployment/);
    assert.match(err.message, /not an admin/);
    assert.equal(calls, 1);
  });

  test('404: the notification is not in this deployment', async () => {
    const { err, calls } = await statusCase(404, {});
    assert.match(err.message, /HTTP 404, notification 10 is not in deployment 1/);
    assert.equal(err.detail, undefined);
    assert.equal(calls, 1);
  });

  test('500 and other statuses are not retried', async () => {
    for (const status of [400, 405, 409, 500, 501]) {
      const { err, calls } = await statusCase(status, { detail: 'nope' });
      assert.equal(err.status, status);
      assert.equal(calls, 1, `status ${status}`);
    }
  });

  test('429, 502, 503, 504 are retried maxRetries times, then raise the last status', async () => {
    for (const status of [429, 502, 503, 504]) {
      const fetch = fakeFetch(() => json({}, { status }));
      const err = await client(fetch, { maxRetries: 3 })
        .listRecipients(ids)
        .then(
          () => assert.fail(),
          (e) => e,
        );
      assert.equal(err.status, status);
      assert.equal(err.attempts, 4);
      assert.match(err.message, /after 4 attempts/);
      assert.equal(fetch.calls.length, 4, `status ${status}`);
    }
    const none = fakeFetch(() => json({}, { status: 503 }));
    await assert.rejects(client(none, { maxRetries: 0 }).listRecipients(ids), { status: 503 });
    assert.equal(none.calls.length, 1);
  });

  test('a retried request that then succeeds returns the page', async () => {
    const fetch = fakeFetch(json({}, { status: 503 }), json({}, { status: 429 }), page([user(1)], null));
    const seen = [];
    const res = await client(fetch, { onRetry: (r) => seen.push([r.retry, r.status, r.code]) }).listRecipients(ids);
    assert.equal(res.items.length, 1);
    assert.equal(fetch.calls.length, 3);
    assert.deepEqual(seen, [
      [1, 503, 'HTTP_ERROR'],
      [2, 429, 'HTTP_ERROR'],
    ]);
  });

  test('network errors are retried, then raise NETWORK_ERROR with status 0', async () => {
    const fetch = fakeFetch(() => {
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      });
    });
    const seen = [];
    const err = await client(fetch, { onRetry: (r) => seen.push([r.code, r.status]) })
      .listRecipients(ids)
      .then(
        () => assert.fail(),
        (e) => e,
      );
    assert.deepEqual(seen, [
      ['NETWORK_ERROR', 0],
      ['NETWORK_ERROR', 0],
    ]);
    assert.equal(err.code, 'NETWORK_ERROR');
    assert.equal(err.status, 0);
    assert.match(err.message, /ECONNREFUSED/);
    assert.equal(fetch.calls.length, 3);
    const flaky = fakeFetch(() => Promise.reject(new TypeError('fetch failed')), page([user(2)], null));
    assert.equal((await client(flaky).listRecipients(ids)).items[0].userId, 2);
    assert.equal(flaky.calls.length, 2);
  });

  test('redirects are never followed: a 3xx response or a redirect failure is final', async () => {
    const r302 = fakeFetch(() => new Response(null, { status: 302, headers: { location: 'https://evil.example/' } }));
    await assert.rejects(client(r302).listRecipients(ids), { code: 'REDIRECT', status: 302 });
    assert.equal(r302.calls.length, 1);
    const undiciStyle = fakeFetch(() =>
      Promise.reject(new TypeError('fetch failed', { cause: new Error('unexpected redirect') })),
    );
    await assert.rejects(client(undiciStyle).listRecipients(ids), { code: 'REDIRECT', status: 0 });
    assert.equal(undiciStyle.calls.length, 1);
  });

  // A fetch that ignores the signal would hang this test without the client's own timer: the test's
  // time limit catches that, and no assertion depends on how fast the machine is.
  test(
    'timeoutMs bounds each attempt, even when fetch ignores the signal; a retry says TIMEOUT',
    { timeout: 60_000 },
    async () => {
      const respectful = fakeFetch(
        (_url, init) =>
          new Promise((_resolve, reject) => {
            init.signal.addEventListener('abort', () => reject(init.signal.reason));
          }),
      );
      const seen = [];
      await assert.rejects(
        client(respectful, {
          timeoutMs: 30,
          maxRetries: 1,
          onRetry: (r) => seen.push([r.code, r.status]),
        }).listRecipients(ids),
        (err) => {
          assert.equal(err.code, 'TIMEOUT');
          assert.equal(err.status, 0);
          assert.match(err.message, /within 30 ms/);
          return true;
        },
      );
      assert.equal(respectful.calls.length, 2, 'a timeout counts as a network failure and is retried');
      assert.deepEqual(seen, [['TIMEOUT', 0]], 'the retry is reported as a timeout, not a network error');
      assert.ok(respectful.calls.every((c) => c.init.signal.aborted));
      const deaf = fakeFetch(() => new Promise(() => {}));
      await assert.rejects(client(deaf, { timeoutMs: 30, maxRetries: 0 }).listRecipients(ids), { code: 'TIMEOUT' });
    },
  );

  test('SCIM error bodies fill detail and scimType; SCIM wording for 401', async () => {
    const body = { schemas: [SCIM_ERROR], status: '400', scimType: 'invalidFilter', detail: 'Filter\nnot supported.' };
    const fetch = fakeFetch(
      new Response(JSON.stringify(body), { status: 400, headers: { 'content-type': 'application/scim+json' } }),
    );
    const err = await client(fetch)
      .scim.listUsers()
      .then(
        () => assert.fail(),
        (e) => e,
      );
    assert.equal(err.status, 400);
    assert.equal(err.scimType, 'invalidFilter');
    assert.equal(err.detail, 'Filter not supported.', 'line breaks are flattened');
    assert.match(err.message, /Server says: Filter not supported\./);
    const unauth = fakeFetch(
      new Response(JSON.stringify({ schemas: [SCIM_ERROR], status: '401', detail: 'bad token' }), {
        status: 401,
        headers: { 'content-type': 'application/scim+json' },
      }),
    );
    const e401 = await client(unauth)
      .scim.listUsers()
      .then(
        () => assert.fail(),
        (e) => e,
      );
    assert.match(e401.message, /SCIM token is missing, malformed or expired/);
    assert.equal(e401.detail, 'bad token');
  });
});

describe('messages that point at the likely mistake', () => {
  test('SCIM 403: most likely a REST API key sent to the SCIM endpoint', async () => {
    const body = { schemas: [SCIM_ERROR], status: '403', detail: 'This endpoint needs a SCIM token.' };
    const fetch = fakeFetch(
      new Response(JSON.stringify(body), { status: 403, headers: { 'content-type': 'application/scim+json' } }),
    );
    const err = await client(fetch)
      .scim.listUsers()
      .then(
        () => assert.fail(),
        (e) => e,
      );
    assert.equal(err.status, 403);
    assert.match(err.message, /HTTP 403, .*a REST API key sent to the SCIM endpoint, which needs the SCIM token/);
    assert.doesNotMatch(err.message, /token is valid/);
  });

  test('a 404 that is not JSON says to check the base URL first; a JSON 404 keeps the API meaning', async () => {
    for (const [type, body] of [
      ['text/plain', 'Not found'],
      ['text/html; charset=utf-8', '<h1>404</h1>'],
      [null, ''],
    ]) {
      const fetch = fakeFetch(() => new Response(body, { status: 404, headers: type ? { 'content-type': type } : {} }));
      const rest = await client(fetch)
        .listRecipients(ids)
        .then(
          () => assert.fail(),
          (e) => e,
        );
      assert.equal(rest.status, 404);
      assert.match(
        rest.message,
        /^GET \S+ failed: HTTP 404, a non-JSON answer, so probably not the API: check the base URL first \(it usually ends in \/api\)/,
        String(type),
      );
      assert.doesNotMatch(rest.message, /notification 10 is not in deployment 1/);
      const scim = await client(fetch)
        .scim.listUsers()
        .then(
          () => assert.fail(),
          (e) => e,
        );
      assert.match(scim.message, /check the base URL first/);
    }
    const api = await client(fakeFetch(() => json({ message: 'no such notification' }, { status: 404 })))
      .listRecipients(ids)
      .catch((e) => e);
    assert.match(api.message, /HTTP 404, notification 10 is not in deployment 1/);
    assert.doesNotMatch(api.message, /check the base URL first/);
  });

  test('a 2xx that is not JSON suggests the base URL too', async () => {
    const fetch = fakeFetch(() => new Response('<html>sign in</html>', { headers: { 'content-type': 'text/html' } }));
    const err = await client(fetch)
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.match(err.message, /content type "text\/html"; check the base URL first \(it usually ends in \/api\)/);
  });
});

describe('Retry-After and backoff', () => {
  // An hour's wait: if the abort did not cut it short, the test's time limit would fail it.
  test('Retry-After seconds is honoured, and the wait is abortable', { timeout: 60_000 }, async () => {
    const fetch = fakeFetch(() => json({}, { status: 429, headers: { 'retry-after': '3600' } }));
    const ctrl = new AbortController();
    const delays = [];
    const c = client(fetch, {
      retryMaxDelayMs: 3_600_000,
      onRetry: (r) => {
        delays.push(r.delayMs);
        ctrl.abort(new Error('user gave up'));
      },
    });
    await assert.rejects(c.listRecipients({ ...ids, signal: ctrl.signal }), /user gave up/);
    assert.deepEqual(delays, [3_600_000]);
    assert.equal(fetch.calls.length, 1);
  });

  test('Retry-After as an HTTP date is honoured', async () => {
    // Five minutes ahead: a loaded machine's delay between here and the header's parsing stays small beside it.
    const when = new Date(Date.now() + 300_000).toUTCString();
    const fetch = fakeFetch(() => json({}, { status: 503, headers: { 'retry-after': when } }));
    const ctrl = new AbortController();
    const delays = [];
    const c = client(fetch, {
      retryMaxDelayMs: 600_000,
      onRetry: (r) => {
        delays.push(r.delayMs);
        ctrl.abort();
      },
    });
    await assert.rejects(c.listRecipients({ ...ids, signal: ctrl.signal }), { name: 'AbortError' });
    assert.ok(delays[0] > 240_000 && delays[0] <= 300_000, String(delays[0]));
  });

  test('a Retry-After within retryMaxDelayMs is really waited for', async () => {
    const fetch = fakeFetch(json({}, { status: 503, headers: { 'retry-after': '1' } }), page([], null));
    const delays = [];
    const start = Date.now();
    await client(fetch, { retryMaxDelayMs: 1000, onRetry: (r) => delays.push(r.delayMs) }).listRecipients(ids);
    assert.deepEqual(delays, [1000], 'equal to the cap is still waited for');
    // A lower bound only: a slow machine waits longer, never shorter.
    assert.ok(Date.now() - start >= 950, 'waited before retrying');
    assert.equal(fetch.calls.length, 2);
  });

  test('a Retry-After above retryMaxDelayMs gives up at once, saying how long the server asked for', async () => {
    for (const [status, header, seconds] of [
      [503, '3600', 3600],
      [429, '31', 31],
      [429, new Date(Date.now() + 7_200_000).toUTCString(), 7200],
    ]) {
      const fetch = fakeFetch(() => json({}, { status, headers: { 'retry-after': header } }));
      const retries = [];
      const err = await client(fetch, { maxRetries: 5, retryMaxDelayMs: 30_000, onRetry: (r) => retries.push(r) })
        .listRecipients(ids)
        .then(
          () => assert.fail('resolved'),
          (e) => e,
        );
      assert.ok(err instanceof SvcApiError);
      assert.equal(err.code, 'HTTP_ERROR');
      assert.equal(err.status, status);
      assert.equal(fetch.calls.length, 1, `${header}: not retried early`);
      assert.deepEqual(retries, [], 'no wait was started');
      if (typeof header === 'string' && /^\d+$/.test(header)) assert.equal(err.retryAfterMs, seconds * 1000);
      else
        assert.ok(
          err.retryAfterMs > (seconds - 60) * 1000 && err.retryAfterMs <= seconds * 1000,
          String(err.retryAfterMs),
        );
      const shown = Math.ceil(err.retryAfterMs / 1000);
      assert.match(err.message, new RegExp(`retry in ${shown} s, longer than the client waits \\(30 s at most\\)`));
      assert.equal(JSON.parse(JSON.stringify(err)).retryAfterMs, err.retryAfterMs);
    }
    // Within the cap, the header is kept on the final error too.
    const within = fakeFetch(() => json({}, { status: 429, headers: { 'retry-after': '0' } }));
    const last = await client(within, { maxRetries: 1 })
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(last.retryAfterMs, 0);
    assert.equal(within.calls.length, 2);
  });

  test('without (or with an unreadable) Retry-After, backoff is exponential with jitter', async () => {
    const fetch = fakeFetch(() => json({}, { status: 502, headers: { 'retry-after': 'soon' } }));
    const delays = [];
    await assert.rejects(
      client(fetch, {
        maxRetries: 3,
        retryBaseDelayMs: 8,
        retryMaxDelayMs: 1000,
        onRetry: (r) => delays.push(r.delayMs),
      }).listRecipients(ids),
      { status: 502 },
    );
    assert.equal(delays.length, 3);
    [
      [4, 8],
      [8, 16],
      [16, 32],
    ].forEach(([lo, hi], i) => assert.ok(delays[i] >= lo && delays[i] <= hi, `${i}: ${delays[i]}`));
  });
});

describe('abort', () => {
  test('an AbortSignal cancels the request in flight', async () => {
    const fetch = fakeFetch(
      (_url, init) =>
        new Promise((_resolve, reject) => {
          init.signal.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
        }),
    );
    const ctrl = new AbortController();
    const reason = new Error('cancelled by test');
    const pending = client(fetch).listRecipients({ ...ids, signal: ctrl.signal });
    await new Promise((r) => setTimeout(r, 5));
    ctrl.abort(reason);
    await assert.rejects(pending, (e) => e === reason);
    assert.equal(fetch.calls.length, 1, 'an abort is not retried');
    assert.equal(fetch.calls[0].init.signal.aborted, true, 'fetch saw the abort');
    // With no retry budget the abort still surfaces as the caller's reason, not as a network error.
    const ctrl2 = new AbortController();
    const noRetry = client(fetch, { maxRetries: 0 }).listRecipients({ ...ids, signal: ctrl2.signal });
    await new Promise((r) => setTimeout(r, 5));
    ctrl2.abort(reason);
    await assert.rejects(noRetry, (e) => e === reason);
  });

  test('aborting during iteration stops further pages', async () => {
    const ctrl = new AbortController();
    const fetch = fakeFetch(
      page([user(1)], info(true, 'c1')),
      page([user(2)], info(true, 'c2')),
      page([user(3)], info(false, null)),
    );
    const got = [];
    await assert.rejects(
      async () => {
        for await (const r of client(fetch).recipients({ ...ids, signal: ctrl.signal })) {
          got.push(r.userId);
          if (got.length === 2) ctrl.abort();
        }
      },
      { name: 'AbortError' },
    );
    assert.deepEqual(got, [1, 2]);
    assert.equal(fetch.calls.length, 2);
  });
});

describe('token redaction', () => {
  test('the token is in no error: message, stack, JSON, inspect, cause, detail, request id', async () => {
    const echo = fakeFetch(() =>
      json(
        { message: `bad token ${TOKEN} (${encodeURIComponent(TOKEN)})` },
        { status: 401, headers: { 'x-request-id': TOKEN } },
      ),
    );
    const e1 = await client(echo)
      .listRecipients(ids)
      .then(
        () => assert.fail(),
        (e) => e,
      );
    assert.match(e1.detail, /bad token \[REDACTED\]/);
    assert.equal(e1.requestId, undefined);
    const thrower = fakeFetch(() => {
      throw new TypeError(`Headers.append: "Bearer ${TOKEN}" is an invalid header value.`);
    });
    const e2 = await client(thrower, { maxRetries: 0 })
      .listRecipients(ids)
      .then(
        () => assert.fail(),
        (e) => e,
      );
    assert.equal(e2.code, 'NETWORK_ERROR');
    const scim = fakeFetch(
      () =>
        new Response(JSON.stringify({ schemas: [SCIM_ERROR], detail: `token ${TOKEN} revoked`, scimType: TOKEN }), {
          status: 403,
          headers: { 'content-type': 'application/scim+json' },
        }),
    );
    const e3 = await client(scim)
      .scim.listUsers()
      .then(
        () => assert.fail(),
        (e) => e,
      );
    const plain = fakeFetch(
      () => new Response(`no ${TOKEN}`, { status: 400, headers: { 'content-type': 'text/plain' } }),
    );
    const e4 = await client(plain)
      .listRecipients(ids)
      .then(
        () => assert.fail(),
        (e) => e,
      );
    const surface = leakSurface(e1, e2, e3, e4);
    assert.ok(!surface.includes(TOKEN), 'token leaked');
    assert.ok(!surface.includes(encodeURIComponent(TOKEN)), 'encoded token leaked');
    assert.match(surface, /\[REDACTED\]/);
  });

  test('the client shows [REDACTED] in util.inspect, JSON.stringify and its keys', () => {
    const c = client(fakeFetch(), { scimAuthScheme: 'Api-Key' });
    const surface = [
      inspect(c, { depth: Infinity, showHidden: true }),
      JSON.stringify(c),
      inspect(c.scim, { showHidden: true }),
      JSON.stringify(c.scim),
      String(c),
      Object.keys(c).join(','),
      JSON.stringify(Object.entries(c)),
    ].join('\n');
    assert.ok(!surface.includes(TOKEN));
    assert.match(inspect(c), /SvcClient \{[^}]*token: '\[REDACTED\]'/);
    assert.deepEqual(JSON.parse(JSON.stringify(c)), {
      baseUrl: BASE,
      token: '[REDACTED]',
      scimAuthScheme: 'Api-Key',
      timeoutMs: 30000,
      maxRetries: 2,
    });
  });
});

describe('cursor pagination', () => {
  test('follows endCursor until hasNextPage is false, yielding every item in order', async () => {
    const fetch = fakeFetch(
      page([user(1), user(2)], info(true, 'c/1+=&')),
      page([user(3)], info(true, 'c2')),
      page([user(4), { type: 'NEW' }], info(false, 'c3')),
    );
    const progress = [];
    const got = [];
    for await (const r of client(fetch).recipients({ ...ids, first: 2, onPage: (p) => progress.push(p) })) {
      got.push(r.type === 'USER' ? r.userId : r.rawType);
    }
    assert.deepEqual(got, [1, 2, 3, 4, 'NEW']);
    assert.deepEqual(
      fetch.calls.map((c) => c.url.searchParams.get('after')),
      [null, 'c/1+=&', 'c2'],
    );
    assert.ok(fetch.calls.every((c) => c.url.searchParams.get('first') === '2'));
    assert.deepEqual(
      progress.map((p) => [p.page, p.pageItems, p.received]),
      [
        [1, 2, 2],
        [2, 1, 3],
        [3, 2, 5],
      ],
    );
  });

  test('hasNextPage with no cursor throws PAGINATION_ERROR after yielding the page', async () => {
    for (const endCursor of [null, '']) {
      const fetch = fakeFetch(page([user(1)], info(true, endCursor)));
      const got = [];
      await assert.rejects(
        async () => {
          for await (const r of client(fetch).recipients(ids)) got.push(r.userId);
        },
        (err) => err instanceof SvcApiError && err.code === 'PAGINATION_ERROR' && /no endCursor/.test(err.message),
      );
      assert.deepEqual(got, [1]);
      assert.equal(fetch.calls.length, 1);
    }
  });

  test('a repeated cursor throws instead of looping (immediate, cyclic, or the starting cursor)', async () => {
    const same = fakeFetch(page([user(1)], info(true, 'a')), page([user(2)], info(true, 'a')));
    await assert.rejects(async () => drain(client(same).recipients(ids)), { code: 'PAGINATION_ERROR' });
    assert.equal(same.calls.length, 2);
    const cycle = fakeFetch(
      page([user(1)], info(true, 'a')),
      page([user(2)], info(true, 'b')),
      page([user(3)], info(true, 'a')),
    );
    await assert.rejects(async () => drain(client(cycle).recipients(ids)), /repeats an earlier cursor/);
    assert.equal(cycle.calls.length, 3);
    const start = fakeFetch(page([user(1)], info(true, 'x')));
    await assert.rejects(async () => drain(client(start).recipients({ ...ids, after: 'x' })), {
      code: 'PAGINATION_ERROR',
    });
    assert.equal(start.calls.length, 1);
    assert.equal(start.calls[0].url.searchParams.get('after'), 'x');
  });

  test('endless empty pages with fresh cursors are cut off', async () => {
    let n = 0;
    const fetch = fakeFetch(() => page([], info(true, `fresh-${++n}`)));
    await assert.rejects(async () => drain(client(fetch).recipients(ids)), /empty pages in a row/);
    assert.equal(fetch.calls.length, 3);
  });

  test('breaking out of for await sends no further request', async () => {
    const fetch = fakeFetch(page([user(1), user(2)], info(true, 'c1')), page([user(3)], info(false, null)));
    for await (const r of client(fetch).recipients(ids)) if (r.userId === 1) break;
    assert.equal(fetch.calls.length, 1);
    const fetch2 = fakeFetch(page([user(1), user(2)], info(true, 'c1')), page([user(3)], info(false, null)));
    for await (const r of client(fetch2).recipients(ids)) if (r.userId === 2) break;
    assert.equal(fetch2.calls.length, 1, 'the next page is not prefetched');
  });

  test('an error on a later page surfaces after the earlier items', async () => {
    const fetch = fakeFetch(page([user(1)], info(true, 'c1')), json({}, { status: 404 }));
    const got = [];
    await assert.rejects(
      async () => {
        for await (const r of client(fetch).recipients(ids)) got.push(r.userId);
      },
      { status: 404 },
    );
    assert.deepEqual(got, [1]);
  });
});

describe('SCIM', () => {
  const scimUser = (i) => ({
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
    id: `id-${i}`,
    userName: `user${i}@example.com`,
    active: true,
    emails: [{ value: `user${i}@example.com`, primary: true }],
  });
  const list = (users, totalResults, extra = {}) =>
    new Response(JSON.stringify({ schemas: [SCIM_LIST], totalResults, Resources: users, ...extra }), {
      headers: { 'content-type': 'application/scim+json' },
    });

  test('listUsers: path, query, Bearer by default, SCIM accept header, parsed ListResponse', async () => {
    const fetch = fakeFetch(list([scimUser(1), scimUser(2)], 9, { startIndex: 3, itemsPerPage: 2 }));
    const res = await client(fetch).scim.listUsers({ startIndex: 3, count: 2 });
    const { url, init } = fetch.calls[0];
    assert.equal(url.pathname, '/api/scim/v2/Users');
    assert.equal(url.search, '?startIndex=3&count=2');
    assert.equal(init.headers.authorization, `Bearer ${TOKEN}`);
    assert.match(init.headers.accept, /application\/scim\+json/);
    assert.equal(init.redirect, 'error');
    assert.deepEqual(res, {
      schemas: [SCIM_LIST],
      totalResults: 9,
      startIndex: 3,
      itemsPerPage: 2,
      Resources: [scimUser(1), scimUser(2)],
    });
  });

  test('the Api-Key scheme is used when asked for', async () => {
    const fetch = fakeFetch(list([], 0));
    await client(fetch, { scimAuthScheme: 'Api-Key' }).scim.listUsers();
    assert.equal(fetch.calls[0].init.headers.authorization, `Api-Key ${TOKEN}`);
    assert.equal(fetch.calls[0].url.search, '');
  });

  test('users(): startIndex is 1-based and advances by the resources actually returned', async () => {
    // The server returns 2 per page whatever the count asked for.
    const fetch = fakeFetch((url) => {
      const start = Number(url.searchParams.get('startIndex'));
      return list([start, start + 1].filter((i) => i <= 5).map(scimUser), 5);
    });
    const progress = [];
    const got = [];
    for await (const u of client(fetch).scim.users({ count: 10, onPage: (p) => progress.push(p.received) }))
      got.push(u.id);
    assert.deepEqual(got, ['id-1', 'id-2', 'id-3', 'id-4', 'id-5']);
    assert.deepEqual(
      fetch.calls.map((c) => c.url.searchParams.get('startIndex')),
      ['1', '3', '5'],
    );
    assert.ok(fetch.calls.every((c) => c.url.searchParams.get('count') === '10'));
    assert.deepEqual(progress, [2, 4, 5]);
  });

  test('users(): stops on an empty page even if totalResults promises more', async () => {
    const fetch = fakeFetch(list([scimUser(1), scimUser(2), scimUser(3)], 10), list([], 10));
    const got = [];
    for await (const u of client(fetch).scim.users({ count: 3 })) got.push(u.id);
    assert.equal(got.length, 3);
    assert.equal(fetch.calls.length, 2);
    const none = fakeFetch(list(undefined, 0));
    for await (const u of client(none).scim.users()) assert.fail(`no users expected, got ${inspect(u)}`);
    assert.equal(none.calls.length, 1);
  });

  test('users(): break stops requests', async () => {
    const fetch = fakeFetch(list([scimUser(1), scimUser(2)], 100), list([scimUser(3)], 100));
    await first(client(fetch).scim.users({ count: 2 }));
    assert.equal(fetch.calls.length, 1);
  });

  test('malformed ListResponses name the field', async () => {
    const cases = [
      [{ schemas: [SCIM_LIST], Resources: [] }, 'totalResults'],
      [{ schemas: [SCIM_LIST], totalResults: -1 }, 'totalResults'],
      [{ schemas: ['urn:other'], totalResults: 0 }, 'schemas'],
      [{ totalResults: 1, Resources: {} }, 'Resources'],
      [{ totalResults: 1, Resources: [{ userName: 'x' }] }, 'Resources[0].id'],
      [{ totalResults: 1, Resources: [{ id: 'a' }] }, 'Resources[0].userName'],
      [{ totalResults: 1, Resources: [{ id: 'a', userName: 'x', active: 'yes' }] }, 'Resources[0].active'],
      [
        { totalResults: 1, Resources: [{ id: 'a', userName: 'x', emails: [{ value: 5 }] }] },
        'Resources[0].emails[0].value',
      ],
    ];
    for (const [body, field] of cases) {
      const fetch = fakeFetch(json(body));
      await assert.rejects(
        client(fetch).scim.listUsers(),
        (err) => err.code === 'INVALID_RESPONSE' && err.field === field,
      );
    }
  });
});

describe('token redaction: causes, letter case, every server string', () => {
  /** The token in any letter case, raw or URL-encoded. */
  function assertNoToken(surface, what = 'surface') {
    const lower = surface.toLowerCase();
    assert.ok(!lower.includes(TOKEN.toLowerCase()), `token leaked in ${what}`);
    assert.ok(!lower.includes(encodeURIComponent(TOKEN).toLowerCase()), `encoded token leaked in ${what}`);
  }

  test('a network error cause is a fresh, scrubbed copy: no request, headers, options or nested errors survive', async () => {
    const rejections = [
      [
        'plain object with the request',
        (_url, init) => Promise.reject({ message: 'boom', request: { headers: init.headers } }),
      ],
      [
        'Error with the init attached',
        (_url, init) => Promise.reject(Object.assign(new TypeError('fetch failed'), { init, options: init })),
      ],
      [
        'Error whose cause is a plain object with headers',
        (_url, init) =>
          Promise.reject(new TypeError('fetch failed', { cause: { code: 'ECONNRESET', headers: init.headers } })),
      ],
      [
        'AggregateError with the token in a member',
        () => Promise.reject(new AggregateError([new Error(`Bearer ${TOKEN}`)], 'fetch failed')),
      ],
      [
        'Error carrying a Request',
        (url, init) =>
          Promise.reject(Object.assign(new TypeError('fetch failed'), { request: new Request(url, init) })),
      ],
      ['string rejection', () => Promise.reject(`Bearer ${TOKEN.toUpperCase()}`)],
      [
        'nested causes',
        () =>
          Promise.reject(
            new TypeError('fetch failed', {
              cause: new Error('x', {
                cause: new Error(`Bearer ${TOKEN}`, { cause: { headers: { authorization: `Bearer ${TOKEN}` } } }),
              }),
            }),
          ),
      ],
      [
        'throwing getters',
        () =>
          Promise.reject(
            new Proxy(
              {},
              {
                get() {
                  throw new Error(`Bearer ${TOKEN}`);
                },
              },
            ),
          ),
      ],
    ];
    for (const [what, reject] of rejections) {
      const fetch = fakeFetch(reject);
      const err = await client(fetch, { maxRetries: 0 })
        .listRecipients(ids)
        .then(
          () => assert.fail(what),
          (e) => e,
        );
      assert.equal(err.code, 'NETWORK_ERROR', what);
      assertNoToken(leakSurface(err), what);
      // The cause is a plain Error built by the client, with only name, message and code of its own.
      assert.ok(err.cause instanceof Error, what);
      assert.deepEqual(
        Object.keys(err.cause).filter((k) => k !== 'code'),
        [],
        what,
      );
      assert.equal(Object.getPrototypeOf(err.cause), Error.prototype, what);
    }
    const kept = fakeFetch(() =>
      Promise.reject(
        new TypeError('fetch failed', {
          cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET', socket: { secret: TOKEN } }),
        }),
      ),
    );
    const err = await client(kept, { maxRetries: 0 })
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err.cause.name, 'TypeError');
    assert.equal(err.cause.message, 'fetch failed');
    assert.equal(err.cause.cause.message, 'read ECONNRESET');
    assert.equal(err.cause.cause.code, 'ECONNRESET');
    assert.equal(err.cause.cause.socket, undefined);
    assert.match(err.message, /network error \(ECONNRESET\)/);
  });

  test('the token is redacted whatever its letter case, in every server string', async () => {
    const variants = [TOKEN.toUpperCase(), TOKEN.toLowerCase(), encodeURIComponent(TOKEN).toLowerCase()];
    for (const echoed of variants) {
      const errors = [];
      const rest = fakeFetch(() =>
        json({ message: `bad ${echoed}` }, { status: 401, headers: { 'x-request-id': echoed } }),
      );
      errors.push(
        await client(rest)
          .listRecipients(ids)
          .catch((e) => e),
      );
      const plain = fakeFetch(
        () => new Response(`no ${echoed} here`, { status: 400, headers: { 'content-type': 'text/plain' } }),
      );
      errors.push(
        await client(plain)
          .listRecipients(ids)
          .catch((e) => e),
      );
      const scim = fakeFetch(
        () =>
          new Response(JSON.stringify({ schemas: [SCIM_ERROR], detail: echoed, scimType: echoed }), {
            status: 400,
            headers: { 'content-type': 'application/scim+json' },
          }),
      );
      errors.push(
        await client(scim)
          .scim.listUsers()
          .catch((e) => e),
      );
      const network = fakeFetch(() => Promise.reject(new TypeError('fetch failed', { cause: { code: echoed } })));
      errors.push(
        await client(network, { maxRetries: 0 })
          .listRecipients(ids)
          .catch((e) => e),
      );
      for (const e of errors) assert.ok(e instanceof SvcApiError, String(e));
      assert.match(errors[0].detail, /^bad \[REDACTED\]$/);
      assertNoToken(leakSurface(...errors), echoed);
    }
  });

  test('a token with a character slipped into it is still redacted: BEL, a line break, zero-width characters', async () => {
    const cut = 8;
    for (const slipped of [
      '\u0007',
      '\n',
      '\r\n',
      '\t',
      ' ',
      '\u200b',
      '\u200c',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u200b\u0007 ',
    ]) {
      const echoed = `${TOKEN.slice(0, cut)}${slipped}${TOKEN.slice(cut)}`;
      const errors = [];
      const rest = fakeFetch(() => json({ message: `bad ${echoed} here` }, { status: 401 }));
      errors.push(
        await client(rest)
          .listRecipients(ids)
          .catch((e) => e),
      );
      const plain = fakeFetch(
        () => new Response(`no ${echoed}`, { status: 400, headers: { 'content-type': 'text/plain' } }),
      );
      errors.push(
        await client(plain)
          .listRecipients(ids)
          .catch((e) => e),
      );
      for (const e of errors) assert.ok(e instanceof SvcApiError, String(e));
      assert.equal(errors[0].detail, 'bad [REDACTED] here', JSON.stringify(slipped));
      const surface = leakSurface(...errors);
      assertNoToken(surface, TOKEN);
      // Nor the token's two halves side by side, as a terminal would show them.
      assert.ok(!surface.includes(TOKEN.slice(cut)), JSON.stringify(slipped));
    }
  });

  test('redaction ends at once on any text: no run of line separators or BOMs makes it backtrack', async () => {
    // The first filler had two alternatives that both matched U+2028: 30 of these pairs took longer than a test runs.
    for (const run of ['\u2028\u2029', '\ufeff\n', '\u200b ']) {
      const text = `${TOKEN.slice(0, 3)}${run.repeat(5000)}.`;
      const fetch = fakeFetch(() => json({ message: text }, { status: 401 }));
      const err = await client(fetch)
        .listRecipients(ids)
        .catch((e) => e);
      assert.ok(err instanceof SvcApiError, String(err));
    }
  });

  test('a body cut at 64 KiB inside a token with whitespace slipped into it shows no part of the token', async () => {
    const echoed = `${TOKEN.slice(0, 18)}\n${TOKEN.slice(18)}`;
    // The cut falls just after the line break: what is left of the token before it must go too.
    const body = `${' '.repeat(64 * 1024 - 10 - 19)}bad token ${echoed}${'4'.repeat(100)}`;
    const fetch = fakeFetch(() => new Response(body, { status: 401, headers: { 'content-type': 'text/plain' } }));
    const err = await client(fetch)
      .listRecipients(ids)
      .catch((e) => e);
    assert.ok(err instanceof SvcApiError, String(err));
    const surface = leakSurface(err);
    assert.ok(!surface.includes(TOKEN.slice(0, 12)), surface.slice(0, 300));
  });

  test('a cursor echoing the token with a character slipped in is redacted from the path, URL-encoded as it is', async () => {
    for (const slipped of ['\u0007', '\u200b', ' ', '\ufeff']) {
      const cursor = `${TOKEN.slice(0, 8)}${slipped}${TOKEN.slice(8)}`;
      const fetch = fakeFetch(page([user(1)], info(true, cursor)), json({ message: 'gone' }, { status: 404 }));
      const err = await (async () => drain(client(fetch).recipients(ids)))().catch((e) => e);
      assert.equal(err.status, 404);
      assert.match(err.path, /after=\[REDACTED\]$/, JSON.stringify(slipped));
      assertNoToken(leakSurface(err));
      assert.ok(!leakSurface(err).includes(TOKEN.slice(8)), JSON.stringify(slipped));
    }
    const retried = [];
    const busy = fakeFetch(
      page([user(1)], info(true, TOKEN)),
      json({ message: 'busy' }, { status: 503 }),
      json({ message: 'gone' }, { status: 404 }),
    );
    await (async () =>
      drain(client(busy, { maxRetries: 1, onRetry: (r) => retried.push(r.path) }).recipients(ids)))().catch(() => {});
    assert.equal(retried.length, 1);
    assert.match(retried[0], /after=\[REDACTED\]$/, 'onRetry gets the path redacted too');
  });

  test('the content type is redacted before it is lowercased, and shown as sent', async () => {
    const mixed = `Text/X-${TOKEN}; charset=${TOKEN}`;
    const fetch = fakeFetch(() => new Response('x', { headers: { 'content-type': mixed } }));
    const err = await client(fetch)
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err.field, 'content-type');
    assert.match(err.message, /got content type "Text\/X-\[REDACTED\]"/);
    assertNoToken(leakSurface(err));
  });

  test('a cursor echoing the token is redacted from the failing request path', async () => {
    const fetch = fakeFetch(
      page([user(1)], info(true, TOKEN.toUpperCase())),
      json({ message: 'gone' }, { status: 404 }),
    );
    const err = await (async () => drain(client(fetch).recipients(ids)))().catch((e) => e);
    assert.equal(err.status, 404);
    assert.equal(
      fetch.calls[1].url.searchParams.get('after'),
      TOKEN.toUpperCase(),
      'the cursor itself is sent as given',
    );
    assert.match(err.path, /after=\[REDACTED\]/);
    assertNoToken(leakSurface(err));
    const bad = fakeFetch(page([user(1)], info(true, TOKEN)), page([{ type: 'USER', userId: 'x' }], null));
    const e2 = await (async () => drain(client(bad).recipients(ids)))().catch((e) => e);
    assert.equal(e2.code, 'INVALID_RESPONSE');
    assertNoToken(leakSurface(e2));
  });

  test('bidi and other invisible controls from the server never reach a message', async () => {
    const bidi = 'a\u202Eb\u2066c\u2067d\u2068e\u2069f\u202Ag\u202Bh\u202Ci\u202Dj\u200Ek\u200Fl\u061Cm\u2028n';
    // eslint-disable-next-line no-control-regex -- the pattern lists the control characters a message must not hold
    const unsafe = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
    const errors = [];
    errors.push(
      await client(fakeFetch(() => json({ message: bidi }, { status: 400 })))
        .listRecipients(ids)
        .catch((e) => e),
    );
    errors.push(
      await client(fakeFetch(() => new Response(bidi, { status: 400, headers: { 'content-type': 'text/plain' } })))
        .listRecipients(ids)
        .catch((e) => e),
    );
    errors.push(
      await client(
        fakeFetch(
          () =>
            new Response(JSON.stringify({ schemas: [SCIM_ERROR], detail: bidi, scimType: bidi }), {
              status: 400,
              headers: { 'content-type': 'application/scim+json' },
            }),
        ),
      )
        .scim.listUsers()
        .catch((e) => e),
    );
    errors.push(
      await client(fakeFetch(() => new Response('{}', { headers: { 'content-type': `text/${bidi}` } })))
        .listRecipients(ids)
        .catch((e) => e),
    );
    errors.push(
      await client(
        fakeFetch(() => Promise.reject(new TypeError(bidi, { cause: { code: bidi } }))),
        { maxRetries: 0 },
      )
        .listRecipients(ids)
        .catch((e) => e),
    );
    for (const e of errors) {
      assert.ok(e instanceof SvcApiError, String(e));
      for (const text of [e.message, e.detail ?? '', e.scimType ?? '', e.cause?.message ?? '', e.cause?.code ?? '']) {
        assert.doesNotMatch(text, unsafe, JSON.stringify(text));
      }
    }
    assert.equal(errors[0].detail, 'a b c d e f g h i j k l m n');
  });
});

describe('response bodies are read as capped streams', () => {
  /** A body of `total` bytes in `chunk`-sized pieces of `fill`, counting what was pulled. */
  function counted(total, chunk, fill, tail = '') {
    const stats = { pulled: 0, cancelled: false };
    const piece = new TextEncoder().encode(fill.repeat(Math.ceil(chunk / fill.length)).slice(0, chunk));
    const body = new ReadableStream(
      {
        pull(ctl) {
          if (stats.pulled >= total) {
            if (tail) ctl.enqueue(new TextEncoder().encode(tail));
            ctl.close();
            return;
          }
          stats.pulled += piece.byteLength;
          ctl.enqueue(piece);
        },
        cancel() {
          stats.cancelled = true;
        },
      },
      { highWaterMark: 0 },
    );
    return { body, stats };
  }

  test('an error body is read to 64 KiB at most, then cancelled; its start is still the detail', async () => {
    const { body, stats } = counted(8 * 1024 * 1024, 16 * 1024, 'quota exceeded ');
    const fetch = fakeFetch(() => new Response(body, { status: 400, headers: { 'content-type': 'text/plain' } }));
    const err = await client(fetch)
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err.status, 400);
    assert.match(err.detail, /^quota exceeded quota exceeded/);
    assert.ok(stats.pulled <= 64 * 1024 + 2 * 16 * 1024, `pulled ${stats.pulled} bytes`);
    assert.equal(stats.cancelled, true, 'the rest of the body was cancelled');
  });

  test('a success body over 16 MiB raises INVALID_RESPONSE naming the cap, and is cancelled', async () => {
    // Valid JSON (leading whitespace), so only the size is wrong.
    const { body, stats } = counted(17 * 1024 * 1024, 1024 * 1024, ' ', '{"items":[],"pageInfo":null}');
    const fetch = fakeFetch(() => new Response(body, { headers: { 'content-type': 'application/json' } }));
    const err = await client(fetch)
      .listRecipients(ids)
      .then(
        () => assert.fail('a 17 MiB body was accepted'),
        (e) => e,
      );
    assert.equal(err.code, 'INVALID_RESPONSE');
    assert.equal(err.field, 'body');
    assert.match(err.message, /exceeds the 16 MiB cap/);
    assert.ok(stats.pulled <= 18 * 1024 * 1024, `pulled ${stats.pulled} bytes`);
    assert.equal(stats.cancelled, true);
    assert.equal(fetch.calls.length, 1, 'not retried');
    // Just under the cap is fine.
    const ok = counted(2 * 1024 * 1024, 1024 * 1024, ' ', '{"items":[],"pageInfo":null}');
    const res = await client(
      fakeFetch(() => new Response(ok.body, { headers: { 'content-type': 'application/json' } })),
    ).listRecipients(ids);
    assert.deepEqual(res.items, []);
  });

  test('an abort while an error body is being read rejects with the abort reason', async () => {
    let cancelled = false;
    const fetch = fakeFetch(
      () =>
        new Response(
          new ReadableStream({
            start(ctl) {
              ctl.enqueue(new TextEncoder().encode('{"message":"slow'));
            },
            cancel() {
              cancelled = true;
            },
          }),
          { status: 400, headers: { 'content-type': 'application/json' } },
        ),
    );
    const ctrl = new AbortController();
    const reason = new Error('user cancelled');
    const pending = client(fetch).listRecipients({ ...ids, signal: ctrl.signal });
    setTimeout(() => ctrl.abort(reason), 20);
    await assert.rejects(pending, (e) => e === reason);
    assert.equal(fetch.calls.length, 1);
    assert.equal(cancelled, true, 'the body stream was cancelled');
  });

  test('a timeout while an error body is being read still raises the HTTP error', async () => {
    const fetch = fakeFetch(
      () =>
        new Response(
          new ReadableStream({
            start(ctl) {
              ctl.enqueue(new TextEncoder().encode('{'));
            },
          }),
          { status: 403, headers: { 'content-type': 'application/json' } },
        ),
    );
    const err = await client(fetch, { timeoutMs: 30 })
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err.status, 403);
    assert.equal(err.detail, undefined);
  });
});

describe('pagination always ends', () => {
  test('recipients() stops at maxPages with PAGINATION_ERROR (a server with fresh cursors forever)', async () => {
    let n = 0;
    const fetch = fakeFetch(() => {
      if (++n > 50) throw new Error('runaway iteration');
      return page([user(n)], info(true, `fresh-${n}`));
    });
    const got = [];
    await assert.rejects(
      async () => {
        for await (const r of client(fetch).recipients({ ...ids, maxPages: 3 })) got.push(r.userId);
      },
      (err) => err instanceof SvcApiError && err.code === 'PAGINATION_ERROR' && /maxPages \(3\)/.test(err.message),
    );
    assert.deepEqual(got, [1, 2, 3]);
    assert.equal(fetch.calls.length, 3);
    // A listing that ends exactly at maxPages is complete, not an error.
    const exact = fakeFetch(page([user(1)], info(true, 'a')), page([user(2)], info(false, null)));
    const all = [];
    for await (const r of client(exact).recipients({ ...ids, maxPages: 2 })) all.push(r.userId);
    assert.deepEqual(all, [1, 2]);
    for (const [maxPages, type] of [
      [0, RangeError],
      [1.5, RangeError],
      ['3', TypeError],
    ]) {
      assert.throws(() => client(fakeFetch()).recipients({ ...ids, maxPages }), type);
    }
  });

  test('recipients() stops after 10,000 pages by default', async () => {
    let n = 0;
    const body = (i) => JSON.stringify({ items: [], pageInfo: info(true, `c${i}`) });
    const fetch = async () => {
      if (++n > 10_001) throw new Error('runaway iteration');
      // Non-empty every third page, so the empty-page guard does not end it first.
      return new Response(n % 3 ? body(n) : JSON.stringify({ items: [user(n)], pageInfo: info(true, `c${n}`) }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const err = await (async () => drain(client(fetch).recipients(ids)))().catch((e) => e);
    assert.equal(err.code, 'PAGINATION_ERROR');
    assert.match(err.message, /maxPages \(10000\)/);
    assert.equal(n, 10_000);
  });

  const scimUser = (i) => ({ id: `id-${i}`, userName: `user${i}` });
  const scimPage = (users, totalResults, extra = {}) =>
    json({ schemas: [SCIM_LIST], totalResults, Resources: users, ...extra });

  test('scim.users(): a page whose startIndex is not the one requested raises PAGINATION_ERROR naming startIndex', async () => {
    // A server that ignores startIndex and always answers with the first page.
    const fetch = fakeFetch(() => scimPage([scimUser(1), scimUser(2)], 5, { startIndex: 1 }));
    const got = [];
    await assert.rejects(
      async () => {
        for await (const u of client(fetch).scim.users({ count: 2 })) got.push(u.id);
      },
      (err) => {
        assert.ok(err instanceof SvcApiError);
        assert.equal(err.code, 'PAGINATION_ERROR');
        assert.equal(err.field, 'startIndex');
        assert.match(err.message, /startIndex 1 but startIndex 3 was requested/);
        return true;
      },
    );
    assert.deepEqual(got, ['id-1', 'id-2'], 'no user twice');
    assert.equal(fetch.calls.length, 2);
  });

  test('scim.users(): never yields more users than totalResults', async () => {
    // startIndex omitted by the server, pages larger than what is left.
    const fetch = fakeFetch((url) => {
      const start = Number(url.searchParams.get('startIndex'));
      return scimPage([start, start + 1, start + 2].map(scimUser), 4);
    });
    const got = [];
    for await (const u of client(fetch).scim.users({ count: 3 })) got.push(u.id);
    assert.deepEqual(got, ['id-1', 'id-2', 'id-3', 'id-4']);
    assert.equal(fetch.calls.length, 2);
    const late = fakeFetch(scimPage([scimUser(3), scimUser(4), scimUser(5)], 4, { startIndex: 3 }));

    const tail = [];
    for await (const u of client(late).scim.users({ startIndex: 3 })) tail.push(u.id);
    assert.deepEqual(tail, ['id-3', 'id-4']);
  });

  test('scim.users(): stops at maxPages even when totalResults keeps growing', async () => {
    const fetch = fakeFetch((url) => {
      const start = Number(url.searchParams.get('startIndex'));
      if (start > 50) throw new Error('runaway iteration');
      return scimPage([scimUser(start)], start + 1, { startIndex: start });
    });
    const got = [];
    await assert.rejects(
      async () => {
        for await (const u of client(fetch).scim.users({ count: 1, maxPages: 4 })) got.push(u.id);
      },
      (err) => err instanceof SvcApiError && err.code === 'PAGINATION_ERROR' && /maxPages \(4\)/.test(err.message),
    );
    assert.deepEqual(got, ['id-1', 'id-2', 'id-3', 'id-4']);
    assert.equal(fetch.calls.length, 4);
    assert.throws(() => client(fakeFetch()).scim.users({ maxPages: 0 }), RangeError);
  });
});
