// The demo's server-rendered page (/ssr), in headless Chromium and Firefox ESR: the host server renders its HTML at each
// request with svc-embed/ssr and a single-use session minted for it, so the frame starts loading with the HTML and the
// element adopts it. The dashboard is shown, the frame was requested once, and a reload and Back each give a new
// session that works.
// Without the element's bundle, the frame in the HTML still loads, under the page's policy: the early-message script
// and the shadow root's style are allowed by their hashes alone.
//
// Requests are counted at the tenant, through a counting proxy in front of it: the frame's src names the proxy. That is
// the one count that sees every request the browser makes for a frame, whatever made it. The page's own resource
// timing reports an iframe's first navigation from its src only: Firefox, reloading, gives the frame the URL it had
// before (a second request, refused), and that request is not in it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { once } from 'node:events';
import { startTenant } from '@svc-embed/tenant';
import { EARLY_SCRIPT_HASH, STYLE_HASH } from '../../dist/ssr.js';
import { startHost } from '../../demo/host-server.mjs';
import { enginesFrom, launch, unavailable } from '../support/browsers.mjs';

const MINUTE = 60_000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const bundle = new URL('../../cdn/svc-embed.min.js', import.meta.url);

let tenant;
let proxy;
let host;

/**
 * A loopback proxy to `target` that records the path and query of every request (`requests`). The Host header names
 * the target, as its guard requires; the tenant's pages use relative URLs, so the browser keeps talking to the proxy.
 */
