// Accessibility: axe-core (the version pinned in devDependencies) in headless Chromium on every page of
// the demo host and of the simulated tenant, in the light and in the dark colour scheme (prefers-color-scheme
// emulated, frames included). A page is scanned in the states a visitor meets: loaded, filtered, with a
// drilldown and the debug panel open, refused, with chat answers. Each document is scanned on its own (the
// host page, then each embed frame in it). A serious or critical violation fails, and so do the three
// structure rules every page here keeps (one h1, one main landmark, all content inside landmarks); the
// failure lists each rule, its impact and the elements axe names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import axe from 'axe-core';
import { startTenant } from '@svc-embed/tenant';
import { startHost } from '../../demo/host-server.mjs';
import { launch, unavailable } from '../support/browsers.mjs';
import { evaluateIn, frameTargets } from '../support/frame-targets.mjs';

const MINUTE = 60_000;
const STRUCTURE = ['page-has-heading-one', 'landmark-one-main', 'region'];
const failing = (v) => v.impact === 'serious' || v.impact === 'critical' || STRUCTURE.includes(v.id);
const bundle = new URL('../../cdn/svc-embed.min.js', import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let tenant;
let host;

before(async () => {
  assert.ok(existsSync(bundle), 'cdn/svc-embed.min.js is missing: run npm run build first');
  tenant = await startTenant({ port: 0, latency: false });
  host = await startHost({ port: 0, tenantOrigin: tenant.origin });
});

after(async () => {
  await host?.close();
  await tenant?.close();
});

// ---- in the page

/** In a tenant document: true once the surface has drawn everything it was loading (and `selector` is in it). */
const settled = (selector) =>
  !document.querySelector('#root.boot, .skeleton, .msg.pending, [aria-busy="true"]') &&
  Boolean(document.querySelector('#root > *')) &&
  (!selector || Boolean(document.querySelector(selector)));

/** In the host page: true once the status pill (or every pill, side by side) says `state`. */
const pills = (state) => {
  const all = [...document.querySelectorAll('.state')];
  return all.length > 0 && all.every((e) => e.dataset.state === state);
};

/** In any document: axe's violations, each with its nodes' targets and the first line of their summary. */
const runAxe = () =>
  window.axe.run(document, { iframes: false, resultTypes: ['violations'] }).then((r) =>
    r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({
        target: n.target.join(' '),
        summary: (n.failureSummary ?? '').split('\n').slice(1, 2).join('').trim(),
      })),
    })),
  );

/** In any document: the colour scheme it is drawn in (the embed's own, else the media query's). */
const schemeOf = () =>
  document.documentElement.dataset.effectiveScheme ??
  (matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light');

// ---- the pages and their states

const tenantPage = (path) => () => `${tenant.origin}${path}`;

/** Clicks `selector` in the document once it is there, and waits until the tenant document settles again. */
async function clickAndSettle(frame, selector) {
  await frame.waitForSelector(selector, { timeout: MINUTE });
  await frame.$eval(selector, (e) => e.click());
  await frame.waitForFunction(settled, { timeout: MINUTE, polling: 100 });
}

/** In a host page: every embed frame in it, the iframes in each <svc-embed>'s shadow root. */
const EMBED_IFRAMES = `[...document.querySelectorAll('svc-embed')].flatMap((e) => [...(e.shadowRoot?.querySelectorAll('iframe') ?? [])])`;

/** `promise`, or a rejection once it has taken `ms`. */
const within = (ms, promise) =>
  Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`no answer within ${ms / 1000} s`)))]);

/**
 * The page's embed frames that show a tenant document (at a URL holding `part`): each `{url, session}`, where
 * `session` is the CDP session of the frame's own target. The host (localhost) and the tenant (127.0.0.1) are
 * different sites, so each such frame is out of process; it is reached through its own target, not through
 * puppeteer's frame (frame-targets.mjs says why). A frame still at about:blank is in the page's process and left
 * out, and so is a frame whose document does not answer within 10 s (it is navigating).
 */
async function embedFrames(page, part = '') {
  const frames = [];
  for (const { session } of await frameTargets(page, EMBED_IFRAMES)) {
    if (!session) continue;
    const url = await within(
      10_000,
      evaluateIn(session, () => location.href),
    ).catch(() => '');
    if (url.startsWith(tenant.origin) && url.includes(part)) frames.push({ url, session });
  }
  return frames;
}

/**
 * Waits until the page has `count` frames from the tenant (at a URL holding `part`), all settled, with `selector`
 * in each when given. Polled over the frames attached now: a frame that a page replaces (a renewal's swap, a reload)
 * is left for its successor, never waited on after it has gone. On a timeout, says which frame is not settled, and
 * what keeps it busy.
 */
