// The first load (issue 44): from navigation start to the embed's ready and to its first dashboard-loaded, each
// variant a full page navigation in a new tab, against a bare <iframe> written in the HTML.
//   floor   a bare <iframe> in the HTML, with the element's src, sandbox, allow, referrerpolicy and title
//   ssr     svc-embed/ssr's renderEmbed({ src, style }) in the HTML, and the CDN module bundle
//   client  today's path: a plain <svc-embed src> in the HTML, and the same bundle
// and, with `probes` (npm run bench -- --only first-load --first-load-probes), two that tell where a difference from
// the floor comes from:
//   markup  the SSR markup alone, without the bundle (the element is never defined)
//   bundle  the floor's bare <iframe>, with the bundle (the element is defined, and there is none in the page)
// The bundle is served at once and 100 ms late (a CDN miss); the floor loads no bundle. The embed is the simulated
// tenant's Sales overview on a site of its own (127.0.0.2), with a session minted for each page load through the
// tenant's session API (single-use: a frame loaded twice would be refused, so an element that did not adopt the
// server's frame cannot reach ready), and without the tenant's random latency, which would only add noise.
import { alternate, compare, median } from '../lib/stats.mjs';

const VARIANTS = ['floor', 'ssr', 'client'];
const PROBES = {
  markup: 'probe: the SSR markup without the bundle',
  bundle: 'probe: the bare <iframe> with the bundle loaded',
};
export const DELAYS = [0, 100];
const DASHBOARD = 'sales-overview';
const STYLE = 'display: block; width: 960px; height: 600px; border: 0';
// How long one load may take before the round fails: a 2-core machine under load can take seconds.
const LIMIT_MS = 20_000;

const escape = (text) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * In the page, first thing in its <head>, the same in every variant: when the frame's svc:event:ready and its first
 * svc:event:dashboard-loaded arrive (performance.now(), from navigation start), counting only messages from the
 * tenant's origin whose source is an iframe of the page (in the document or in an <svc-embed>'s shadow root).
 * `firstLoadResult(element, limitMs)`, called by the harness once the page has loaded, waits for both, and with
 * `element` for the <svc-embed> to reach status ready on the frame that said ready; it returns the times and what
 * went wrong, if anything.
 */
function recorder(tenant) {
  const t = { readies: 0, foreign: 0 };
  let readyFrom, readyFrame, loadedFrom;
  const waiters = [];
  const frameOf = (win) => {
    if (!win) return null;
    for (const f of document.getElementsByTagName('iframe')) if (f.contentWindow === win) return f;
    for (const el of document.getElementsByTagName('svc-embed'))
      for (const f of el.shadowRoot?.querySelectorAll('iframe') ?? []) if (f.contentWindow === win) return f;
    return null;
  };
  addEventListener('message', (e) => {
    const now = performance.now();
    const type = e.data?.type;
    if (type !== 'svc:event:ready' && type !== 'svc:event:dashboard-loaded') return;
    const frame = e.origin === tenant ? frameOf(e.source) : null;
    if (!frame) {
      t.foreign++;
      return;
    }
    if (type === 'svc:event:ready') {
      t.readies++;
      if (t.ready === undefined) [t.ready, readyFrom, readyFrame] = [now, e.source, frame];
    } else if (t.loaded === undefined) [t.loaded, loadedFrom] = [now, e.source];
    if (t.ready !== undefined && t.loaded !== undefined) for (const w of waiters.splice(0)) w();
  });
  customElements.whenDefined('svc-embed').then(() => (t.defined = performance.now()));
  document.addEventListener('svc-ready', () => (t.elementReady ??= performance.now()), true);
  window.firstLoadResult = async (element, limitMs) => {
    const end = performance.now() + limitMs;
    if (t.ready === undefined || t.loaded === undefined)
      await new Promise((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, limitMs);
      });
    const problems = [];
    if (t.ready === undefined) problems.push('no svc:event:ready from the frame');
    if (t.loaded === undefined) problems.push('no svc:event:dashboard-loaded from the frame');
    if (loadedFrom && loadedFrom !== readyFrom) problems.push('ready and dashboard-loaded came from different frames');
    if (t.readies > 1) problems.push(`${t.readies} ready messages`);
    const el = document.querySelector('svc-embed');
    if (element) {
      // Until it is ready, or has given up (a refused session, a timeout).
      while (el && el.status !== 'ready' && el.status !== 'error' && performance.now() < end)
        await new Promise((r) => setTimeout(r, 20));
      if (el?.status !== 'ready') problems.push(`the element's status is ${el?.status}, not ready`);
      else if (el.shadowRoot.querySelector('iframe[part~="frame"]') !== readyFrame)
        problems.push("the element's frame is not the frame that said ready");
    }
    const frames =
      document.getElementsByTagName('iframe').length + (el?.shadowRoot?.querySelectorAll('iframe').length ?? 0);
    if (frames !== 1) problems.push(`${frames} frames in the page`);
    const resources = performance.getEntriesByType('resource');
    return {
      ready: t.ready,
      loaded: t.loaded,
      problems,
      // What explains the figures: when the frame's request started, when the bundle arrived, when the element was
      // defined (the bundle evaluated) and said svc-ready, when the HTML was parsed.
      frameStart: resources.find((r) => r.name.startsWith(`${tenant}/embed/`))?.startTime,
      bundleEnd: resources.find((r) => r.name.includes('/cdn/svc-embed'))?.responseEnd,
      defined: t.defined,
      elementReady: t.elementReady,
      parsed: performance.getEntriesByType('navigation')[0]?.domInteractive,
      foreign: t.foreign,
    };
  };
}

