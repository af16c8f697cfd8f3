// svc-embed/protocol in Node: builders, outgoing checks and the embed-side action validator; and docs/protocol.md,
// whose example runs as written and whose tables name every event and action.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import {
  buildAction,
  buildEvent,
  filterParam,
  isPlainObject,
  parseFilterParam,
  pathProblem,
  validateAction,
  validateEvent,
  domEventName,
  EVENT_TYPES,
  ACTION_TYPES,
} from 'svc-embed/protocol';

const action = (type, payload, extra = {}) => ({
  source: 'svc-embed',
  direction: 'action',
  type,
  payload,
  timestamp: 1,
  ...extra,
});

test('filterParam builds f_<view>.<dimension>=<JSON> that parseFilterParam reads back', () => {
  for (const value of ['shipped', 42, true, null, ['EU', 'US'], { gte: '2024-01-01' }, 'a"b=d', 'ünïcode', 'a b']) {
    const param = filterParam('orders', 'status', value);
    assert.equal(param, `f_orders.status=${JSON.stringify({ value })}`);
    assert.deepEqual(parseFilterParam(param), { view: 'orders', dimension: 'status', value });
  }
});

test('filterParam percent-encodes &, #, + and % in the JSON text, so the parameter is one query parameter', () => {
  for (const value of ['x&allowExport=true&y', '#top', 'a+b', '100%', '%26', { 'k&': ['#', '+', '%2e'] }]) {
    const param = filterParam('orders', 'status', value);
    assert.doesNotMatch(param.slice('f_orders.status='.length), /[&#+]|%(?![0-9A-F]{2})/);
    assert.deepEqual(parseFilterParam(param), { view: 'orders', dimension: 'status', value });
    const query = new URLSearchParams(param);
    assert.deepEqual([...query.keys()], ['f_orders.status']);
    assert.deepEqual(JSON.parse(query.get('f_orders.status')), { value });
  }
  assert.equal(filterParam('orders', 'status', 'x&y'), 'f_orders.status={"value":"x%26y"}');
});

test('parseFilterParam refuses a raw &, # or + and a malformed escape in the JSON text', () => {
  for (const bad of [
    'f_orders.status={"value":"x&allowExport=true"}',
    'f_orders.status={"value":"#x"}',
    'f_orders.status={"value":"a+b"}',
    'f_orders.status={"value":"100%"}',
    'f_orders.status={"value":"%zz"}',
    'f_orders.status={"value":1}#frag',
  ]) {
    assert.equal(parseFilterParam(bad), undefined, bad);
  }
  assert.deepEqual(parseFilterParam('f_orders.status=%7B%22value%22%3A%22x%26y%22%7D'), {
    view: 'orders',
    dimension: 'status',
    value: 'x&y',
  });
});

test('pathProblem refuses C0 and C1 controls, separators, bidirectional controls, lone surrogates and dot segments', () => {
  const bad = [
    '/a\u0000',
    '/\u007f',
    '/x\u0085y',
    '/\u009b31m',
    '/\u2028',
    '/\u2029',
    '/\u202e',
    '/\u2067',
    '/\u200f',
    '/\u061c',
    '/\ud800',
    '/\udfff',
    '/..',
    '/.',
    '/a/../b',
    '/%2e%2E/x',
    '/.%2e',
    '/a/%2e',
  ];
  for (const path of bad)
    assert.ok(
      pathProblem(path),
      JSON.stringify(path).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`),
    );
  for (const path of ['/', '/a', '/.well-known', '/a..b', '/q?p=../x', '/#../x', '/😀', '/日本'])
    assert.equal(pathProblem(path), undefined, path);
});

test('isPlainObject accepts plain objects of any realm and nothing else', () => {
  const other = runInNewContext(
    '({ plain: {}, bare: Object.create(null), arr: [], date: new Date(), map: new Map(), inst: new (class A {})() })',
  );
  assert.equal(isPlainObject(other.plain), true);
  assert.equal(isPlainObject(other.bare), true);
  for (const v of [other.arr, other.date, other.map, other.inst, new (class B {})(), [], new Number(1), null, 'x', 1]) {
    assert.equal(isPlainObject(v), false);
  }
  const ready =
    runInNewContext(`({ source: 'svc-embed', direction: 'event', type: 'svc:event:ready', timestamp: 1, surface: 'app',
    payload: { embedTenant: null, deploymentId: null, mode: 'private', surface: 'app' } })`);
  assert.equal(validateEvent(ready).ok, true);
});

test('validateEvent never throws, even for getters and proxies that do', () => {
  const throwing = {
    get payload() {
      throw new Error('boom');
    },
    source: 'svc-embed',
    direction: 'event',
    type: 'svc:event:view',
    timestamp: 1,
    surface: 'app',
  };
  const trap = new Proxy(
    {},
    {
      getPrototypeOf() {
        throw new Error('trap');
      },
    },
  );
  for (const hostile of [throwing, trap]) {
    const r = validateEvent(hostile);
    assert.equal(r.ok, false);
    assert.doesNotMatch(r.reason, /boom|trap/);
  }
});

test('filterParam throws a TypeError naming the accepted form', () => {
  const cases = [
    ['orders.x', 'status', 1],
    ['orders', 'st=atus', 1],
    ['', 'status', 1],
    ['orders', '1x', 1],
    ['orders', 'status', undefined],
    ['orders', 'status', NaN],
    ['orders', 'status', () => 1],
    ['orders', 'status', new Date()],
    ['orders', 'status', 10n],
    ['orders', 'status', JSON.parse('{"__proto__":{"x":1}}')],
  ];
  for (const [view, dim, value] of cases) {
    assert.throws(
      () => filterParam(view, dim, value),
      (e) => e instanceof TypeError && /filterParam\(view, dimension, value\)/.test(e.message),
    );
  }
});

test('parseFilterParam refuses malformed filters and smuggled parameters', () => {
  for (const bad of [
    'orders.status={"value":1}',
    'f_orders={"value":1}',
    'f_orders.status=',
    'f_orders.status={"value":1}&allowExport=true',
    'f_orders.status={"val":1}',
    'f_orders.status=[{"value":1}]',
    'f_orders.status="x"',
    'f_.status={"value":1}',
    'f_orders.status={"value":1',
    'f_or ders.status={"value":1}',
    42,
    null,
  ]) {
    assert.equal(parseFilterParam(bad), undefined, String(bad));
  }
});

test('buildAction builds the envelope and checks the payload', () => {
  const before = Date.now();
  const a = buildAction('svc:action:set-color-scheme', { scheme: 'auto' });
  assert.deepEqual(Object.keys(a).sort(), ['direction', 'payload', 'source', 'timestamp', 'type']);
  assert.equal(a.source, 'svc-embed');
  assert.equal(a.direction, 'action');
  assert.ok(a.timestamp >= before && a.timestamp <= Date.now());
  assert.throws(
    () => buildAction('svc:action:set-color-scheme', { scheme: 'sepia' }),
    /TypeError|one of light, dark, auto/,
  );
  assert.throws(() => buildAction('svc:action:set-locale', { locale: 'en_US!' }), TypeError);
  assert.throws(() => buildAction('svc:action:navigate', { path: '//evil' }), TypeError);
  assert.throws(() => buildAction('svc:action:set-theme', { f: () => 1 }), TypeError);
  assert.throws(() => buildAction('svc:action:explode', {}), TypeError);
  assert.deepEqual(buildAction('svc:action:refresh', {}).payload, {});
});

test('validateAction accepts each valid action and returns a fresh payload', () => {
  const valid = [
    ['svc:action:set-color-scheme', { scheme: 'dark' }],
    ['svc:action:set-theme', { primaryColor: '#123456', borderRadius: 6, font: 'Inter', nested: { a: [1] } }],
    ['svc:action:set-locale', { locale: 'de-CH' }],
    ['svc:action:set-filter', { filterUrlParameter: 'f_orders.region={"value":"EU"}' }],
    ['svc:action:navigate', { path: '/dashboards/2' }],
    ['svc:action:refresh', {}],
  ];
  for (const [type, payload] of valid) {
    const r = validateAction(action(type, { ...payload }));
    assert.equal(r.ok, true, `${type}: ${r.reason}`);
    assert.deepEqual(r.message.payload, payload);
  }
  const r = validateAction(action('svc:action:navigate', { path: '/x', extra: 1 }));
  assert.deepEqual(r.message.payload, { path: '/x' });
});

test('validateAction refuses broken actions with a reason naming the rule', () => {
  const cases = [
    [action('svc:action:refresh', {}, { surface: 'dashboard' }), /^surface/],
    [action('svc:action:refresh', {}, { direction: 'event' }), /^direction/],
    [action('svc:event:ready', {}), /^type/],
    [action('svc:action:refresh', {}, { timestamp: NaN }), /^timestamp/],
    [action('svc:action:refresh', []), /^payload/],
    [action('svc:action:set-color-scheme', { scheme: 'DARK' }), /^payload\.scheme/],
    [action('svc:action:set-locale', {}), /^payload\.locale/],
    [
      action('svc:action:set-filter', { filterUrlParameter: 'f_a.b={"value":1}&allowExport=true' }),
      /^payload\.filterUrlParameter/,
    ],
    [action('svc:action:navigate', { path: 'https://evil.example' }), /^payload\.path/],
    [action('svc:action:set-theme', JSON.parse('{"__proto__":{"polluted":1}}')), /__proto__/],
    [{ ...action('svc:action:refresh', {}), source: 'x' }, /^source/],
    ['string', /^message/],
  ];
  for (const [message, reason] of cases) {
    const r = validateAction(message);
    assert.equal(r.ok, false);
    assert.match(r.reason, reason);
  }
});

test('buildEvent builds valid events for the embed side and refuses invalid ones', () => {
  const e = buildEvent('svc:event:download', 'dashboard', { format: 'csv', target: 'dashboard', rowCount: 3 });
  assert.equal(validateEvent(e).ok, true);
  assert.equal(e.surface, 'dashboard');
  assert.throws(() => buildEvent('svc:event:download', 'dashboard', { format: 'doc', target: 'dashboard' }), TypeError);
  assert.throws(() => buildEvent('svc:event:view', 'page', { surface: 'app', path: '/' }), TypeError);
});

test('domEventName maps every wire type to svc-<name>', () => {
  assert.deepEqual(EVENT_TYPES.map(domEventName), [
    'svc-ready',
    'svc-view',
    'svc-navigate',
    'svc-dashboard-loaded',
    'svc-download',
    'svc-drilldown',
    'svc-ai-query',
    'svc-error',
  ]);
});

describe('docs/protocol.md', () => {
  const root = new URL('../..', import.meta.url).pathname;
  const page = readFileSync(new URL('../../docs/protocol.md', import.meta.url), 'utf8');
  /** The body of the section under a `## ` heading. */
  const section = (heading) => {
    const start = page.indexOf(`\n## ${heading}\n`);
    assert.ok(start >= 0, `docs/protocol.md has a section "${heading}"`);
    const end = page.indexOf('\n## ', start + 1);
    return page.slice(start, end < 0 ? undefined : end);
  };

  test('every code example is run, and prints what its comments say', () => {
    const fences = [...page.matchAll(/^(<!--[^\n]*-->\n)?```(\w*)\n([\s\S]*?)^```$/gm)];
    const code = fences.filter(([, , lang]) => lang !== 'text' && lang !== '');
    assert.ok(code.length >= 1, 'docs/protocol.md shows its example');
    for (const [, marker, lang, body] of code) {
      assert.equal(lang, 'js', 'an example is JavaScript that Node runs');
      assert.match(marker ?? '', /Run by test\/node\/protocol\.test\.mjs/, 'every example is marked as run here');
      const expected = [...body.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
      assert.equal(expected.length, body.match(/console\.log\(/g)?.length, 'every console.log says what it prints');
      assert.ok(expected.length > 0);
      const out = execFileSync(process.execPath, ['--input-type=module', '-e', body], { cwd: root, encoding: 'utf8' });
      assert.deepEqual(out.trimEnd().split('\n'), expected);
    }
  });

  test('its tables name every event with its DOM event, and every action', () => {
    const events = section('Events');
    for (const type of EVENT_TYPES) {
      assert.ok(events.includes(`| \`${type}\` | \`${domEventName(type)}\` |`), `${type} and its DOM event`);
      assert.ok(page.includes(`### \`${type}\``), `the payload table of ${type}`);
    }
    const actions = section('Actions');
    for (const type of ACTION_TYPES) assert.ok(actions.includes(`| \`${type}\` |`), type);
  });

  test('the reason it gives for an unknown event type is the one the validator gives', () => {
    const result = validateEvent({
      source: 'svc-embed',
      direction: 'event',
      type: 'svc:event:not-in-this-version',
      surface: 'app',
      timestamp: 1,
      payload: {},
    });
    assert.equal(result.ok, false);
    assert.equal(result.type, undefined);
    assert.ok(section('Messages this version does not know').includes(`\`${result.reason}\``));
  });
});