async function framesSettled(page, count, part = '/embed/', selector = undefined) {
  const deadline = Date.now() + MINUTE;
  for (;;) {
    const frames = await embedFrames(page, part);
    const done = await Promise.all(
      frames.map((f) => within(10_000, evaluateIn(f.session, settled, selector)).catch(() => false)),
    );
    if (frames.length >= count && done.every(Boolean)) return;
    if (Date.now() > deadline) {
      const busy = await Promise.all(
        frames.map((f) =>
          within(
            10_000,
            evaluateIn(f.session, () =>
              [...document.querySelectorAll('#root.boot, .skeleton, .msg.pending, [aria-busy="true"]')]
                .map((e) => `${e.localName}.${e.className}`)
                .join(' '),
            ),
          ).catch((e) => e.message),
        ),
      );
      throw new Error(
        `${frames.length} embed frames (${count} wanted); not settled: ${frames
          .map(
            (f, i) =>
              !done[i] &&
              `${new URL(f.url).pathname} (${busy[i] || `no #root content${selector ? ` or no ${selector}` : ''}`})`,
          )
          .filter(Boolean)
          .join(', ')}`,
      );
    }
    await sleep(100);
  }
}

/**
 * The states scanned: each opens `url`, runs `setup`, and has `frames` embed frames (none when left out), every one of
 * them scanned; `fixedFrameSchemes`: the frames keep their own colour schemes, whatever the page's.
 */
const STATES = [
  {
    name: 'demo host: playground, loaded',
    url: () => `${host.origin}/`,
    frames: 1,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await framesSettled(page, 1);
    },
  },
  {
    name: 'demo host: playground, a filter applied, then a page the embed does not have',
    url: () => `${host.origin}/`,
    frames: 1,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await framesSettled(page, 1);
      await page.select('#filter-value', 'EMEA');
      await page.waitForFunction(() => document.getElementById('filter-applied').textContent.includes('EMEA'));
      await page.$eval('#path', (e) => {
        e.value = '/no-such-page';
      });
      await page.click('#go');
      await framesSettled(page, 1, '/embed/', '.not-found');
    },
  },
  {
    name: 'demo host: playground, a session the tenant refuses (the page’s error card)',
    url: () => `${host.origin}/`,
    frames: 1,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await page.select('#session', 'expired');
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'error');
      await framesSettled(page, 1);
    },
  },
  {
    name: 'demo host: playground, chat surface',
    url: () => `${host.origin}/`,
    frames: 1,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await page.click('#surface button[data-value="chat"]');
      await framesSettled(page, 1, '/embed/chat');
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
    },
  },
  {
    name: 'demo host: side by side, both filtered (light English pane, dark German pane)',
    url: () => `${host.origin}/compare`,
    frames: 2,
    // The panes have their own schemes (light and dark), whatever the page's.
    fixedFrameSchemes: true,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await framesSettled(page, 2);
      await page.click('#both-region');
      await framesSettled(page, 2, '/embed/', '.chip[data-filter="orders.region"]');
    },
  },
  {
    name: 'demo host: four dashboards sharing a session provider',
    // Ten-minute sessions: no renewal swaps a frame out while the check runs.
    url: () => `${host.origin}/sessions?ttl=600`,
    frames: 4,
    // The fourth pane has its own scheme (dark), whatever the page's.
    fixedFrameSchemes: true,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await framesSettled(page, 4);
    },
  },
  {
    name: 'demo host: routes, prerendered and created per route, one route shown on each side',
    url: () => `${host.origin}/routes`,
    frames: 4,
    async setup(page) {
      await page.waitForFunction(
        () => [...document.querySelectorAll('svc-embed')].filter((e) => e.ready).length === 3,
        {
          timeout: MINUTE,
          polling: 100,
        },
      );
      await page.click('.tabs[data-side="prerendered"] button[data-route="sales"]');
      await page.click('.tabs[data-side="created"] button[data-route="support"]');
      await page.waitForFunction(() => [...document.querySelectorAll('.timing')].every((e) => e.dataset.ms), {
        timeout: MINUTE,
        polling: 100,
      });
      await framesSettled(page, 2);
    },
  },
  {
    name: 'demo host: Back and links, opened from a link that holds both embeds’ paths',
    url: () => `${host.origin}/history?sales=/details&app=/workbooks`,
    frames: 2,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await framesSettled(page, 2);
      await page.waitForFunction(() => document.querySelectorAll('#params code').length === 2, {
        timeout: MINUTE,
        polling: 100,
      });
    },
  },
  {
    name: 'demo host: server-rendered, the frame from the HTML adopted and its dashboard loaded',
    url: () => `${host.origin}/ssr`,
    frames: 1,
    async setup(page) {
      await page.waitForFunction(pills, { timeout: MINUTE, polling: 100 }, 'ready');
      await page.waitForFunction(() => document.getElementById('t-dashboard').dataset.ms, {
        timeout: MINUTE,
        polling: 100,
      });
      await framesSettled(page, 1);
    },
  },
  // What a browser shows at the tenant's own address.
  { name: 'tenant: its root page', url: tenantPage('/'), async setup() {} },
  {
    name: 'tenant: dashboard, Sales overview',
    url: tenantPage('/embed/dashboard/sales-overview?session=demo-acme'),
  },
  {
    name: 'tenant: dashboard, Orders page with a drilldown and the debug panel open',
    url: tenantPage('/embed/dashboard/sales-overview?session=demo-acme'),
    async setup(page) {
      await page.waitForFunction(settled, { timeout: MINUTE, polling: 100 });
      await clickAndSettle(page, '.tabs a:not(.active)');
      await clickAndSettle(page, '[data-widget="orders-by-status"] .legend-item');
      await page.waitForSelector('.drill tbody tr', { timeout: MINUTE });
      await page.click('.debug-toggle');
    },
  },
  { name: 'tenant: dashboard, Support operations', url: tenantPage('/embed/dashboard/support-ops?session=demo-acme') },
  { name: 'tenant: app, home', url: tenantPage('/embed/app?session=demo-acme') },
  ...[
    ['workbooks', '/workbooks'],
    ['a workbook', '/workbooks/q3-planning'],
    ['a dashboard', '/dashboards/sales-overview'],
    ['its chat', '/chat'],
  ].map(([what, path]) => ({
    name: `tenant: app, ${what}`,
    url: tenantPage('/embed/app?session=demo-acme'),
    async setup(page) {
      await page.waitForFunction(settled, { timeout: MINUTE, polling: 100 });
      // A workbook is reached from the list of workbooks; the rest from the side navigation.
      const workbook = path.startsWith('/workbooks/');
      await clickAndSettle(page, `.nav-item[data-path="${workbook ? '/workbooks' : path}"]`);
      if (workbook) await clickAndSettle(page, 'table.data tbody a');
    },
  })),
  { name: 'tenant: chat, a new conversation', url: tenantPage('/embed/chat?session=demo-acme') },
  {
    name: 'tenant: chat, an answer and a refusal',
    url: tenantPage('/embed/chat?session=demo-acme'),
    async setup(page) {
      await page.waitForFunction(settled, { timeout: MINUTE, polling: 100 });
      await clickAndSettle(page, '.starter');
      await clickAndSettle(page, '.suggestion:nth-child(5)');
      await page.waitForSelector('.msg.bot.error', { timeout: MINUTE });
    },
  },
  { name: 'tenant: a session that has expired', url: tenantPage('/embed/dashboard/sales-overview?session=expired') },
];

