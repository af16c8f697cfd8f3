// Mount/unmount (CPU and leaks, Chromium through CDP) and time to ready (both browsers).
import { readFileSync, readdirSync } from 'node:fs';
import { chromiumProbe, measure, openHost } from '../lib/browsers.mjs';
import { leakCheck, leftovers } from '../lib/leaks.mjs';
import { alternate, compare, median } from '../lib/stats.mjs';

/** Chromium: the host renderer's main-thread CPU per mount/unmount cycle, then the leak check. */
export async function mountSuite({ browser, pages, rounds, cycles, leakCycles, log }) {
  const tabs = {};
  const probes = {};
  try {
    const variants = ['element', 'bare', 'lit'];
    for (const v of variants) {
      tabs[v] = await openHost(browser, pages);
      probes[v] = await chromiumProbe(tabs[v]);
      await tabs[v].evaluate((variant) => window.bench.cycles(variant, 10), v);
    }
    log(`chromium: mount/unmount, ${rounds} rounds × ${cycles} cycles…`);
    const runs = await alternate(variants, rounds, async (v) => {
      await tabs[v].bringToFront();
      return measure(probes[v], () => tabs[v].evaluate((variant, n) => window.bench.cycles(variant, n), v, cycles));
    });
    const perCycle = Object.fromEntries(
      Object.entries(runs).map(([v, ms]) => [v, ms.map((m) => (m.threadMs * 1000) / cycles)]),
    );
    log(`chromium: leak check, ${leakCycles} cycles…`);
    const leakPage = await openHost(browser, pages);
    tabs.leak = leakPage;
    const leaks = await leakCheck(leakPage, (await chromiumProbe(leakPage)).cdp, leakCycles);
    const rows = [
      compare(
        'mount/unmount cycle, chromium, host main-thread CPU',
        perCycle.element,
        perCycle.bare,
        undefined,
        'µs/cycle',
      ),
      // What being an element on Lit costs, and what <svc-embed> adds to that. The goal is on what it adds: an
      // element has a shadow root, and the spec's element is built on Lit.
      compare(
        '  the same, against the least Lit element (shadow root, iframe, listener)',
        perCycle.element,
        perCycle.lit,
        1.1,
        'µs/cycle',
      ),
      compare('  the least Lit element, against the bare iframe', perCycle.lit, perCycle.bare, undefined, 'µs/cycle'),
    ];
    const d = leaks.delta;
    const clean =
      d.messageListeners === 0 &&
      d.frames === 0 &&
      d.documents === 0 &&
      d.iframes === 0 &&
      d.embeds === 0 &&
      leaks.after.messageListeners === 0;
    const leakRow = {
      figure: `${leakCycles.toLocaleString('en')} mount/unmount cycles, what is left after GC`,
      note:
        `${leaks.after.messageListeners} window message listeners, ${d.frames} frames, ${d.documents} documents, ${d.iframes} iframes, ` +
        `${d.embeds} <svc-embed>, ${d.nodes} DOM nodes; heap ${d.heapUsedBytes >= 0 ? '+' : ''}${(d.heapUsedBytes / 1024).toFixed(1)} KiB`,
      ok: clean,
    };
    return { rows: [...rows, leakRow], raw: { runs, leaks } };
  } finally {
    await Promise.all(Object.values(tabs).map((t) => t.close().catch(() => {})));
  }
}

/** Both browsers: ms from inserting a fresh embed to its ready, <svc-embed> against a bare iframe. */
export async function readySuite({ browser, name, label = name, pages, rounds, log }) {
  const tab = await openHost(browser, pages);
  try {
    await tab.evaluate(() => window.bench.timeToReady('element'));
    log(`${name}: time to ready, ${rounds} rounds…`);
    const runs = await alternate(
      ['element', 'bare'],
      rounds,
      (v) => tab.evaluate((variant) => window.bench.timeToReady(variant), v),
      { warmup: 2 },
    );
    return {
      rows: [compare(`time to ready, ${label}, wall time`, runs.element, runs.bare, 1.05, 'ms')],
      raw: { runs },
    };
  } finally {
    await tab.close().catch(() => {});
  }
}

/**
 * Both browsers, against the simulated tenant: the renewal gap, what the viewer sees of one session renewal. The
 * element's box is filmed through the swap (test/support/renewal-scene.mjs: dark, a region filter, on `/details`)
 * and each screenshot compared with the settled dashboard. The gap is the longest stretch in which screenshots
 * differ from it in more than 2 % of their pixels; ahead of expiry, against after it (the expired page, the loading
 * state, a new frame).
 */
