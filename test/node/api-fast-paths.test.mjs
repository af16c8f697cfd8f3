// The REST client's fast paths (issue 11) keep every behaviour of the slow ones: the item iterators
// behave as async generators, recipient fields count only as own properties even when Object.prototype
// is polluted, and response bodies read in one chunk or in many, with one abort for the whole read.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcApiError, SvcClient } from '@svc-embed/api';
import { runInNewContext } from 'node:vm';
import { isPlainObject } from '@svc-embed/protocol';
import { PageItems } from '../../packages/api/dist/items.js';
import { parseRecipientsPage } from '../../packages/api/dist/validate.js';

const BASE = 'https://acme.example.com/api';
const TOKEN = 'sk_live.Secret-Token_0123456789';
const ids = { deploymentId: 1, notificationId: 10 };
const SCIM_LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';

const json = (body) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
const user = (id) => ({ type: 'USER', userId: id, email: `u${id}@example.com`, username: `u${id}` });
const info = (hasNextPage, endCursor) => ({ hasNextPage, hasPreviousPage: false, startCursor: null, endCursor });

/** A fetch over pages of recipients (each an array of ids), recording every request. */
function pagedFetch(pages, { failOn } = {}) {
  const calls = [];
  const fetch = async (url) => {
    calls.push(new URL(url));
    const n = calls.length - 1;
    if (n === failOn)
      return new Response('{"message":"boom"}', { status: 500, headers: { 'content-type': 'application/json' } });
    const last = n === pages.length - 1;
    return json({ items: pages[n].map(user), pageInfo: info(!last, last ? null : `c${n + 1}`) });
  };
  fetch.calls = calls;
  return fetch;
}

const client = (fetch) => new SvcClient({ baseUrl: BASE, token: TOKEN, fetch, maxRetries: 0 });
const values = (results) => results.map((r) => (r.done ? 'done' : r.value.userId));

describe('the item iterators behave as async generators', () => {
  test('no request before the first next(); concurrent next() calls answer in order, each item once', async () => {
    const fetch = pagedFetch([
      [1, 2],
      [3, 4],
    ]);
    const it = client(fetch).recipients(ids);
    assert.equal(fetch.calls.length, 0);
    assert.equal(it[Symbol.asyncIterator](), it);
    const results = await Promise.all([it.next(), it.next(), it.next(), it.next(), it.next(), it.next()]);
    assert.deepEqual(values(results), [1, 2, 3, 4, 'done', 'done']);
    assert.equal(fetch.calls.length, 2);
  });

  test('return() in the middle of a page ends it: no further request, then only done', async () => {
    const fetch = pagedFetch([[1, 2], [3]]);
    const it = client(fetch).recipients(ids);
    assert.equal((await it.next()).value.userId, 1);
    assert.deepEqual(await it.return(), { value: undefined, done: true });
    assert.deepEqual(await it.next(), { value: undefined, done: true });
    assert.equal(fetch.calls.length, 1);
    // Before the first next(), return() sends nothing at all.
    const idle = pagedFetch([[1]]);
    const unused = client(idle).recipients(ids);
    assert.deepEqual(await unused.return(), { value: undefined, done: true });
    assert.deepEqual(await unused.next(), { value: undefined, done: true });
    assert.equal(idle.calls.length, 0);
  });

  test('return() waits for a next() in flight, in call order', async () => {
    const fetch = pagedFetch([[1, 2], [3]]);
    const it = client(fetch).recipients(ids);
    const order = [];
    const first = it.next().then((r) => order.push(`next ${r.value.userId}`));
    const end = it.return().then((r) => order.push(`return ${r.done}`));
    await Promise.all([first, end]);
    assert.deepEqual(order, ['next 1', 'return true']);
    assert.equal(fetch.calls.length, 1);
  });

  test('a next() made while return() is still settling waits for it, and is done', async () => {
    const fetch = pagedFetch([[1, 2, 3]]);
    const it = client(fetch).recipients(ids);
    await it.next();
    const [ended, after] = await Promise.all([it.return(), it.next()]);
    assert.equal(ended.done, true);
    assert.deepEqual(after, { value: undefined, done: true });
  });

  test('throw() rejects with its error and ends the iteration without a further request', async () => {
    const fetch = pagedFetch([[1, 2], [3]]);
    const it = client(fetch).recipients(ids);
    await it.next();
    const error = new Error('stop');
    await assert.rejects(it.throw(error), (e) => e === error);
    assert.deepEqual(await it.next(), { value: undefined, done: true });
    assert.equal(fetch.calls.length, 1);
  });

  test('a failing page surfaces after the earlier items, and then the iteration is done', async () => {
    const fetch = pagedFetch([[1, 2], [3]], { failOn: 1 });
    const it = client(fetch).recipients(ids);
    assert.deepEqual(values([await it.next(), await it.next()]), [1, 2]);
    await assert.rejects(it.next(), (e) => e instanceof SvcApiError && e.status === 500);
    assert.deepEqual(await it.next(), { value: undefined, done: true });
    assert.equal(fetch.calls.length, 2);
  });

  test('empty pages are stepped over; scim.users() iterates the same way', async () => {
    const fetch = pagedFetch([[1], [], [2]]);
    const got = [];
    for await (const r of client(fetch).recipients(ids)) got.push(r.userId);
    assert.deepEqual(got, [1, 2]);

    const scimCalls = [];
    const scimFetch = async (url) => {
      const start = Number(new URL(url).searchParams.get('startIndex'));
      scimCalls.push(start);
      const all = ['a', 'b', 'c'];
      const Resources = all.slice(start - 1, start + 1).map((id) => ({ id, userName: `${id}@example.com` }));
      return new Response(
        JSON.stringify({
          schemas: [SCIM_LIST],
          totalResults: 3,
          startIndex: start,
          itemsPerPage: Resources.length,
          Resources,
        }),
        { headers: { 'content-type': 'application/scim+json' } },
      );
    };
    const users = client(scimFetch).scim.users({ count: 2 });
    const results = await Promise.all([users.next(), users.next(), users.next(), users.next()]);
    assert.deepEqual(
      results.map((r) => (r.done ? 'done' : r.value.id)),
      ['a', 'b', 'c', 'done'],
    );
    assert.deepEqual(scimCalls, [1, 3]);
  });
});

