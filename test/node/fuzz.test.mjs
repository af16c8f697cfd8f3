// Property-based tests (fast-check) of the protocol module, the embed URL and the REST page validators.
// FUZZ_RUNS sets the runs per property (default 10,000). A failure prints its seed and path; replay it with
// FUZZ_SEED=<seed> FUZZ_PATH=<path> npm run fuzz.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ACTION_TYPES,
  AI_QUERY_STATUSES,
  AUTH_MODES,
  COLOR_SCHEMES,
  DOWNLOAD_FORMATS,
  DOWNLOAD_TARGETS,
  EVENT_TYPES,
  SURFACES,
  buildAction,
  buildEvent,
  filterParam,
  parseFilterParam,
  pathProblem,
  validateAction,
  validateEvent,
} from 'svc-embed/protocol';
import { resolveEmbedUrl } from '../../dist/embed-url.js';
import { parseRecipientsPage, parseScimList } from '../../packages/api/dist/validate.js';
import { SvcApiError } from '@svc-embed/api';

const numRuns = Number(process.env.FUZZ_RUNS || 10_000);
fc.configureGlobal({
  numRuns,
  ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
  ...(process.env.FUZZ_PATH ? { path: process.env.FUZZ_PATH } : {}),
});

// ---- the event payload tables (docs/protocol.md, "Events"), written out here independently of the validator

const FIELDS = {
  'svc:event:ready': ['embedTenant', 'deploymentId', 'mode', 'surface', 'publicId'],
  'svc:event:view': ['surface', 'path', 'publicId', 'title'],
  'svc:event:navigate': ['path', 'previousPath'],
  'svc:event:dashboard-loaded': ['publicId', 'widgetCount', 'loadDurationMs'],
  'svc:event:download': ['format', 'target', 'widgetId', 'title', 'rowCount'],
  'svc:event:drilldown': ['member', 'value', 'widgetId'],
  'svc:event:ai-query': ['query', 'status', 'chatId', 'agentId'],
  'svc:event:error': ['message', 'name', 'context', 'fatal'],
};
const ENVELOPE_KEYS = ['source', 'direction', 'type', 'payload', 'timestamp', 'surface'];
const VOCABULARY = new Set([
  ...Object.keys(FIELDS),
  ...Object.values(FIELDS).flat(),
  ...ENVELOPE_KEYS,
  ...ACTION_TYPES,
  ...SURFACES,
  ...AUTH_MODES,
  ...DOWNLOAD_FORMATS,
  ...DOWNLOAD_TARGETS,
  ...AI_QUERY_STATUSES,
  ...COLOR_SCHEMES,
  'svc-embed',
  'event',
  'action',
]);

// ---- arbitraries

const str = fc.string({ maxLength: 24 });
const text = fc.oneof(str, fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom(...VOCABULARY));
const num = fc.oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }));
const json = fc.jsonValue({ maxDepth: 4 });
const noProtoKeys = (v) => !JSON.stringify(v ?? null).match(/"(__proto__|constructor|prototype)":/);

/** The valid payload of each event type: required fields always, optional ones sometimes. */
const PAYLOADS = {
  'svc:event:ready': fc.record(
    {
      embedTenant: fc.option(text, { nil: null }),
      deploymentId: fc.option(num, { nil: null }),
      mode: fc.constantFrom(...AUTH_MODES),
      surface: fc.constantFrom(...SURFACES),
      publicId: text,
    },
    { requiredKeys: ['embedTenant', 'deploymentId', 'mode', 'surface'] },
  ),
  'svc:event:view': fc.record(
    { surface: fc.constantFrom(...SURFACES), path: text, publicId: text, title: text },
    { requiredKeys: ['surface', 'path'] },
  ),
  'svc:event:navigate': fc.record({ path: text, previousPath: text }, { requiredKeys: ['path'] }),
  'svc:event:dashboard-loaded': fc.record(
    { publicId: text, widgetCount: num, loadDurationMs: num },
    { requiredKeys: [] },
  ),
  'svc:event:download': fc.record(
    {
      format: fc.constantFrom(...DOWNLOAD_FORMATS),
      target: fc.constantFrom(...DOWNLOAD_TARGETS),
      widgetId: text,
      title: text,
      rowCount: num,
    },
    { requiredKeys: ['format', 'target'] },
  ),
  'svc:event:drilldown': fc.record(
    { member: text, value: json.filter(noProtoKeys), widgetId: text },
    { requiredKeys: ['member'] },
  ),
  'svc:event:ai-query': fc.record(
    { query: text, status: fc.constantFrom(...AI_QUERY_STATUSES), chatId: text, agentId: text },
    { requiredKeys: ['query', 'status'] },
  ),
  'svc:event:error': fc.record(
    { message: text, name: text, context: text, fatal: fc.boolean() },
    { requiredKeys: ['message'] },
  ),
};
const validEvent = fc
  .constantFrom(...EVENT_TYPES)
  .chain((type) => fc.tuple(fc.constant(type), fc.constantFrom(...SURFACES), PAYLOADS[type]));