/**
 * The page of one load: `variant` with the embed at `src` and the bundle `delay` ms late. The frame's attributes,
 * the URL check and the renderer are the built ones (dist/), imported here: the bench builds before it runs.
 */
export async function firstLoadPage({ variant, src, tenant, delay }) {
  const [{ ALLOW, REFERRER, SANDBOX, TITLE }, { resolveEmbedUrl }, { renderEmbed }] = await Promise.all([
    import('../../dist/frame.js'),
    import('../../dist/embed-url.js'),
    import('../../dist/ssr.js'),
  ]);
  const url = resolveEmbedUrl({ src })?.url;
  if (!url) throw new Error(`the element would refuse ${src}`);
  const bare = `<iframe sandbox="${SANDBOX}" allow="${ALLOW}" referrerpolicy="${REFERRER}" title="${TITLE}" src="${escape(url)}" style="${STYLE}"></iframe>`;
  const embed = {
    floor: bare,
    ssr: renderEmbed({ src, style: STYLE }),
    client: `<svc-embed src="${escape(src)}" style="${STYLE}"></svc-embed>`,
    markup: renderEmbed({ src, style: STYLE }),
    bundle: bare,
  }[variant];
  if (embed === undefined) throw new Error(`no first-load variant ${variant}`);
  const bundle =
    variant === 'floor' || variant === 'markup'
      ? ''
      : `\n<script type="module" src="/cdn/svc-embed.min.js?delay=${delay}"></script>`;
  return `<!doctype html>
<html lang="en">
<meta charset="utf-8">
<script>(${recorder})(${JSON.stringify(tenant)})</script>
<title>bench: first load, ${variant}</title>${bundle}
<style>body { margin: 0 }</style>
<body>
${embed}
`;
}

/**
 * Chromium and Firefox: ms from navigation start to the embed's ready and to its first dashboard-loaded, the SSR
 * markup and today's client-only element against a bare iframe in the HTML, the bundle served at once and 100 ms late.
 */
