// The embed's UI strings (tenant/public/i18n.js): every offered language has every string, with the
// same placeholders. The end-to-end demo test checks that none of them is left in English on screen.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STRINGS, fmt, t, setLocale } from '../../packages/tenant/public/i18n.js';

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

test('short values (legends, axes): German abbreviates thousands ("374 Tsd. $"), as compact as English ("$374K")', () => {
  // Intl writes a no-break space inside German values; shown here as a plain one.
  const short = (locale, value, format = 'currency') => {
    setLocale(locale);
    return fmt(value, format, { compact: true }).replace(/\u00a0/g, ' ');
  };
  try {
    assert.equal(short('en-US', 374036), '$374K');
    assert.equal(short('de-DE', 374036), '374 Tsd. $');
    assert.equal(short('de', 1536), '1,5 Tsd. $');
    assert.equal(short('de-DE', -374036), '-374 Tsd. $');
    // After the digits, wherever the region puts the currency sign.
    assert.equal(short('de-AT', 374036), '$ 374 Tsd.');
    assert.equal(short('de-DE', 12345, 'number'), '12,3 Tsd.');
    // Below a thousand, and from a million on (999,960 included), Intl's own words.
    assert.equal(short('de-DE', 999), '999 $');
    assert.equal(short('de-DE', 999960), '1 Mio. $');
    assert.equal(short('de-DE', 1499000), '1,5 Mio. $');
    assert.equal(short('de-DE', 163, 'number'), '163');
    // Every German short value has at most three digits and one decimal, like the English one.
    for (let value = 1000; value < 1e10; value *= 1.37) {
      assert.match(short('de-DE', value), /^\d{1,3}(,\d)? (Tsd\.|Mio\.|Mrd\.) \$$/, String(value));
      assert.match(short('en-US', value), /^\$\d{1,3}(\.\d)?[KMB]$/, String(value));
    }
    // The languages whose compact notation already abbreviates thousands keep it.
    assert.equal(short('fr-FR', 374036), '374 k $US');
    assert.equal(short('es', 374036), '374 mil US$');
    assert.equal(short('ja-JP', 374036), '$37.4万');
    // Full values (KPIs, tables, the marks' names) are unchanged.
    setLocale('de-DE');
    assert.equal(fmt(374036, 'currency').replace(/\u00a0/g, ' '), '374.036 $');
  } finally {
    setLocale('en-US');
  }
});
