// The demo as a newcomer meets it, in headless Chromium and Firefox ESR: the playground's custom loading
// and error slots after they were switched off and back on, a playground that fits the window at the
// usual desktop sizes (no page scrollbar beside the columns that scroll on their own), and the chat
// surface's empty state (a welcome and questions to start from, which the agent answers).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { startTenant } from '@svc-embed/tenant';
import { startHost } from '../../demo/host-server.mjs';
import { answer } from '../../packages/tenant/dist/datasets.js';
import { STARTERS } from '../../packages/tenant/public/chat.js';
import { STRINGS } from '../../packages/tenant/public/i18n.js';
import { enginesFrom, launch, unavailable } from '../support/browsers.mjs';

const MINUTE = 60_000;
const bundle = new URL('../../cdn/svc-embed.min.js', import.meta.url);

let tenant;
let host;

before(async () => {
  assert.ok(existsSync(bundle), 'cdn/svc-embed.min.js is missing: run npm run build first');
  tenant = await startTenant({ port: 0 });
  host = await startHost({ port: 0, tenantOrigin: tenant.origin });
});

after(async () => {
  await host?.close();
  await tenant?.close();
});

test('the questions a new chat offers are ones the agent answers with a breakdown, in every language', () => {
  assert.ok(STARTERS.length >= 3, `${STARTERS.length} questions`);
  for (const [lang, strings] of Object.entries(STRINGS)) {
    for (const [key] of STARTERS) {
      const result = answer(strings[key]);
      assert.ok(result?.dimension && result.table?.rows.length, `${lang}.${key} "${strings[key]}" gets a breakdown`);
    }
  }
});

for (const engine of enginesFrom('E2E_BROWSERS')) {
  describe(`demo in ${engine}`, { skip: unavailable(engine) }, () => suite(engine));
}

