// End-to-end: the demo host page drives <svc-embed> (the built CDN bundle) against the simulated
// tenant in real headless Chromium. Both servers listen on random ports, so a running `npm start`
// is never disturbed. Checks the events the host receives and what visibly changes inside the embed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';
import { startTenant } from '../../tenant/index.js';
import { startHost } from '../../demo/host-server.mjs';
import { filterRows } from '../../tenant/datasets.js';

const CHROME_PATH = process.env.CHROME_PATH || '/usr/lib/chromium/chromium';
const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const NAMES = ['svc-ready', 'svc-view', 'svc-navigate', 'svc-dashboard-loaded', 'svc-download', 'svc-drilldown',
  'svc-ai-query', 'svc-error', 'svc-message-rejected', 'svc-config-error'];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const bundle = new URL('../../cdn/svc-embed.min.js', import.meta.url);

let tenant;
let host;
let browser;
let page;

/** Records every svc-* event on the page (they bubble and are composed) before any script runs. */
async function openPage(path, origin = host.origin) {
  const p = await browser.newPage();
  await p.setViewport({ width: 1500, height: 950 });
  await p.evaluateOnNewDocument((names) => {
    window.__events = [];
    for (const n of names) {
      document.addEventListener(n, (e) => window.__events.push({ name: n, id: e.target.id, detail: JSON.parse(JSON.stringify(e.detail ?? null)) }), true);
    }
  }, NAMES);
  const cdp = await p.createCDPSession();
  // The export control really downloads a file; nothing may land on disk during tests.
  await cdp.send('Browser.setDownloadBehavior', { behavior: 'deny' }).catch(() => {});
  await p.goto(origin + path);
  return p;
}

const mark = (p = page) => p.evaluate(() => window.__events.length);

async function waitEvent(name, { since = 0, where = () => true, timeout = 60_000, p = page } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const events = await p.evaluate(() => window.__events);
    const hit = events.slice(since).find((e) => e.name === name && where(e.detail, e));
    if (hit) return hit;
    if (Date.now() > end) throw new Error(`no ${name} within ${timeout} ms; got: ${events.slice(since).map((e) => e.name).join(', ')}`);
    await sleep(40);
  }
}

async function eventsSince(since, p = page) {
  return (await p.evaluate(() => window.__events)).slice(since);
}

/** The embed's frame inside the element's shadow root (cross-origin: puppeteer reaches it via CDP). */
async function embedFrame(id = 'embed', p = page) {
  const handle = await p.waitForFunction((i) => document.getElementById(i)?.shadowRoot?.querySelector('iframe'), {}, id);
  return handle.asElement().contentFrame();
}

/** A real mouse click inside the embed, once the target exists. */
async function clickIn(frame, selector) {
  await frame.waitForSelector(selector, { visible: true, timeout: 60_000 });
  await frame.click(selector);
}

/**
 * Waits until `fn` (run in the embed frame) returns a truthy value, and returns it. Each attempt takes the
 * frame afresh and evaluates once, on a timer: puppeteer's waitForFunction polls on requestAnimationFrame
 * in one execution context, and a handle taken around the iframe's swap from about:blank to the
 * cross-origin embed can be left waiting on a context that is gone.
 */