/** Turns an object somewhere inside `value` into something hostile. */
function poison(value, kind) {
  const make = {
    getter: () =>
      Object.defineProperty({}, 'payload', {
        enumerable: true,
        get() {
          throw new Error('getter');
        },
      }),
    proxy: () =>
      new Proxy(
        {},
        {
          get() {
            throw new Error('trap');
          },
          has() {
            throw new Error('trap');
          },
          ownKeys() {
            throw new Error('trap');
          },
          getPrototypeOf() {
            throw new Error('trap');
          },
          getOwnPropertyDescriptor() {
            throw new Error('trap');
          },
        },
      ),
    cycle: () => {
      const o = { source: 'svc-embed', direction: 'event', type: 'svc:event:drilldown', timestamp: 1, surface: 'app' };
      o.payload = { member: 'm', value: o };
      o.self = o;
      return o;
    },
    proto: () =>
      JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"x": 1}}, "prototype": 1}'),
  }[kind];
  if (value === null || typeof value !== 'object') return make();
  const keys = Object.keys(value);
  if (!keys.length) return make();
  const copy = Array.isArray(value) ? [...value] : { ...value };
  copy[keys[0]] = poison(value[keys[0]], kind);
  return copy;
}
const hostileKind = fc.constantFrom('getter', 'proxy', 'cycle', 'proto');

/** An envelope with every field possibly broken, so validation goes deep as often as it stops early. */
const envelopeLike = fc.record(
  {
    source: fc.oneof(fc.constant('svc-embed'), text),
    direction: fc.oneof(fc.constant('event'), fc.constant('action'), text),
    type: fc.oneof(fc.constantFrom(...EVENT_TYPES), text),
    payload: fc.oneof(
      json,
      fc.constantFrom(...EVENT_TYPES).chain((t) => PAYLOADS[t]),
    ),
    timestamp: fc.oneof(num, fc.constant(NaN), fc.constant(Infinity), text),
    surface: fc.oneof(fc.constantFrom(...SURFACES), text),
  },
  { requiredKeys: [] },
);
const anyInput = fc.oneof(fc.anything(), json, envelopeLike);

function strings(value, out = [], seen = new Set()) {
  if (typeof value === 'string') out.push(value);
  else if (value && typeof value === 'object' && !seen.has(value)) {
    seen.add(value);
    for (const k of Object.keys(value)) {
      out.push(k);
      strings(value[k], out, seen);
    }
  }
  return out;
}

// ---- validateEvent

test('validateEvent never throws, for any value and for hostile objects', () => {
  fc.assert(
    fc.property(anyInput, (input) => {
      validateEvent(input);
    }),
  );
  fc.assert(
    fc.property(fc.oneof(envelopeLike, json), hostileKind, (input, kind) => {
      const result = validateEvent(poison(input, kind));
      assert.equal(typeof result.ok, 'boolean');
    }),
  );
});

test('validateEvent accepts every event buildEvent produces, and returns it unchanged', () => {
  fc.assert(
    fc.property(validEvent, ([type, surface, payload]) => {
      const built = buildEvent(type, surface, payload);
      const result = validateEvent(structuredClone(built));
      assert.equal(result.ok, true, result.reason);
      assert.deepEqual(result.message, built);
    }),
  );
});

