// The embed's UI strings (tenant/public/i18n.js): every offered language has every string, with the
// same placeholders. The end-to-end demo test checks that none of them is left in English on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STRINGS, t, setLocale } from '../../packages/tenant/public/i18n.js';

const placeholders = (text) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

test('each language has exactly the English keys, each a non-empty string with the same placeholders', () => {
  const keys = Object.keys(STRINGS.en).sort();
  assert.deepEqual(Object.keys(STRINGS).sort(), ['de', 'en', 'es', 'fr', 'ja']);
  for (const [lang, table] of Object.entries(STRINGS)) {
    assert.deepEqual(Object.keys(table).sort(), keys, lang);
    for (const key of keys) {
      assert.equal(typeof table[key], 'string', `${lang}.${key}`);
      assert.ok(table[key].trim(), `${lang}.${key} is empty`);
      assert.deepEqual(placeholders(table[key]), placeholders(STRINGS.en[key]), `${lang}.${key}`);
    }
  }
});

test('a regional or short tag finds its language; an unknown one reads English', () => {
  // setLocale touches the document only where there is one.
  setLocale('de-AT');
  assert.equal(t('filters'), 'Filter');
  setLocale('ja');
  assert.equal(t('rows', { n: 3 }), '3 行');
  setLocale('pt-BR');
  assert.equal(t('filters'), 'Filters');
  setLocale('en-US');
});
