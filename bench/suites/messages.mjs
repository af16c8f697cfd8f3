// The message path: bursts of valid events from the cross-site embed frame, synthetic MessageEvents,
// and the foreign-message flood, each variant in a page of its own (bench/pages/host.js).
import { chromiumProbe, firefoxProbe, measure, openHost } from '../lib/browsers.mjs';
import { alternate, compare, pairDiffs } from '../lib/stats.mjs';

/** Whether the embed frames are targets of their own, i.e. out of the host's process (site isolation). */
function siteIsolated(browser, pages) {
  return browser.targets().some((t) => t.type() !== 'page' && t.url().startsWith(`${pages.embedOrigin}/`));
}

/** µs per message of each measurement, by variant. */
const perMessage = (by, key, n) =>
  Object.fromEntries(Object.entries(by).map(([v, ms]) => [v, ms.map((m) => (m[key] * 1000) / n)]));

const US = 'µs/msg';
// The row of the element against the least a host that keeps its rules can cost, in each phase. The goal is on
// this row: the rules (every valid event read by readEvent, one DOM event dispatched for it, transferred ports
// refused) cost what they cost in any host, so the rows against a bare listener are information only.
const AGAINST_RULES =
  "  the same, against bare + the protocol's readEvent + no ports + one dispatch (the least a host that keeps the element's rules can cost)";
const RULES_GOAL = 1.1;

/**
 * `name` is chromium, firefox (Fission) or firefox-1p (one content process). The figure is the host's
 * main-thread CPU where it can be read (Chromium over CDP, Firefox with Fission from /proc), else wall
 * time: in one content process the embed shares the host's thread, and its whole burst runs before the
 * host's first message, so the clock starts at that first message.
 */
export async function messageSuite({
  browser,
  name,
  label = name,
  pages,
  rounds,
  syntheticRounds = rounds,
  burst,
  synthetic,
  flood,
  log,
}) {
  // Every variant runs in every phase, even where it is not compared: a tab that skipped a phase has less
  // garbage and a smaller heap behind it, and measured up to 1.3× cheaper in the next one.
  const variants = ['element', 'bare', 'dispatch', 'validate'];
  const tabs = {};
  const probes = {};
  const rows = [];
  const raw = {};
  try {
    for (const v of variants) {
      tabs[v] = await openHost(browser, pages, v);
      probes[v] =
        name === 'chromium'
          ? await chromiumProbe(tabs[v])
          : name === 'firefox'
            ? await firefoxProbe(browser, tabs[v])
            : undefined;
    }
    const cpu = variants.every((v) => probes[v]);
    const metric = cpu ? 'threadMs' : 'wallMs';
    const what = cpu ? 'host main-thread CPU' : 'wall time';
    raw.metric = metric;
    if (name === 'chromium') {
      raw.siteIsolated = siteIsolated(browser, pages);
      if (!raw.siteIsolated)
        throw new Error('the embed frames share the host process (no site isolation): no IPC would be measured');
    }
    if (name === 'firefox') raw.hostPids = Object.fromEntries(variants.map((v) => [v, probes[v]?.pid]));
    const options = { fromFirst: name === 'firefox-1p' };
    const run = (v, action) => async () => {
      await tabs[v].bringToFront();
      return measure(probes[v], action);
    };

    log(`${label}: ${burst} valid events from the embed frame, ${rounds} rounds…`);
    const ipc = await alternate(variants, rounds, (v) =>
      run(v, () => tabs[v].evaluate((n, o) => window.bench.burst(n, o).then((r) => r.ms), burst, options))(),
    );
    raw.ipc = ipc;
    const ipcUs = perMessage(ipc, metric, burst);
    rows.push(
      compare(
        `${burst.toLocaleString('en')} valid events from the embed frame → svc-* events, ${label}, ${what}`,
        ipcUs.element,
        ipcUs.bare,
        undefined,
        US,
      ),
    );
    rows.push(compare('  the same, against bare + one dispatch', ipcUs.element, ipcUs.dispatch, undefined, US));
    rows.push(compare(AGAINST_RULES, ipcUs.element, ipcUs.validate, RULES_GOAL, US));
    if (name === 'firefox-1p') return { rows, raw };

    if (name === 'chromium') {
      // Firefox refuses a cross-origin window as the source of a synthetic MessageEvent.
      log(`${label}: ${synthetic} synthetic MessageEvents, ${syntheticRounds} rounds…`);
      const syn = await alternate(variants, syntheticRounds, (v) =>
        run(v, () => tabs[v].evaluate((n) => window.bench.synthetic(n), synthetic))(),
      );
      raw.synthetic = syn;
      const synUs = perMessage(syn, metric, synthetic);
      rows.push(
        compare(
          `${synthetic.toLocaleString('en')} synthetic MessageEvents (no IPC), ${label}, ${what}`,
          synUs.element,
          synUs.dispatch,
          undefined,
          US,
        ),
      );
      rows.push(compare(AGAINST_RULES, synUs.element, synUs.validate, RULES_GOAL, US));
      rows.push(
        compare(
          '  bare + readEvent + no ports + one dispatch, against bare + one dispatch (what the validation costs)',
          synUs.validate,
          synUs.dispatch,
          undefined,
          US,
        ),
      );
    }

    log(`${label}: foreign-message flood…`);
    const fl = await alternate(variants, rounds, (v) =>
      run(v, () => tabs[v].evaluate((n) => window.bench.flood(n), flood))(),
    );
    raw.flood = fl;
    const floodUs = perMessage(fl, metric, flood);
    const extra = pairDiffs(floodUs.element, floodUs.bare);
    const sign = (x) => `${x >= 0 ? '+' : ''}${x.toFixed(3)}`;
    rows.push({
      ...compare(
        `${flood.toLocaleString('en')} foreign messages, ${label}, ${what}`,
        floodUs.element,
        floodUs.bare,
        undefined,
        US,
      ),
      extra,
      note: `extra per ignored message ${sign(extra.median)} µs (${sign(extra.min)} to ${sign(extra.max)})`,
    });
    return { rows, raw };
  } finally {
    await Promise.all(Object.values(tabs).map((t) => t.close().catch(() => {})));
  }
}