describe("PageItems.all, the CLI's whole listing a page at a time, collects what for await collects", () => {
  test('the same items in the same order, the same requests; after it, only done', async () => {
    const pages = [[1, 2], [], [3, 4, 5], [6]];
    const viaLoop = pagedFetch(pages);
    const looped = [];
    for await (const r of client(viaLoop).recipients(ids)) looped.push(r);
    const viaAll = pagedFetch(pages);
    const it = client(viaAll).recipients(ids);
    const all = await PageItems.all(it);
    assert.deepEqual(all, looped);
    assert.deepEqual(
      all.map((r) => r.userId),
      [1, 2, 3, 4, 5, 6],
    );
    assert.deepEqual(viaAll.calls.map(String), viaLoop.calls.map(String));
    assert.deepEqual(await it.next(), { value: undefined, done: true });
  });

  test('after some next() calls, and after a next() still in flight: the rest, each item once', async () => {
    const fetch = pagedFetch([[1, 2, 3], [4]]);
    const it = client(fetch).recipients(ids);
    assert.equal((await it.next()).value.userId, 1);
    const [second, rest] = await Promise.all([it.next(), PageItems.all(it)]);
    assert.equal(second.value.userId, 2);
    assert.deepEqual(
      rest.map((r) => r.userId),
      [3, 4],
    );
  });

  test('a failing page rejects with its error, and the iteration is then done', async () => {
    const fetch = pagedFetch([[1, 2], [3]], { failOn: 1 });
    const it = client(fetch).recipients(ids);
    await assert.rejects(PageItems.all(it), (e) => e instanceof SvcApiError && e.status === 500);
    assert.deepEqual(await it.next(), { value: undefined, done: true });
    assert.equal(fetch.calls.length, 2);
  });

  test('any other async iterable is read item by item', async () => {
    async function* gen() {
      yield 'a';
      yield ['b'];
    }
    assert.deepEqual(await PageItems.all(gen()), ['a', ['b']]);
  });
});