async function inEmbed(fn, arg, id = 'embed', p = page) {
  const deadline = Date.now() + 60_000;
  let last;
  while (Date.now() < deadline) {
    try {
      const frame = await embedFrame(id, p);
      const value = await Promise.race([
        frame.evaluate(fn, arg),
        new Promise((_, reject) => setTimeout(() => reject(new Error('evaluation took over 10 s')), 10_000).unref()),
      ]);
      if (value) return value;
      last = `returned ${JSON.stringify(value)}`;
    } catch (error) {
      last = error.message;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`in embed #${id}: ${String(fn).slice(0, 160)}: not true within 60 s (last: ${last})`);
}

before(async () => {
  assert.ok(existsSync(bundle), 'cdn/svc-embed.min.js is missing: run npm run build first');
  host = await startHost({ port: 0, tenantOrigin: () => tenant.origin });
  // The tenant's default allowed origins (localhost and 127.0.0.1 on any port): what `npm start` and
  // `svc-embed tenant` run with.
  tenant = await startTenant({ port: 0 });
  browser = await puppeteer.launch({ executablePath: CHROME_PATH, headless: true, args: ARGS });
  page = await openPage('/');
});

after(async () => {
  await browser?.close();
  await host?.close();
  await tenant?.close();
});

describe('demo playground, dashboard surface', () => {
  test('ready comes first (signed, tenant, deployment, publicId), then view and dashboard-loaded', async () => {
    const ready = await waitEvent('svc-ready');
    assert.deepEqual(ready.detail.payload, { embedTenant: 'acme', deploymentId: 1, mode: 'signed', surface: 'dashboard', publicId: 'sales-overview' });
    assert.equal(ready.detail.surface, 'dashboard');
    const loaded = await waitEvent('svc-dashboard-loaded');
    assert.equal(loaded.detail.payload.widgetCount, 7);
    assert.ok(Number.isFinite(loaded.detail.payload.loadDurationMs) && loaded.detail.payload.loadDurationMs > 0);
    const all = await eventsSince(0);
    assert.equal(all[0].name, 'svc-ready');
    const view = all.find((e) => e.name === 'svc-view');
    assert.equal(view.detail.payload.path, '/');
    assert.equal(await page.$eval('#state', (e) => e.dataset.state), 'ready');
    assert.ok(await page.$('#log .entry[data-event="svc-dashboard-loaded"]'), 'the host log shows the event');
    assert.equal(await inEmbed(() => document.querySelector('[data-widget="kpi-orders"] .kpi-value')?.dataset.value), '1200');
  });

  test('color scheme: dark, light, and auto following prefers-color-scheme', async () => {
    // The background eases between schemes, so wait for the final color rather than read it once.
    const background = (rgb) => inEmbed((c) => getComputedStyle(document.body).backgroundColor === c && c, rgb);
    await page.click('#color-scheme button[data-value="dark"]');
    assert.equal(await background('rgb(15, 17, 23)'), 'rgb(15, 17, 23)');
    assert.equal(await inEmbed(() => document.documentElement.dataset.effectiveScheme), 'dark');
    await page.click('#color-scheme button[data-value="light"]');
    assert.equal(await background('rgb(246, 247, 251)'), 'rgb(246, 247, 251)');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'dark' }]);
    await page.click('#color-scheme button[data-value="auto"]');
    assert.equal(await inEmbed(() => document.documentElement.dataset.scheme === 'auto' && document.documentElement.dataset.effectiveScheme), 'dark');
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: 'light' }]);
    assert.equal(await inEmbed(() => document.documentElement.dataset.effectiveScheme === 'light' && 'light'), 'light');
  });

  test('theme and locale change the embed visibly', async () => {
    await page.click('#swatches [data-color="#0d9488"]');
    assert.equal(await inEmbed(() => getComputedStyle(document.documentElement).getPropertyValue('--primary').trim() === '#0d9488' && 'ok'), 'ok');
    await page.$eval('#radius', (e) => {
      e.value = '2';
      e.dispatchEvent(new Event('input'));
    });
    assert.equal(await inEmbed(() => getComputedStyle(document.querySelector('.card')).borderTopLeftRadius === '2px' && 'ok'), 'ok');
    await page.select('#locale', 'de-DE');
    const text = await inEmbed(() => document.documentElement.lang === 'de-DE' && document.querySelector('[data-widget="kpi-orders"] h2').textContent);
    assert.equal(text, 'Bestellungen');
    assert.match(await inEmbed(() => document.querySelector('[data-widget="kpi-revenue"] .kpi-value').textContent), /^13\.497\.621\s\$$/);
    await page.select('#locale', 'en-US');
    await inEmbed(() => document.documentElement.lang === 'en-US');
  });

  test('filter (built with filterParam) really filters the data, then clears', async () => {
    const since = await mark();
    await page.select('#filter-value', 'EMEA');
    assert.equal(await page.$eval('#filter-preview', (e) => e.textContent), 'f_orders.region={"value":"EMEA"}');
    const expected = filterRows('orders', [{ view: 'orders', dimension: 'region', value: 'EMEA' }]).length;
    assert.equal(await inEmbed((n) => document.querySelector('[data-widget="kpi-orders"] .kpi-value')?.dataset.value === String(n) && 'ok', expected), 'ok');
    assert.equal(await inEmbed(() => document.querySelectorAll('[data-widget="revenue-by-region"] .mark').length), 1);
    await waitEvent('svc-dashboard-loaded', { since });
    const cleared = await mark();
    await page.select('#filter-value', '');
    await waitEvent('svc-dashboard-loaded', { since: cleared });
    assert.equal(await inEmbed(() => document.querySelector('[data-widget="kpi-orders"] .kpi-value')?.dataset.value === '1200' && 'ok'), 'ok');
  });

  test('drilldown from a chart mark and from a table cell', async () => {
    let since = await mark();
    const frame = await embedFrame();
    await clickIn(frame, '[data-widget="revenue-by-region"] .mark');
    const bar = await waitEvent('svc-drilldown', { since });
    assert.deepEqual(bar.detail.payload, { member: 'orders.revenue', value: 'North America', widgetId: 'revenue-by-region' });
    assert.ok(await inEmbed(() => document.querySelector('.drill table.data tbody tr')), 'the detail rows are shown');
    await clickIn(frame, '.drill .icon-btn');
    since = await mark();
    await clickIn(frame, '[data-widget="top-accounts"] .cell-link[data-member="orders.orders"]');
    const cell = await waitEvent('svc-drilldown', { since });
    assert.equal(cell.detail.payload.member, 'orders.orders');
    assert.equal(cell.detail.payload.widgetId, 'top-accounts');
    assert.equal(typeof cell.detail.payload.value, 'string');
    await clickIn(frame, '.drill .icon-btn');
  });

  test('navigate (control → element.navigate) emits navigate then view, and the page changes', async () => {
    const since = await mark();
    await page.$eval('#path', (e) => { e.value = '/details'; });
    await page.click('#go');
    const nav = await waitEvent('svc-navigate', { since });
    assert.deepEqual(nav.detail.payload, { path: '/details', previousPath: '/' });
    const view = await waitEvent('svc-view', { since });
    assert.equal(view.detail.payload.path, '/details');
    assert.ok(await inEmbed(() => document.querySelector('[data-widget="recent-orders"] table')));
    await page.$eval('#path', (e) => { e.value = '//evil.example'; });
    await page.click('#go');
    assert.match(await page.$eval('#path-error', (e) => e.textContent), /TypeError|path/);
  });

  test('refresh re-runs the queries and a new dashboard-loaded follows', async () => {
    const since = await mark();
    await page.click('#refresh');
    const loaded = await waitEvent('svc-dashboard-loaded', { since });
    assert.equal(loaded.detail.payload.widgetCount, 3);
  });

  test('a failing widget is a recoverable error; retry recovers', async () => {
    const since = await mark();
    const frame = await embedFrame();
    await clickIn(frame, '.debug-toggle');
    await clickIn(frame, '[data-action="fail-widget"]');
    const error = await waitEvent('svc-error', { since });
    assert.equal(error.detail.payload.fatal, false);
    assert.match(error.detail.payload.context, /^widget:/);
    await waitEvent('svc-dashboard-loaded', { since });
    await clickIn(frame, '.card.failed .btn');
    assert.ok(await inEmbed(() => !document.querySelector('.card.failed') && document.querySelector('[data-widget="orders-by-channel"] svg')));
  });

  test('a malformed action is refused and listed in the embed debug panel', async () => {
    const before = await inEmbed(() => document.querySelectorAll('.dbg.rejected').length + 1) - 1;
    await page.click('#bad-action');
    const after = await inEmbed((n) => document.querySelectorAll('.dbg.rejected').length > n && document.querySelectorAll('.dbg.rejected').length, before);
    assert.equal(after, before + 1);
    assert.match(await inEmbed(() => document.querySelector('.dbg.rejected .dbg-reason').textContent), /scheme/);
    assert.equal(await inEmbed(() => document.documentElement.dataset.scheme), 'auto', 'nothing was applied');
  });

  test('allow-export shows the CSV control; download reports format, target and rowCount, never rows', async () => {
    assert.equal(await inEmbed(() => String(document.querySelectorAll('[data-export]').length)), '0');
    let since = await mark();
    await page.click('#allow-export');
    await waitEvent('svc-ready', { since });
    await waitEvent('svc-dashboard-loaded', { since });
    since = await mark();
    const frame = await embedFrame();
    await frame.waitForSelector('[data-export="revenue-by-region"]');
    // $eval clicks whatever node matches now: a chart card may redraw itself once for its final width.
    await frame.$eval('[data-export="revenue-by-region"]', (b) => b.click());
    const widget = await waitEvent('svc-download', { since });
    assert.deepEqual(widget.detail.payload, { format: 'csv', target: 'widget', widgetId: 'revenue-by-region', title: 'Revenue by region', rowCount: 4 });
    since = await mark();
    await frame.$eval('[data-export="dashboard"]', (b) => b.click());
    const whole = await waitEvent('svc-download', { since });
    assert.equal(whole.detail.payload.target, 'dashboard');
    assert.equal(whole.detail.payload.rowCount, 1200);
    assert.deepEqual(Object.keys(whole.detail.payload).sort(), ['format', 'rowCount', 'target', 'title']);
  });
});