export async function renewalSuite({ browser, name, label = name, rounds, log }) {
  const { startTenant } = await import('../../packages/tenant/dist/index.js');
  const { startRenewalHost, watchRenewals } = await import('../../test/support/renewal-scene.mjs');
  const { THRESHOLD } = await import('../../test/support/pixels.mjs');
  const tenant = await startTenant({ port: 0 });
  const host = await startRenewalHost(tenant.origin);
  try {
    log(`${name}: renewal gap in pixels, ${rounds} rounds…`);
    // A session of 15 s: renewed ahead 10 s after it begins, or expired after 15.
    const runs = await alternate(
      ['ahead', 'expiry'],
      rounds,
      async (mode) => {
        // The screenshots themselves stay out of the results.
        const { offending, ...swap } = (await watchRenewals(browser, host, { mode, firstTtl: 15, swaps: 1 })).swaps[0];
        return { ...swap, offending: offending.map((o) => o.index) };
      },
      { warmup: 0 },
    );
    const gap = (mode) => runs[mode].map((s) => s.longestMs);
    const worst = (mode) => Math.max(...runs[mode].map((s) => s.worst));
    const pct = (share) => `${(share * 100).toFixed(1)} %`;
    const shots = runs.ahead.map((s) => s.shots);
    const interval = median(runs.ahead.map((s) => s.intervalMs));
    const missed = [...runs.ahead, ...runs.expiry].reduce((n, s) => n + s.missed, 0);
    return {
      rows: [
        compare(
          `renewal gap, ${label}, simulated tenant: the longest time the element's box differs from the settled dashboard in over 2 % of its pixels, ahead of expiry against after it`,
          gap('ahead'),
          gap('expiry'),
          0,
          'ms',
        ),
        {
          figure: `  ${label}: the worst screenshot of any round, ahead of expiry (goal: none over 2 %)`,
          note:
            `${pct(worst('ahead'))} of pixels differ (after expiry: ${pct(worst('expiry'))}); ` +
            `${Math.min(...shots)}–${Math.max(...shots)} screenshots a round, one every ${interval.toFixed(0)} ms (median)` +
            `${missed ? `; ${missed} refused by the browser` : ''}`,
          ok: worst('ahead') <= THRESHOLD,
        },
      ],
      raw: { runs },
    };
  } finally {
    await host.close();
    await tenant.close();
  }
}

/** The proportional set size (PSS) of a process and its descendants, in bytes, from /proc (Linux). */
function pss(rootPid) {
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const tree = new Set([rootPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parents)
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
  }
  let bytes = 0;
  for (const pid of tree) {
    try {
      bytes += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0) * 1024;
    } catch {
      // Gone meanwhile.
    }
  }
  return bytes;
}

/**
 * Chromium, against the simulated tenant: a route change to a ready dashboard, three dashboards prerendered and
 * switched with show()/park() against a new <svc-embed> per route; the memory one prerendered embed takes; and what
 * 1,000 switches leave behind.
 */
export async function routesSuite({ browser, pages, rounds, leakSwitches, log }) {
  const { startTenant } = await import('../../packages/tenant/dist/index.js');
  const tenant = await startTenant({ port: 0 });
  const tab = await browser.newPage();
  try {
    const cdp = await tab.createCDPSession();
    await cdp.send('Performance.enable');
    await tab.goto(`${pages.hostOrigin}/routes.html`);
    await tab.waitForFunction(() => window.bench !== undefined);
    await tab.bringToFront();
    const empty = await leftovers(tab, cdp);
    const before = pss(browser.process().pid);
    await tab.evaluate((origin) => window.bench.setup(origin), tenant.origin);
    await new Promise((r) => setTimeout(r, 2000));
    const perEmbed = (pss(browser.process().pid) - before) / 3;
    log(`chromium: route changes, ${rounds} rounds…`);
    const runs = await alternate(['prerendered', 'created'], rounds, (variant, round) =>
      variant === 'prerendered'
        ? tab.evaluate((n) => window.bench.prerendered(n), round)
        : tab.evaluate((origin, n) => window.bench.created(origin, n), tenant.origin, round),
    );
    log(`chromium: ${leakSwitches} switches, then what is left…`);
    // From a prerendered one on view (the last round may have left a created one there).
    await tab.evaluate(() => window.bench.switches(3));
    const parked = await leftovers(tab, cdp);
    await tab.evaluate((n) => window.bench.switches(n), leakSwitches);
    const switched = await leftovers(tab, cdp);
    await tab.evaluate(() => window.bench.teardown());
    await new Promise((r) => setTimeout(r, 500));
    const gone = await leftovers(tab, cdp);
    const frame = median(runs.prerendered);
    const keys = ['messageListeners', 'frames', 'documents', 'iframes', 'embeds'];
    const kept = keys.every((k) => switched[k] === parked[k]);
    const released = keys.every((k) => gone[k] === empty[k]);
    return {
      rows: [
        compare(
          'route change to a ready dashboard, chromium, simulated tenant: prerendered (show/park) against a new <svc-embed> per route',
          runs.prerendered,
          runs.created,
          undefined,
          'ms',
        ),
        {
          figure: '  prerendered: within one frame (≤ 16.7 ms, median)',
          note: `${frame.toFixed(1)} ms; one prerendered embed takes about ${(perEmbed / 1e6).toFixed(0)} MB (PSS of every Chromium process)`,
          ok: frame <= 16.7,
        },
        {
          figure: `${leakSwitches.toLocaleString('en')} show/park switches of 3 prerendered embeds, then their removal`,
          note:
            `after the switches: ${keys.map((k) => `${switched[k] - parked[k]} ${k}`).join(', ')}; ` +
            `after removal: ${keys.map((k) => `${gone[k] - empty[k]} ${k}`).join(', ')}; ` +
            `heap ${((gone.heapUsedBytes - empty.heapUsedBytes) / 1024).toFixed(1)} KiB`,
          ok: kept && released,
        },
      ],
      raw: { runs, perEmbedBytes: perEmbed, empty, parked, switched, gone },
    };
  } finally {
    await tab.close().catch(() => {});
    await tenant.close();
  }
}