test('validateEvent output never holds a key outside the spec field table', () => {
  fc.assert(
    fc.property(
      fc.oneof(
        envelopeLike,
        validEvent.map(([type, surface, payload]) => ({
          source: 'svc-embed',
          direction: 'event',
          type,
          surface,
          timestamp: 1,
          payload: { ...payload, extra: 1, __proto__x: 2 },
        })),
      ),
      (input) => {
        const result = validateEvent(input);
        if (!result.ok) return;
        assert.deepEqual(Object.keys(result.message).sort(), [...ENVELOPE_KEYS].sort());
        for (const key of Object.keys(result.message.payload))
          assert.ok(FIELDS[result.message.type].includes(key), key);
      },
    ),
  );
});

test('a rejection reason never echoes input data', () => {
  fc.assert(
    fc.property(anyInput, (input) => {
      const result = validateEvent(input);
      if (result.ok) return;
      for (const s of strings(input)) {
        if (s.length >= 8 && !VOCABULARY.has(s))
          assert.ok(!result.reason.includes(s), `reason "${result.reason}" echoes input`);
      }
      if ('type' in result) assert.ok(EVENT_TYPES.includes(result.type));
    }),
  );
});

// ---- actions and filters

const ident = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,12}$/);
const validAction = fc.oneof(
  fc.constantFrom(...COLOR_SCHEMES).map((scheme) => ['svc:action:set-color-scheme', { scheme }]),
  fc
    .dictionary(str, json, { maxKeys: 5, noNullPrototype: true })
    .filter(noProtoKeys)
    .map((theme) => ['svc:action:set-theme', theme]),
  fc
    .constantFrom('en', 'de-DE', 'pt-BR', 'zh-Hant-TW', 'ja', 'sr-Latn-RS', 'es-419')
    .map((locale) => ['svc:action:set-locale', { locale }]),
  fc
    .tuple(ident, ident, json.filter(noProtoKeys))
    .map(([v, d, x]) => ['svc:action:set-filter', { filterUrlParameter: filterParam(v, d, x) }]),
  fc
    .oneof(
      fc.webPath(),
      text.map((t) => `/${t}`),
    )
    .filter((p) => !pathProblem(p))
    .map((path) => ['svc:action:navigate', { path }]),
  fc.constant(['svc:action:refresh', {}]),
);

test('validateAction ∘ buildAction is the identity on valid actions', () => {
  fc.assert(
    fc.property(validAction, ([type, payload]) => {
      const built = buildAction(type, payload);
      const result = validateAction(structuredClone(built));
      assert.equal(result.ok, true, result.reason);
      // Payloads are JSON data, and JSON has no negative zero: a theme's -0 arrives as 0.
      assert.deepEqual(result.message, JSON.parse(JSON.stringify(built)));
    }),
  );
});

test('parseFilterParam(filterParam(view, dimension, x)) round-trips every JSON value, as one query parameter', () => {
  fc.assert(
    fc.property(ident, ident, json.filter(noProtoKeys), (view, dimension, x) => {
      const param = filterParam(view, dimension, x);
      // JSON has no negative zero: -0 travels as 0, as JSON.stringify writes it.
      assert.deepEqual(parseFilterParam(param), { view, dimension, value: JSON.parse(JSON.stringify(x)) });
      const query = new URLSearchParams(param);
      assert.deepEqual([...query.keys()], [`f_${view}.${dimension}`]);
    }),
  );
});

test('no filter that passes the check carries an extra URL parameter or a fragment', () => {
  const candidate = fc.oneof(
    fc.tuple(ident, ident, fc.string({ maxLength: 40 })).map(([v, d, s]) => `f_${v}.${d}=${s}`),
    fc.tuple(ident, ident, json).map(([v, d, x]) => `f_${v}.${d}=${JSON.stringify({ value: x })}`),
    fc
      .tuple(ident, ident, json, fc.string({ maxLength: 12 }))
      .map(([v, d, x, tail]) => `f_${v}.${d}=${JSON.stringify({ value: x })}${tail}`),
  );
  fc.assert(
    fc.property(candidate, (param) => {
      const parsed = parseFilterParam(param);
      if (!parsed) return;
      const url = new URL(`https://tenant.example/embed?${param}`);
      assert.equal(url.hash, '');
      assert.deepEqual([...url.searchParams.keys()], [`f_${parsed.view}.${parsed.dimension}`]);
    }),
  );
});

// ---- the embed URL

const loopback = (host) => host === 'localhost' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
const srcLike = fc.oneof(
  fc.string(),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom(
        'http://',
        'https://',
        'javascript:',
        'data:',
        'blob:',
        '//',
        'HTTPS://',
        'http://127.0.0.1',
        'http://localhost',
      ),
      fc.string(),
    )
    .map(([a, b]) => a + b),
);