const skip = unavailable('chromium');

describe('axe-core finds no serious or critical violation, and no missing h1, main or landmark', { skip }, () => {
  let browser;

  before(async () => {
    browser = await launch('chromium');
  });

  after(async () => {
    await browser?.close();
  });

  for (const scheme of ['light', 'dark']) {
    for (const state of STATES) {
      test(`${state.name} (${scheme})`, async () => {
        await check(browser, state, scheme);
      });
    }
  }
});

/** One state in one scheme: the page set up, then axe-core run on it and on each of the tenant's frames in it. */
async function check(browser, state, scheme) {
  const page = await browser.newPage();
  try {
    await page.setViewport({ width: 1440, height: 900 });
    await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }]);
    await page.goto(state.url());
    if (state.setup) await state.setup(page);
    else await page.waitForFunction(settled, { timeout: MINUTE, polling: 100 });
    // Colour transitions (0.2 s) and the log's entry animation end before colours are measured.
    await sleep(400);

    // The page's own document, then each embed frame in it.
    const documents = [
      {
        where: new URL(page.url()).pathname,
        embedded: false,
        run: (fn, before) => page.evaluate(`${before};(${fn})()`),
      },
      ...(await embedFrames(page)).map(({ url, session }) => ({
        where: `frame ${new URL(url).pathname}`,
        embedded: true,
        run: (fn, before) => evaluateIn(session, fn, undefined, before),
      })),
    ];
    const problems = [];
    let scanned = 0;
    for (const { where, embedded, run } of documents) {
      if (!(embedded && state.fixedFrameSchemes)) {
        assert.equal(await run(schemeOf, ''), scheme, `${where} is drawn in the ${scheme} scheme`);
      }
      const violations = await run(runAxe, axe.source);
      scanned++;
      for (const v of violations.filter(failing)) {
        problems.push(
          `${where}: ${v.id} (${v.impact}) ${v.help}\n` +
            v.nodes.map((n) => `    ${n.target}${n.summary ? ` :: ${n.summary}` : ''}`).join('\n'),
        );
      }
    }
    // The page's own document, and every embed frame the state has: a frame left out (one that did not answer) fails.
    assert.equal(scanned, 1 + (state.frames ?? 0), 'documents scanned');
    if (problems.length) assert.fail(`axe-core ${axe.version}, ${scheme} scheme:\n${problems.join('\n')}`);
  } finally {
    await page.close();
  }
}
