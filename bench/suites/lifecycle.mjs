// Mount/unmount (CPU and leaks, Chromium through CDP) and time to ready (both browsers).
import { chromiumProbe, measure, openHost } from '../lib/browsers.mjs';
import { leakCheck } from '../lib/leaks.mjs';
import { alternate, compare } from '../lib/stats.mjs';

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
 * Chromium, against the simulated tenant: the renewal gap, the time during one session renewal when the viewer has
 * no ready dashboard on view (bench/pages/renewal.js), ahead of expiry against after it (today's path).
 */
export async function renewalSuite({ browser, pages, rounds, log }) {
  const { startTenant } = await import('../../packages/tenant/dist/index.js');
  const tenant = await startTenant({ port: 0 });
  const tab = await browser.newPage();
  try {
    // Sessions from the tenant's session-generation API, as a customer's backend gets them.
    await tab.exposeFunction('mint', async (ttlSeconds) => {
      const res = await fetch(`${tenant.origin}/api/v1/embed/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
        body: JSON.stringify({ embedTenant: 'acme', ttlSeconds }),
      });
      if (res.status !== 201) throw new Error(`POST /api/v1/embed/sessions: HTTP ${res.status}`);
      const { session, expiresAt } = await res.json();
      return { session, expiresAt };
    });
    await tab.goto(`${pages.hostOrigin}/renewal.html`);
    await tab.waitForFunction(() => window.bench !== undefined);
    log(`chromium: renewal gap, ${rounds} rounds…`);
    const runs = await alternate(
      ['ahead', 'expiry'],
      rounds,
      (mode) => tab.evaluate((m, origin) => window.bench.renewalGap(m, origin), mode, tenant.origin),
      { warmup: 0 },
    );
    const row = compare(
      'renewal gap, chromium, simulated tenant: no ready dashboard on view, ahead of expiry against after it',
      runs.ahead,
      runs.expiry,
      0,
      'ms',
    );
    return { rows: [row], raw: { runs } };
  } finally {
    await tab.close().catch(() => {});
    await tenant.close();
  }
}