test('resolveEmbedUrl refuses, or returns an https: (or loopback http:) URL whose origin is the one it returns', () => {
  fc.assert(
    fc.property(
      fc.record({
        src: fc.option(srcLike),
        tenantOrigin: fc.option(srcLike),
        publicId: fc.option(fc.string()),
        session: fc.option(fc.string()),
        allowExport: fc.boolean(),
      }),
      (input) => {
        const result = resolveEmbedUrl(input);
        if (result === undefined || 'reason' in result) return;
        const url = new URL(result.url);
        assert.equal(url.origin, result.origin);
        assert.ok(url.protocol === 'https:' || (url.protocol === 'http:' && loopback(url.hostname)), result.url);
        assert.ok(!url.username && !url.password);
        if (!input.src) {
          assert.ok(url.pathname.startsWith('/embed/dashboard/'), result.url);
          assert.equal(url.pathname.split('/').length, 4, result.url);
        }
      },
    ),
  );
});

test('the built dashboard URL always stays under /embed/dashboard/, whatever the public id', () => {
  fc.assert(
    fc.property(
      fc.oneof(fc.string(), fc.stringMatching(/^[.%2eE/\\]{1,6}$/)),
      fc.option(fc.string()),
      (publicId, session) => {
        const result = resolveEmbedUrl({ tenantOrigin: 'https://tenant.example', publicId, session });
        if (result === undefined || 'reason' in result) return;
        const url = new URL(result.url);
        assert.ok(
          url.pathname.startsWith('/embed/dashboard/') && url.pathname.length > '/embed/dashboard/'.length,
          result.url,
        );
        assert.equal(url.pathname.slice('/embed/dashboard/'.length), publicId);
        assert.equal(url.searchParams.get('session'), session || null);
      },
    ),
  );
});

// ---- REST and SCIM page validators

const recipientLike = fc.record(
  {
    type: fc.oneof(fc.constantFrom('USER', 'EMBED_USER', 'SLACK'), text),
    userId: fc.oneof(fc.integer(), json),
    email: fc.oneof(text, json),
    username: fc.oneof(text, json),
    embedUserId: fc.oneof(fc.integer(), json),
    embedTenantName: fc.oneof(text, json),
    externalId: fc.oneof(text, json),
    channelId: fc.oneof(text, json),
    channelName: fc.oneof(text, json),
  },
  { requiredKeys: [] },
);
const pageLike = fc.record(
  {
    items: fc.oneof(fc.array(recipientLike, { maxLength: 4 }), json),
    pageInfo: fc.oneof(
      fc.record(
        {
          hasNextPage: fc.oneof(fc.boolean(), json),
          hasPreviousPage: fc.oneof(fc.boolean(), json),
          startCursor: fc.oneof(text, json),
          endCursor: fc.oneof(text, json),
        },
        { requiredKeys: [] },
      ),
      json,
    ),
  },
  { requiredKeys: [] },
);
const scimLike = fc.record(
  {
    schemas: fc.oneof(fc.constant(['urn:ietf:params:scim:api:messages:2.0:ListResponse']), json),
    totalResults: fc.oneof(fc.nat(), json),
    startIndex: fc.oneof(fc.nat(), json),
    itemsPerPage: fc.oneof(fc.nat(), json),
    Resources: fc.oneof(fc.array(fc.dictionary(str, json, { maxKeys: 4 }), { maxLength: 3 }), json),
  },
  { requiredKeys: [] },
);

test('the REST and SCIM page validators never throw anything but SvcApiError', () => {
  const only = (fn) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof SvcApiError, `threw ${error?.name}: ${error?.message}`);
    }
  };
  fc.assert(
    fc.property(fc.oneof(pageLike, json, fc.constant(JSON.parse('{"__proto__":{"items":[]}}'))), (body) => {
      only(() => parseRecipientsPage(JSON.parse(JSON.stringify(body))));
    }),
  );
  fc.assert(
    fc.property(fc.oneof(scimLike, json), fc.integer({ min: 1, max: 5 }), (body, start) => {
      only(() => parseScimList(JSON.parse(JSON.stringify(body)), start));
    }),
  );
});