describe('demo playground, other surfaces and sessions', () => {
  test('chat: ai-query submitted then completed, and submitted then error', async () => {
    let since = await mark();
    await page.click('#surface button[data-value="chat"]');
    const ready = await waitEvent('svc-ready', { since });
    assert.equal(ready.detail.payload.surface, 'chat');
    const frame = await embedFrame();
    await frame.waitForSelector('.suggestion');
    since = await mark();
    await frame.type('.ask input', 'Revenue by region');
    await clickIn(frame, '.ask button');
    const submitted = await waitEvent('svc-ai-query', { since, where: (d) => d.payload.status === 'submitted' });
    const done = await waitEvent('svc-ai-query', { since, where: (d) => d.payload.status !== 'submitted' });
    assert.equal(submitted.detail.payload.query, 'Revenue by region');
    assert.equal(done.detail.payload.status, 'completed');
    assert.equal(done.detail.payload.chatId, submitted.detail.payload.chatId);
    assert.equal(done.detail.surface, 'chat');
    since = await mark();
    await frame.type('.ask input', 'What is the weather in Paris?');
    await clickIn(frame, '.ask button');
    const failed = await waitEvent('svc-ai-query', { since, where: (d) => d.payload.status !== 'submitted' });
    assert.equal(failed.detail.payload.status, 'error');
    assert.ok(await inEmbed(() => document.querySelector('.msg.error')));
  });

  test('app: ready with surface app, navigation inside the app', async () => {
    let since = await mark();
    await page.click('#surface button[data-value="app"]');
    const ready = await waitEvent('svc-ready', { since });
    assert.equal(ready.detail.payload.surface, 'app');
    await waitEvent('svc-view', { since });
    since = await mark();
    const frame = await embedFrame();
    await clickIn(frame, '.nav-item[data-path="/workbooks"]');
    const nav = await waitEvent('svc-navigate', { since });
    assert.deepEqual(nav.detail.payload, { path: '/workbooks', previousPath: '/' });
    const view = await waitEvent('svc-view', { since });
    assert.equal(view.detail.surface, 'app');
  });

  test('no session: private mode; expired session: fatal error and no ready', async () => {
    await page.click('#surface button[data-value="dashboard:sales-overview"]');
    let since = await mark();
    await page.select('#session', '');
    const ready = await waitEvent('svc-ready', { since, where: (d) => d.payload.mode === 'private' });
    assert.equal(ready.detail.payload.embedTenant, null);
    await waitEvent('svc-dashboard-loaded', { since });
    since = await mark();
    await page.select('#session', 'expired');
    const error = await waitEvent('svc-error', { since });
    assert.equal(error.detail.payload.fatal, true);
    assert.equal(error.detail.payload.name, 'SessionExpiredError');
    assert.equal((await eventsSince(since)).filter((e) => e.name === 'svc-ready').length, 0);
    assert.equal(await page.$eval('#state', (e) => e.dataset.state), 'failed');
    assert.ok(await inEmbed(() => document.querySelector('.fatal-card')));
  });
});