async function countingProxy(target) {
  const { host: targetHost } = new URL(target);
  const requests = [];
  const server = createServer((req, res) => {
    requests.push(req.url);
    const upstream = request(
      new URL(req.url, target),
      { method: req.method, headers: { ...req.headers, host: targetHost } },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

before(async () => {
  assert.ok(existsSync(bundle), 'cdn/svc-embed.min.js is missing: run npm run build first');
  tenant = await startTenant({ port: 0 });
  proxy = await countingProxy(tenant.origin);
  host = await startHost({ port: 0, tenantOrigin: proxy.origin });
});

after(async () => {
  await host?.close();
  await proxy?.close();
  await tenant?.close();
});

/** The sessions of the embed pages requested since request `from`, in order (one entry per request). */
const framesSince = (from) =>
  proxy.requests
    .slice(from)
    .filter((url) => url.startsWith('/embed/dashboard/'))
    .map((url) => new URL(url, 'http://x').searchParams.get('session'));

for (const engine of enginesFrom('E2E_BROWSERS')) {
  describe(`demo server-rendered page in ${engine}`, { skip: unavailable(engine) }, () => suite(engine));
}

// ---- in the host page

/** What the page shows, and what it is: the status pill, each time and fact row, the element and its frame. */
const shown = () => {
  const embed = document.querySelector('svc-embed');
  const frame = embed?.shadowRoot?.querySelector('iframe[part=frame]');
  const rows = Object.fromEntries([...document.querySelectorAll('.first-load dd')].map((d) => [d.id, d.textContent]));
  const times = Object.fromEntries(
    [...document.querySelectorAll('.timeline dd')].map((d) => [d.id, d.dataset.ms ? Number(d.dataset.ms) : null]),
  );
  return {
    pill: document.getElementById('state')?.dataset.state,
    status: embed?.status,
    rows,
    times,
    htmlSession: embed && new URL(embed.getAttribute('src')).searchParams.get('session'),
    frameSession: frame ? new URL(frame.src).searchParams.get('session') : null,
    frames: embed?.shadowRoot?.querySelectorAll('iframe').length ?? 0,
  };
};

/** True once the element is ready and the dashboard has loaded (the page noted its time). */
const dashboardShown = () =>
  document.querySelector('svc-embed')?.status === 'ready' &&
  Boolean(document.getElementById('t-dashboard')?.dataset.ms);

function suite(engine) {
  let browser;

  before(async () => {
    browser = await launch(engine);
  });

  after(async () => {
    await browser?.close();
  });

  /**
   * Waits until `fn(arg)`, which returns a boolean (a node does not cross WebDriver BiDi as one), holds in the page.
   * Polled with evaluate(): waitForFunction() makes its poller with
   * `Function()` in the page, which this page's policy (no 'unsafe-eval') refuses in Firefox.
   */
  async function until(page, fn, arg, what) {
    const deadline = Date.now() + MINUTE;
    let last;
    while (Date.now() < deadline) {
      try {
        if (await page.evaluate(fn, arg)) return;
      } catch (error) {
        last = error.message;
      }
      await sleep(100);
    }
    throw new Error(`${what}: not within a minute${last ? ` (${last})` : ''}`);
  }

  test('the dashboard is shown from the frame in the HTML, requested once; a reload and Back give a new session that works', async () => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(error.message ?? String(error)));
    let step = 'load';
    try {
      await page.setViewport({ width: 1440, height: 900 });
      const from = proxy.requests.length;
      const res = await page.goto(`${host.origin}/ssr`);
      assert.equal(res.status(), 200);
      assert.equal(res.headers()['cache-control'], 'no-store');
      await until(page, dashboardShown, undefined, 'the dashboard');
      // The embed's requests after its ready (queries) are not frames; give a late second frame time to show.
      await sleep(1000);
      const first = await page.evaluate(shown);
      assert.equal(first.pill, 'ready');
      assert.equal(first.rows.frame, 'adopted: the one in the HTML');
      assert.equal(first.rows.provider, 'none', 'the provider is not asked at the first load');
      assert.equal(first.frameSession, first.htmlSession);
      assert.match(first.rows.session, new RegExp(`^…${first.htmlSession.slice(-6)}, minted for this page load$`));
      assert.equal(first.frames, 1);
      assert.deepEqual(
        framesSince(from),
        [first.htmlSession],
        'one request for the frame, with the session of the HTML',
      );
      // The frame started before the element's bundle had run, and the page shows each step.
      for (const id of ['t-html', 't-defined', 't-ready', 't-dashboard'])
        assert.ok(first.times[id] > 0, `${id}: ${JSON.stringify(first.times)}`);
      if (first.times['t-frame'] !== null)
        assert.ok(first.times['t-frame'] < first.times['t-defined'], JSON.stringify(first.times));
      assert.ok(first.times['t-defined'] <= first.times['t-ready'], JSON.stringify(first.times));

      step = 'reload';
      const beforeReload = proxy.requests.length;
      await page.reload();
      await until(page, dashboardShown, undefined, 'the dashboard after a reload');
      await sleep(1000);
      const again = await page.evaluate(shown);
      const frames = framesSince(beforeReload);
      assert.equal(again.pill, 'ready');
      assert.notEqual(again.htmlSession, first.htmlSession, 'the server minted a new session for the new page');
      assert.notEqual(again.frameSession, first.htmlSession, 'the frame shows a new session');
      assert.equal(frames.filter((s) => s === again.frameSession).length, 1, `its session loaded once: ${frames}`);
      if (frames[0] === first.htmlSession) {
        // The browser gave the frame the URL it had before the reload (Firefox does): the spent session, which the
        // tenant refused; the element asked its provider, and loaded the answer in a frame of its own.
        assert.deepEqual(frames, [first.htmlSession, again.frameSession]);
        assert.equal(again.rows.provider, '1 (last: refused)');
        assert.equal(again.rows.frame, 'replaced by the element');
      } else {
        // Otherwise the frame in the new HTML, with the new session, adopted as at the first load.
        assert.deepEqual(frames, [again.htmlSession]);
        assert.equal(again.rows.frame, 'adopted: the one in the HTML');
        assert.equal(again.rows.provider, 'none');
      }
      if (engine === 'chromium') assert.deepEqual(frames, [again.htmlSession], 'Chromium loads the new HTML');

      step = 'Back';
      // Away to another page and Back. Both engines were seen to ask the server for the page again (it is no-store)
      // and to give the frame the URL it had, the spent session with it: refused, then the provider's session. A page
      // restored from the back/forward cache instead is the same live document, its frame as it was.
      const spent = new Set([first.htmlSession, again.htmlSession, again.frameSession]);
      await page.evaluate(() => (window.leftAt = Date.now()));
      await page.goto(`${host.origin}/config.json`);
      const beforeBack = proxy.requests.length;
      await page.goBack();
      await until(page, dashboardShown, undefined, 'the dashboard after Back');
      await sleep(1000);
      const back = await page.evaluate(shown);
      const restored = await page.evaluate(() => typeof window.leftAt === 'number');
      const framesBack = framesSince(beforeBack);
      assert.equal(back.pill, 'ready');
      if (restored) {
        assert.equal(back.frameSession, again.frameSession, 'from the back/forward cache: the frame as it was');
        assert.deepEqual(framesBack, []);
      } else {
        assert.ok(!spent.has(back.frameSession), 'a new session in the frame');
        assert.equal(framesBack.filter((s) => s === back.frameSession).length, 1, `loaded once: ${framesBack}`);
        assert.ok(
          framesBack.every((s) => s === back.frameSession || spent.has(s)),
          `no other session requested: ${framesBack}`,
        );
      }
      assert.deepEqual(errors, []);
    } catch (error) {
      const state = await page.evaluate(shown).catch((e) => e.message);
      error.message = `${step}: ${error.message}\n  page: ${JSON.stringify(state)}\n  page errors: ${errors.join(' | ')}`;
      throw error;
    } finally {
      await page.close();
    }
  });

  test("without the element's bundle, the frame in the HTML loads, styled, under the page's policy", async () => {
    const page = await browser.newPage();
    try {
      await page.setRequestInterception(true);
      page.on('request', (req) => (req.url().endsWith('/cdn/svc-embed.min.js') ? req.abort() : req.continue()));
      const from = proxy.requests.length;
      const res = await page.goto(`${host.origin}/ssr`);
      const policy = res.headers()['content-security-policy'];
      assert.match(policy, /script-src 'self' 'sha256-[^;]+'; style-src 'self' 'sha256-[^;]+';/);
      assert.ok(policy.includes(EARLY_SCRIPT_HASH) && policy.includes(STYLE_HASH), policy);
      assert.ok(!/unsafe-inline|unsafe-eval/.test(policy), policy);
      await until(
        page,
        () => Boolean(document.querySelector('svc-embed')?.shadowRoot?.querySelector('iframe')),
        undefined,
        'a frame',
      );
      const state = await page.evaluate(() => {
        const frame = document.querySelector('svc-embed').shadowRoot.querySelector('iframe');
        const style = getComputedStyle(frame);
        return {
          defined: Boolean(customElements.get('svc-embed')),
          // The early-message script ran: it made its queue (allowed by EARLY_SCRIPT_HASH).
          early: Array.isArray(window[Symbol.for('svc-embed.early')]),
          // The shadow root's style applies (allowed by STYLE_HASH): an iframe has a 2 px inset border by default.
          border: style.borderTopWidth,
          width: frame.getBoundingClientRect().width,
          host: document.querySelector('svc-embed').getBoundingClientRect().width,
        };
      });
      assert.deepEqual(
        { ...state, width: state.width === state.host },
        { defined: false, early: true, border: '0px', width: true, host: state.host },
      );
      const deadline = Date.now() + MINUTE;
      while (framesSince(from).length === 0 && Date.now() < deadline) await sleep(100);
      assert.equal(framesSince(from).length, 1, 'the frame in the HTML is requested, with no element defined');
    } finally {
      await page.close();
    }
  });
}