describe('recipient fields are own properties only', () => {
  test('with Object.prototype polluted, a missing field is still null and a missing type still refused', async () => {
    const names = ['type', 'userId', 'email', 'username', 'channelName'];
    for (const name of names) Object.prototype[name] = name === 'userId' ? 7 : 'polluted';
    try {
      const items = [
        { type: 'USER', userId: 1 },
        { type: 'SLACK', channelId: 'C1' },
        { type: 'EMBED_USER', embedUserId: 2, email: 'e@example.com', username: 'e' },
      ];
      const res = await client(async () => json({ items, pageInfo: null })).listRecipients(ids);
      assert.deepEqual(
        res.items.map((r) => ({ ...r })),
        [
          { type: 'USER', userId: 1, email: null, username: null },
          { type: 'SLACK', channelId: 'C1', channelName: null, username: null },
          {
            type: 'EMBED_USER',
            embedUserId: 2,
            embedTenantName: null,
            externalId: null,
            email: 'e@example.com',
            username: 'e',
          },
        ],
      );
      const err = await client(async () => json({ items: [{ userId: 1 }], pageInfo: null }))
        .listRecipients(ids)
        .catch((e) => e);
      assert.equal(err.code, 'INVALID_RESPONSE');
      assert.equal(err.field, 'items[0].type');
    } finally {
      for (const name of names) delete Object.prototype[name];
    }
  });

  test('an own "__proto__" key of a known kind is neither a field nor the prototype', async () => {
    const body = '{"items":[{"type":"USER","userId":1,"__proto__":{"email":"x@example.com"}}],"pageInfo":null}';
    const res = await client(
      async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
    ).listRecipients(ids);
    assert.deepEqual({ ...res.items[0] }, { type: 'USER', userId: 1, email: null, username: null });
    assert.equal(Object.getPrototypeOf(res.items[0]), Object.prototype);
  });

  test('an item is an object as isPlainObject says, with the check for what JSON.parse makes answered first', () => {
    const kinds = {
      'JSON.parse': JSON.parse('{"type":"USER","userId":1}'),
      'a null prototype': Object.assign(Object.create(null), { type: 'USER', userId: 1 }),
      'another realm': runInNewContext('({ type: "USER", userId: 1 })'),
      'an array': Object.assign([], { type: 'USER', userId: 1 }),
      'a class instance': Object.assign(new (class Recipient {})(), { type: 'USER', userId: 1 }),
      'a Map': Object.assign(new Map(), { type: 'USER', userId: 1 }),
      'an object over a plain object': Object.assign(Object.create({}), { type: 'USER', userId: 1 }),
      'Object.create(Object.prototype)': Object.assign(Object.create(Object.prototype), { type: 'USER', userId: 1 }),
      'an own "__proto__" key': JSON.parse('{"type":"USER","userId":1,"__proto__":[]}'),
      'a Proxy of a plain object': new Proxy({ type: 'USER', userId: 1 }, {}),
      'a Proxy whose prototype is an array': new Proxy({ type: 'USER', userId: 1 }, { getPrototypeOf: () => [] }),
    };
    for (const [kind, item] of Object.entries(kinds)) {
      let accepted;
      try {
        accepted = parseRecipientsPage({ items: [item], pageInfo: null }).items[0].userId === 1;
      } catch (err) {
        assert.equal(err.field, 'items[0]', kind);
        accepted = false;
      }
      assert.equal(accepted, isPlainObject(item), kind);
    }
    assert.deepEqual(
      Object.entries(kinds)
        .filter(([, item]) => isPlainObject(item))
        .map(([kind]) => kind),
      [
        'JSON.parse',
        'a null prototype',
        'another realm',
        'Object.create(Object.prototype)',
        'an own "__proto__" key',
        'a Proxy of a plain object',
      ],
    );
  });

  test('the first bad field in declaration order is the one named, with its item index', async () => {
    const items = [user(1), { type: 'SLACK', email: 5, channelName: 6 }, { type: 'USER', userId: 1.5 }];
    const err = await client(async () => json({ items, pageInfo: null }))
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err.field, 'items[1].email');
    assert.match(err.message, /items\[1\]\.email must be a string or null/);
    const err2 = await client(async () =>
      json({ items: [user(1), user(2), { type: 'USER', userId: 1.5 }], pageInfo: null }),
    )
      .listRecipients(ids)
      .catch((e) => e);
    assert.equal(err2.field, 'items[2].userId');
  });
});