describe('side-by-side page', () => {
  test('two embeds of one tenant origin keep their events apart', async () => {
    const p = await openPage('/compare');
    try {
      const left = await waitEvent('svc-ready', { p, where: (_, e) => e.id === 'left' });
      const right = await waitEvent('svc-ready', { p, where: (_, e) => e.id === 'right' });
      assert.equal(left.detail.payload.embedTenant, 'acme');
      assert.equal(right.detail.payload.embedTenant, 'globex');
      await waitEvent('svc-dashboard-loaded', { p, where: (_, e) => e.id === 'left' });
      await waitEvent('svc-dashboard-loaded', { p, where: (_, e) => e.id === 'right' });
      assert.equal(await inEmbed(() => document.documentElement.dataset.effectiveScheme === 'dark' && document.documentElement.lang, undefined, 'right', p), 'de-DE');
      const since = await mark(p);
      await p.click('#both-region');
      for (const id of ['left', 'right']) {
        await waitEvent('svc-dashboard-loaded', { p, since, where: (_, e) => e.id === id });
        assert.equal(await inEmbed(() => document.querySelector('.chip-value')?.textContent, undefined, id, p), 'EMEA');
      }
      const counts = (await eventsSince(since, p)).reduce((m, e) => m.set(e.id, (m.get(e.id) ?? 0) + 1), new Map());
      assert.equal(counts.get('left'), counts.get('right'));
      assert.ok(await p.$('#log-left .entry') && await p.$('#log-right .entry'));
    } finally {
      await p.close();
    }
  });
});

