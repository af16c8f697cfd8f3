// test/support/literal.mjs, which writes test inputs into test names with their escapes visible.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { literal } from '../support/literal.mjs';

test('every character outside printable ASCII is a \\uXXXX escape', () => {
  assert.equal(literal('/\u007f'), '"/\\u007f"');
  assert.equal(literal('/x\u0085y'), '"/x\\u0085y"');
  assert.equal(literal('/a\nb\u0000'), '"/a\\u000ab\\u0000"');
  assert.equal(literal('\u2028\u202e\u00e9'), '"\\u2028\\u202e\\u00e9"');
  assert.equal(literal('\u{1f600}'), '"\\ud83d\\ude00"');
  assert.equal(literal({ path: '/\u2029' }), '{"path":"/\\u2029"}');
  assert.equal(literal(Symbol('\u0007')), 'Symbol(\\u0007)');
});

test('printable ASCII stays as typed; quotes and backslashes are escaped in strings', () => {
  assert.equal(literal('/a b/~'), '"/a b/~"');
  assert.equal(literal('"\\'), '"\\"\\\\"');
  assert.equal(literal(''), '""');
});

test('values that JSON would lose or blur keep their own spelling', () => {
  assert.deepEqual([undefined, null, 42, NaN, -0, 10n, true, [1, 'a']].map(literal), [
    'undefined',
    'null',
    '42',
    'NaN',
    '-0',
    '10n',
    'true',
    '[1,"a"]',
  ]);
  const cycle = {};
  cycle.self = cycle;
  assert.equal(literal(cycle), '[object Object]');
});