describe('response bodies in one read or in many', () => {
  test('a body in many small chunks, with characters split between chunks, decodes as one', async () => {
    const text = JSON.stringify({
      items: Array.from({ length: 50 }, (_, i) => ({ type: 'SLACK', channelName: `kanal-ø-€-😀-${i}` })),
      pageInfo: null,
    });
    const bytes = new TextEncoder().encode(text);
    let at = 0;
    const body = new ReadableStream(
      {
        pull(ctl) {
          if (at >= bytes.length) return ctl.close();
          ctl.enqueue(bytes.slice(at, at + 7));
          at += 7;
        },
      },
      { highWaterMark: 0 },
    );
    const res = await client(
      async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
    ).listRecipients(ids);
    assert.deepEqual(
      res.items.map((r) => r.channelName),
      JSON.parse(text).items.map((i) => i.channelName),
    );
  });

  test(
    'an abort while a success body is read rejects with its reason at once, and cancels the body',
    { timeout: 30_000 },
    async () => {
      let cancelled = false;
      const body = new ReadableStream({
        start(ctl) {
          ctl.enqueue(new TextEncoder().encode('{"items":['));
        },
        // Never enqueues more: only the abort can end the read.
        pull() {
          return new Promise(() => {});
        },
        cancel() {
          cancelled = true;
        },
      });
      const ctrl = new AbortController();
      const reason = new Error('user cancelled');
      const pending = client(
        async () => new Response(body, { headers: { 'content-type': 'application/json' } }),
      ).listRecipients({ ...ids, signal: ctrl.signal });
      setTimeout(() => ctrl.abort(reason), 20);
      await assert.rejects(pending, (e) => e === reason);
      assert.equal(cancelled, true);
    },
  );
});