describe('allowed host origins: the defaults, localhost and 127.0.0.1 on any port', () => {
  test('the playground opened on 127.0.0.1:<port> gets a ready embed that takes actions', async () => {
    const alias = host.origin.replace('//localhost:', '//127.0.0.1:');
    assert.notEqual(alias, host.origin);
    const p = await openPage('/', alias);
    try {
      const ready = await waitEvent('svc-ready', { p });
      assert.equal(ready.detail.payload.embedTenant, 'acme');
      await p.click('#color-scheme button[data-value="dark"]');
      assert.equal(await inEmbed(() => document.documentElement.dataset.effectiveScheme === 'dark' && 'dark', undefined, 'embed', p), 'dark');
    } finally {
      await p.close();
    }
  });
});

describe('sessions on the embed page', () => {
  test('demo-<tenant>-ttl<N>: ready, then a fatal SessionExpiredError (context auth), and the embed shows it expired', async () => {
    const p = await openPage('/');
    try {
      const src = `${tenant.origin}/embed/dashboard/sales-overview?session=demo-acme-ttl1-e2e${Date.now().toString(36)}`;
      await p.evaluate((s) => {
        const el = document.createElement('svc-embed');
        el.id = 'ttl';
        el.style.height = '400px';
        el.setAttribute('src', s);
        document.body.append(el);
      }, src);
      const ready = await waitEvent('svc-ready', { p, where: (_, e) => e.id === 'ttl' });
      assert.equal(ready.detail.payload.mode, 'signed');
      const error = await waitEvent('svc-error', { p, where: (d, e) => e.id === 'ttl' && d.payload.fatal === true, timeout: 30000 });
      const { name, context, fatal } = error.detail.payload;
      assert.deepEqual({ name, context, fatal }, { name: 'SessionExpiredError', context: 'auth', fatal: true });
      assert.equal(await inEmbed(() => document.querySelector('.fatal-card h1')?.textContent, undefined, 'ttl', p), 'Session expired');
    } finally {
      await p.close();
    }
  });

  test('a repeated session is an invalid session, and a repeated allowExport is no grant', async () => {
    const p = await browser.newPage();
    try {
      await p.goto(`${tenant.origin}/embed/dashboard/sales-overview?session=demo-acme&session=demo-globex`);
      await p.waitForSelector('#root[data-error="InvalidSessionError"]', { timeout: 60_000 });
      await p.goto(`${tenant.origin}/embed/dashboard/sales-overview?session=demo-acme&allowExport=false&allowExport=true`);
      await p.waitForSelector('[data-widget="kpi-orders"] .kpi-value', { timeout: 60_000 });
      assert.equal(await p.$$eval('[data-export]', (els) => els.length), 0);
      assert.match(await p.$eval('.debug-info', (e) => e.textContent), /export off/);
    } finally {
      await p.close();
    }
  });
});
