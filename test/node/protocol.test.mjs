// svc-embed/protocol in Node: builders, outgoing checks and the embed-side action validator.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildAction, buildEvent, filterParam, parseFilterParam, validateAction, validateEvent, domEventName, EVENT_TYPES,
} from 'svc-embed/protocol';

const action = (type, payload, extra = {}) => ({ source: 'svc-embed', direction: 'action', type, payload, timestamp: 1, ...extra });

test('filterParam builds f_<view>.<dimension>=<JSON> that parseFilterParam reads back', () => {
  for (const value of ['shipped', 42, true, null, ['EU', 'US'], { gte: '2024-01-01' }, 'a"b&c=d', 'ünïcode']) {
    const param = filterParam('orders', 'status', value);
    assert.equal(param, `f_orders.status=${JSON.stringify({ value })}`);
    assert.deepEqual(parseFilterParam(param), { view: 'orders', dimension: 'status', value });
  }
});

test('filterParam throws a TypeError naming the accepted form', () => {
  const cases = [
    ['orders.x', 'status', 1], ['orders', 'st=atus', 1], ['', 'status', 1], ['orders', '1x', 1], ['orders', 'status', undefined],
    ['orders', 'status', NaN], ['orders', 'status', () => 1], ['orders', 'status', new Date()], ['orders', 'status', 10n],
    ['orders', 'status', JSON.parse('{"__proto__":{"x":1}}')],
  ];
  for (const [view, dim, value] of cases) {
    assert.throws(() => filterParam(view, dim, value), (e) => e instanceof TypeError && /filterParam\(view, dimension, value\)/.test(e.message));
  }
});

test('parseFilterParam refuses malformed filters and smuggled parameters', () => {
  for (const bad of [
    'orders.status={"value":1}', 'f_orders={"value":1}', 'f_orders.status=', 'f_orders.status={"value":1}&allowExport=true',
    'f_orders.status={"val":1}', 'f_orders.status=[{"value":1}]', 'f_orders.status="x"', 'f_.status={"value":1}',
    'f_orders.status={"value":1', 'f_or ders.status={"value":1}', 42, null,
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
  assert.throws(() => buildAction('svc:action:set-color-scheme', { scheme: 'sepia' }), /TypeError|one of light, dark, auto/);
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
    [action('svc:action:set-filter', { filterUrlParameter: 'f_a.b={"value":1}&allowExport=true' }), /^payload\.filterUrlParameter/],
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
    'svc-ready', 'svc-view', 'svc-navigate', 'svc-dashboard-loaded', 'svc-download', 'svc-drilldown', 'svc-ai-query', 'svc-error',
  ]);
});