// The command's faster ways to write a page (packages/api/src/cli/format.ts, commands/recipients.ts) against the
// text of the general ones, on recipients whose fields hold what a formula guard, a quote or a join must handle.
describe("the command's CSV lines and NDJSON pages: the faster ways give the general text", async () => {
  const { csvLine, ndjsonPage } = await import('../../packages/api/dist/cli/format.js');
  const { recipientCsv } = await import('../../packages/api/dist/cli/commands/recipients.js');
  const { RECIPIENT_FIELDS, parseRecipientsPage } = await import('../../packages/api/dist/validate.js');
  const TRICKY = [
    '',
    ' ',
    'plain',
    '=1+1',
    ' =cmd',
    '+x',
    '-x',
    '@x',
    '\uff1dx',
    'a,b',
    'say "hi"',
    'a\nb',
    'tab\there',
    '},{',
    '{"a":1},{"b":2}',
    'caf\u00e9',
    '\u202eevil',
    'x\x7f',
    null,
    undefined,
  ];
  // mulberry32: the same pseudo-random recipients on every run.
  let seed = 7;
  const random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = (list) => list[Math.floor(random() * list.length)];
  const value = () => pick([...TRICKY, 'user@example.com', 'C0AB12']);
  const id = () => pick([null, 1, 42, -5, 9007199254740991]);
  function item() {
    switch (pick(['USER', 'EMBED_USER', 'SLACK', 'TEAMS'])) {
      case 'USER':
        return { type: 'USER', userId: id(), email: value(), username: value() };
      case 'EMBED_USER':
        return {
          type: 'EMBED_USER',
          embedUserId: id(),
          embedTenantName: value(),
          externalId: value(),
          email: value(),
          username: value(),
        };
      case 'SLACK':
        return { type: 'SLACK', channelId: value(), channelName: value(), username: value() };
      default:
        return { type: 'TEAMS', email: value(), nested: [{ a: value() }, { b: [value(), { c: value() }] }], n: id() };
    }
  }
  const pages = Array.from(
    { length: 60 },
    () => parseRecipientsPage({ items: Array.from({ length: 40 }, item), pageInfo: null }).items,
  );
  const record = (r) => (r.type === 'UNKNOWN' ? r.raw : r);

  test('a recipient of every kind: its CSV line is the line by column', () => {
    const kinds = new Set();
    for (const page of pages)
      for (const r of page) {
        kinds.add(r.type);
        assert.equal(recipientCsv(r), csvLine(RECIPIENT_FIELDS, record(r)), JSON.stringify(record(r)));
      }
    assert.deepEqual([...kinds].sort(), ['EMBED_USER', 'SLACK', 'UNKNOWN', 'USER']);
  });

  test('a page of records: one JSON.stringify gives the lines of one call per record, also when a string or a nested value holds "},{"', () => {
    // A page of ordinary recipients takes the one-call way; the pages above hold "},{" in strings or nested values.
    const ordinary = parseRecipientsPage({
      items: Array.from({ length: 50 }, (_, i) => ({
        type: 'USER',
        userId: i,
        email: `u${i}@example.com`,
        username: `u${i}`,
      })),
      pageInfo: null,
    }).items;
    // Empty objects too: "{},{}" splits into "{" and "}".
    const empty = [{}, {}, { a: {} }, {}];
    for (const page of [...pages, ordinary, ordinary.slice(0, 1), []]) {
      const values = page.map(record);
      values.push(...empty);
      const expected = values.map((v) => `${JSON.stringify(v)}\n`).join('');
      assert.equal(ndjsonPage(values, true), expected);
      assert.equal(ndjsonPage(values, false), expected);
    }
  });

  test('a toJSON that code put on Object.prototype: NDJSON is still one call per record', () => {
    const values = Array.from({ length: 5 }, (_, i) => ({ type: 'USER', userId: i }));
    Object.defineProperty(Object.prototype, 'toJSON', {
      value() {
        // An array becomes as many empty objects: joined by "},{", as the records would be.
        return Array.isArray(this) ? this.map(() => ({})) : { seen: this.userId };
      },
      configurable: true,
    });
    try {
      const expected = values.map((v) => `${JSON.stringify(v)}\n`).join('');
      assert.match(expected, /^\{"seen":0\}\n/);
      assert.equal(ndjsonPage(values, true), expected);
    } finally {
      delete Object.prototype.toJSON;
    }
  });
});

describe("the command's JSON escape leaves JSON's own whitespace out of its pattern", async () => {
  const { UNSAFE_CHARS } = await import('@svc-embed/protocol');
  const { escapeUnsafeJson } = await import('../../packages/api/dist/text.js');
  // The general form: every unsafe character matched, the C0 controls handed back as they are.
  const all = new RegExp(UNSAFE_CHARS.source, 'gu');
  const general = (text) =>
    text.replace(all, (c) => (c < ' ' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));

  test('every UTF-16 code unit alone, between text and as a lone or paired surrogate: the same text', () => {
    for (let u = 0; u <= 0xffff; u++) {
      const c = String.fromCharCode(u);
      for (const text of [c, `a${c}b`, `${c}${c}`])
        assert.equal(escapeUnsafeJson(text), general(text), `U+${u.toString(16).padStart(4, '0')}`);
    }
    for (const text of ['\ud83d\ude00', 'a\ud800', '\udc00b', '\udc00\ud800', '\ud800\ud800\udc00', '\u{10ffff}'])
      assert.equal(escapeUnsafeJson(text), general(text), JSON.stringify(text));
  });

  test('a page of JSON, indented, with names beyond ASCII and every unsafe character in its strings', () => {
    const names = [
      'Jos\u00e9',
      'Zo\u00eb\u202e',
      'a\u2028b',
      'x\x7fy\x85',
      '\ufeff\u061c\u200b',
      'lone \ud800',
      'tab\there',
    ];
    const page = JSON.stringify(
      names.map((username, i) => ({ type: 'USER', userId: i, username })),
      null,
      2,
    );
    const escaped = escapeUnsafeJson(page);
    assert.equal(escaped, general(page));
    assert.deepEqual(JSON.parse(escaped), JSON.parse(page));
    assert.doesNotMatch(escaped.replace(/\n/g, ''), new RegExp(UNSAFE_CHARS.source, 'u'));
  });
});