export async function firstLoadSuite({
  browser,
  name,
  label = name,
  pages,
  rounds,
  log,
  delays = DELAYS,
  keeper = true,
  settleMs = 300,
  page = firstLoadPage,
  probes = false,
}) {
  const { startTenant } = await import('../../packages/tenant/dist/index.js');
  const tenant = await startTenant({ port: 0, host: '127.0.0.2', allowOrigins: [pages.hostOrigin], latency: false });
  const prepared = new Map();
  const unroute = pages.route('/first-load.html', (url) => {
    const code = prepared.get(url.searchParams.get('id'));
    return code && { code, type: 'text/html; charset=utf-8' };
  });
  let loads = 0;
  let keeperTab;
  try {
    const mint = async () => {
      const res = await fetch(`${tenant.origin}/api/v1/embed/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
        body: JSON.stringify({ embedTenant: 'acme', ttlSeconds: 120 }),
      });
      if (res.status !== 201) throw new Error(`the tenant refused a session: HTTP ${res.status}`);
      return (await res.json()).session;
    };
    /** One full navigation of `key` ("variant@delay") in a new tab. */
    const load = async (key) => {
      const [variant, delay] = key.split('@');
      const session = await mint();
      const src = `${tenant.origin}/embed/dashboard/${DASHBOARD}?session=${encodeURIComponent(session)}`;
      const id = String(++loads);
      prepared.set(id, await page({ variant, src, tenant: tenant.origin, delay }));
      const tab = await browser.newPage();
      // Every frame the page ever had: a frame of the server's markup that the element did not adopt (replaced by
      // one of its own, however early) shows here as a second frame.
      let frames = 0;
      tab.on('frameattached', () => frames++);
      try {
        await tab.bringToFront();
        await tab.goto(`${pages.hostOrigin}/first-load.html?id=${id}`, { timeout: LIMIT_MS });
        const element = variant === 'ssr' || variant === 'client';
        const result = await tab.evaluate((el, ms) => window.firstLoadResult(el, ms), element, LIMIT_MS);
        if (frames !== 1) result.problems.push(`${frames} frames attached to the page over the load`);
        if (result.problems.length)
          throw new Error(`${name}, ${variant}, bundle +${delay} ms: ${result.problems.join('; ')}`);
        return result;
      } finally {
        prepared.delete(id);
        await tab.close().catch(() => {});
        // The closed tab's processes wind down before the next load starts.
        await new Promise((r) => setTimeout(r, settleMs));
      }
    };
    // A tab kept open with a frame of the tenant (private mode: no session to spend), so that each load's host and
    // embed sites find a browser already running processes for them, as the lifecycle pages keep one embed frame.
    if (keeper) {
      prepared.set(
        'keeper',
        `<!doctype html><meta charset="utf-8"><title>bench: first load, keeper</title><iframe src="${tenant.origin}/embed/dashboard/${DASHBOARD}"></iframe>`,
      );
      keeperTab = await browser.newPage();
      await keeperTab.goto(`${pages.hostOrigin}/first-load.html?id=keeper`, { timeout: LIMIT_MS });
    }
    const variants = probes ? [...VARIANTS, ...Object.keys(PROBES)] : VARIANTS;
    const keys = delays.flatMap((d) => variants.map((v) => `${v}@${d}`));
    log(`${name}: first load, ${rounds} rounds × ${keys.length} page loads…`);
    const runs = await alternate(keys, rounds, load);
    const rows = [];
    for (const d of delays) {
      const of = (v, field) => runs[`${v}@${d}`].map((r) => r[field]);
      const at = `${label}, bundle +${d} ms`;
      const med = (v, field) => {
        const values = of(v, field).filter((x) => x !== undefined);
        return values.length ? `${median(values).toFixed(0)}` : '–';
      };
      rows.push(
        compare(
          `first load, ${at}: navigation start → the embed's ready, SSR markup against a bare <iframe> in the HTML`,
          of('ssr', 'ready'),
          of('floor', 'ready'),
          1.02,
          'ms',
        ),
        compare(`  the same → its first dashboard-loaded`, of('ssr', 'loaded'), of('floor', 'loaded'), 1.02, 'ms'),
        compare(
          `  today's client-only <svc-embed>, ${at} → ready`,
          of('client', 'ready'),
          of('floor', 'ready'),
          undefined,
          'ms',
        ),
        compare(`  the same → dashboard-loaded`, of('client', 'loaded'), of('floor', 'loaded'), undefined, 'ms'),
        ...(probes ? Object.entries(PROBES) : []).flatMap(([v, what]) => [
          compare(`  ${what}, ${at} → ready`, of(v, 'ready'), of('floor', 'ready'), undefined, 'ms'),
          compare(`  the same → dashboard-loaded`, of(v, 'loaded'), of('floor', 'loaded'), undefined, 'ms'),
        ]),
        {
          figure: `  ${at}: where the time went, medians in ms from navigation start (floor / ssr / client)`,
          note:
            `HTML parsed ${VARIANTS.map((v) => med(v, 'parsed')).join(' / ')}; ` +
            `frame request ${VARIANTS.map((v) => med(v, 'frameStart')).join(' / ')}; ` +
            `bundle arrived – / ${med('ssr', 'bundleEnd')} / ${med('client', 'bundleEnd')}; ` +
            `element defined – / ${med('ssr', 'defined')} / ${med('client', 'defined')}; ` +
            `svc-ready – / ${med('ssr', 'elementReady')} / ${med('client', 'elementReady')}`,
        },
      );
    }
    return { rows, raw: { runs } };
  } finally {
    await keeperTab?.close().catch(() => {});
    unroute();
    await tenant.close();
  }
}