function suite(engine) {
  let browser;

  before(async () => {
    browser = await launch(engine);
  });

  after(async () => {
    await browser?.close();
  });

  /** Opens the playground at `width` × `height`; `errors` collects the page's uncaught errors. */
  async function open({ width = 1440, height = 900 } = {}) {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => {
      const message = error.message ?? String(error);
      // Firefox ESR 140 (Debian's on some machines, 2026-12) reports this at the playground's status changes, on main
      // before issue 42 too; over WebDriver BiDi its page errors include those of the page's frames, and where it comes
      // from is not found yet (the closing note of issue 42 says so). Every other error still counts.
      if (engine === 'firefox' && /^(Error: )?Permission denied to access property "length"$/.test(message)) return;
      errors.push(message);
    });
    await page.setViewport({ width, height });
    await page.goto(`${host.origin}/`);
    return { page, errors };
  }

  /** Waits until the status pill says `state` (idle, loading, ready, error). */
  const state = (page, value, timeout = MINUTE) =>
    page.waitForFunction(
      (v) => document.getElementById('state')?.dataset.state === v,
      { timeout, polling: 100 },
      value,
    );

  /** In the page: whether the element with `id` is slotted into <svc-embed> and rendered. */
  const shown = (id) => {
    const el = document.getElementById(id);
    return Boolean(
      el &&
      el.parentElement === document.getElementById('embed') &&
      el.assignedSlot &&
      el.checkVisibility() &&
      el.getBoundingClientRect().width > 0,
    );
  };

  test('slots switched off, then the "Custom loading slot" scenario: the card shows, and later statuses throw nothing', async () => {
    const { page, errors } = await open();
    try {
      await state(page, 'ready');
      await page.click('#custom-slots');
      assert.equal(await page.$eval('#custom-slots', (e) => e.checked), false);
      assert.equal(await page.evaluate(() => document.getElementById('slot-loading')), null, 'the cards are out');

      await page.click('#scenario-loading');
      assert.equal(await page.$eval('#custom-slots', (e) => e.checked), true, 'the scenario ticks the box again');
      // The embed starts 2.5 s late: the page's own loading card covers the frame meanwhile.
      await page.waitForFunction(shown, { timeout: 10_000, polling: 50 }, 'slot-loading');
      assert.equal(await page.$eval('#loading-title', (e) => e.textContent), 'Connecting to your analytics…');
      await state(page, 'ready');

      // More status changes: a session the tenant refuses (error, with the page's error card), then a good one.
      await page.select('#session', 'expired');
      await state(page, 'error');
      await page.waitForFunction(shown, { timeout: 10_000, polling: 50 }, 'slot-error');
      assert.deepEqual(
        await page.evaluate(() => [
          document.getElementById('error-title').textContent,
          document.getElementById('error-reason').textContent,
        ]),
        ['The embed stopped', 'embed-fatal-error'],
      );
      await page.select('#session', 'demo-acme');
      await state(page, 'ready');
      assert.deepEqual(errors, [], 'no uncaught error in the page');
    } finally {
      await page.close();
    }
  });

  test('slots off: the element shows its own loading and error content, and nothing throws', async () => {
    const { page, errors } = await open();
    try {
      await state(page, 'ready');
      await page.click('#custom-slots');
      await page.select('#session', 'expired');
      await state(page, 'error');
      await page.select('#session', 'demo-acme');
      await state(page, 'ready');
      assert.equal(await page.evaluate(() => document.querySelector('#embed [slot]')), null);
      assert.deepEqual(errors, [], 'no uncaught error in the page');
    } finally {
      await page.close();
    }
  });

  for (const [width, height] of [
    [1280, 800],
    [1440, 900],
    [1920, 1080],
  ]) {
    test(`at ${width} × ${height} the page fits the window: no page scrollbar`, async () => {
      const { page } = await open({ width, height });
      try {
        await state(page, 'ready');
        const size = await page.evaluate(() => ({
          scrollHeight: document.documentElement.scrollHeight,
          scrollWidth: document.documentElement.scrollWidth,
          innerHeight,
          innerWidth,
        }));
        assert.ok(
          size.scrollHeight <= size.innerHeight,
          `document ${size.scrollHeight} px tall in ${size.innerHeight}`,
        );
        assert.ok(size.scrollWidth <= size.innerWidth, `document ${size.scrollWidth} px wide in ${size.innerWidth}`);
      } finally {
        await page.close();
      }
    });
  }

  test('the chat opens on a welcome that fills its place, with questions to start from; one asked, it gives way', async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => {
      const message = error.message ?? String(error);
      // Firefox ESR 140 (Debian's on some machines, 2026-12) reports this at the playground's status changes, on main
      // before issue 42 too; over WebDriver BiDi its page errors include those of the page's frames, and where it comes
      // from is not found yet (the closing note of issue 42 says so). Every other error still counts.
      if (engine === 'firefox' && /^(Error: )?Permission denied to access property "length"$/.test(message)) return;
      errors.push(message);
    });
    try {
      await page.setViewport({ width: 1280, height: 800 });
      await page.goto(`${tenant.origin}/embed/chat?session=demo-acme`);
      await page.waitForSelector('.chat-welcome .starter', { timeout: MINUTE });
      const welcome = await page.evaluate(() => {
        const box = document.querySelector('.chat-welcome');
        const r = box.getBoundingClientRect();
        const above = document.querySelector('.chat-head').getBoundingClientRect().bottom;
        const below = document.querySelector('.ask').getBoundingClientRect().top;
        return {
          title: box.querySelector('h2').textContent,
          starters: [...box.querySelectorAll('.starter')].map((b) => b.lastElementChild.textContent),
          suggestionsShown: document.querySelector('.suggestions').checkVisibility(),
          // Between the header and the question box, and most of that space: no large blank area left.
          inside: r.top >= above && r.bottom <= below,
          share: r.height / (below - above),
        };
      });
      assert.equal(welcome.title, 'What would you like to know?');
      assert.deepEqual(
        welcome.starters,
        STARTERS.map(([key]) => STRINGS.en[key]),
      );
      assert.equal(welcome.suggestionsShown, false, 'the row of suggestions waits until a question was asked');
      assert.ok(welcome.inside && welcome.share > 0.8, `the welcome takes ${Math.round(welcome.share * 100)} %`);

      await page.click('.chat-welcome .starter');
      await page.waitForSelector('.msg.bot:not(.pending) table', { timeout: MINUTE });
      assert.deepEqual(
        await page.evaluate(() => ({
          asked: document.querySelector('.msg.user')?.textContent,
          welcome: Boolean(document.querySelector('.chat-welcome')),
          suggestionsShown: document.querySelector('.suggestions').checkVisibility(),
        })),
        { asked: STRINGS.en[STARTERS[0][0]], welcome: false, suggestionsShown: true },
      );
      assert.deepEqual(errors, [], 'no uncaught error in the page');
    } finally {
      await page.close();
    }
  });
}
