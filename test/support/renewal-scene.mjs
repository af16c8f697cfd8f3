// A session renewal as the viewer sees it, for the renewal pixel test and the bench's renewal row: an
// <svc-embed> of 960 × 600 on the simulated tenant, in the dark scheme, with a region filter, the viewer on
// `/details`, filmed through each swap (test/support/pixels.mjs) and compared with the settled dashboard.
//   ahead    the element knows the session's expiry (sessionExpiresAt, and the provider's { session, expiresAt }):
//            it renews ahead of it, behind the visible frame
//   expiry   it does not: the embed shows its "session expired" page, then the element renews (its loading state,
//            a new frame)
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import { filterParam } from '@svc-embed/protocol';
import { THRESHOLD, clipOf, film, judge, score, settled } from './pixels.mjs';

const BUNDLE = new URL('../../cdn/svc-embed.min.js', import.meta.url);
const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>renewal, filmed</title>
<style>html,body{margin:0;background:#fff}svc-embed{position:absolute;left:20px;top:20px;width:960px;height:600px}</style>
<script type="module" src="/svc-embed.min.js"></script>
`;
const PATH = '/details';
// The film of a swap starts this long before the visible session ends. The element renews 10 s plus twice the
// dashboard's render before it, but never sooner than 5 s after the load: with the scene's sessions of 12-15 s, from
// 5 s after the load, up to 10 s before the end.
const LEAD_MS = 10000;
// After the swap and the new frame's dashboard, the film goes on this long: what comes late is seen too.
const TAIL_MS = 600;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The host page's server on http://localhost:<port>: `/` (a page that loads the element's CDN bundle), the bundle,
 * and `/session?ttl=<s>`, a fresh session of the tenant at `tenantOrigin` minted through its session API with the
 * demo admin key, as a customer's backend would (one per call: a session is used for one frame). Resolves with
 * `{ origin, tenantOrigin, expiresAt(session), close }`; `expiresAt` gives the end, in epoch ms, of a session it minted.
 */
export async function startRenewalHost(tenantOrigin) {
  const ends = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://localhost');
    try {
      if (req.method === 'GET' && url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE);
      } else if (req.method === 'GET' && url.pathname === '/svc-embed.min.js') {
        res
          .writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store' })
          .end(await readFile(BUNDLE));
      } else if (
        req.method === 'GET' &&
        url.pathname === '/session' &&
        /^[0-9]{1,4}$/.test(url.searchParams.get('ttl'))
      ) {
        const minted = await fetch(`${tenantOrigin}/api/v1/embed/sessions`, {
          method: 'POST',
          headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
          body: JSON.stringify({ embedTenant: 'acme', ttlSeconds: Number(url.searchParams.get('ttl')) }),
        });
        if (minted.status !== 201) throw new Error(`POST /api/v1/embed/sessions: HTTP ${minted.status}`);
        const { session, expiresAt } = await minted.json();
        ends.set(session, Date.parse(expiresAt));
        res
          .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify({ session, expiresAt }));
      } else {
        res.writeHead(404).end();
      }
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(String(error?.message ?? error));
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, 'localhost', resolve);
  });
  return {
    origin: `http://localhost:${server.address().port}`,
    tenantOrigin,
    expiresAt: (session) => ends.get(session),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}

/** In the host page: the element, set up as a viewer who picked the dark scheme, a filter and the details page. */
async function mount({ src, expiresAt, filter, ttl, mode, path }) {
  const el = document.createElement('svc-embed');
  el.title = 'Sales overview';
  el.setAttribute('color-scheme', 'dark');
  el.setAttribute('filter', filter);
  // Each frame's view of the viewer's path, and its dashboard-loaded after that view, as the frames post them.
  const viewed = new Set();
  const loaded = new Set();
  // What each frame (numbered in order of its first message) said, and when each svc-ready came, in ms of the page.
  const frames = [];
  const trace = [];
  const t0 = performance.now();
  const at = () => Math.round(performance.now() - t0);
  addEventListener('message', (e) => {
    const type = e.data?.type;
    if (typeof type === 'string' && type.startsWith('svc:event:')) {
      if (!frames.includes(e.source)) frames.push(e.source);
      const path = e.data.payload?.path;
      trace.push(`${at()} frame ${frames.indexOf(e.source)}: ${type.slice(10)}${path ? ` ${path}` : ''}`);
    }
    if (type === 'svc:event:view') {
      if (e.data.payload?.path === path) viewed.add(e.source);
      else viewed.delete(e.source);
    } else if (type === 'svc:event:dashboard-loaded' && viewed.has(e.source)) loaded.add(e.source);
  });
  let readies = 0;
  let readyAt;
  el.addEventListener('svc-ready', () => {
    readies++;
    readyAt = at();
    const win = el.shadowRoot.querySelector('iframe[part~="frame"]')?.contentWindow;
    trace.push(`${at()} svc-ready: frame ${frames.indexOf(win)} on view`);
  });
  el.sessionProvider = async () => {
    // Renewed after expiry, a session that lasts: the film is about one renewal.
    const res = await fetch(`/session?ttl=${mode === 'ahead' ? ttl : 300}`);
    if (!res.ok) throw new Error(`GET /session: HTTP ${res.status}`);
    const body = await res.json();
    return mode === 'ahead' ? body : body.session;
  };
  if (mode === 'ahead') el.sessionExpiresAt = expiresAt;
  el.src = src;
  document.body.append(el);
  window.scene = () => {
    const frame = el.shadowRoot.querySelector('iframe[part~="frame"]');
    return {
      readies,
      readyAt,
      status: el.status,
      session: frame && new URL(frame.src).searchParams.get('session'),
      settled: !!frame && loaded.has(frame.contentWindow),
    };
  };
  window.sceneTrace = () => trace;
  window.sceneNow = at;
  await el.whenReady();
  el.navigate(path);
}

/**
 * Opens the host page in `browser`, sets the element up (`mode`: 'ahead' or 'expiry'; a first session of `firstTtl`
 * s, room to set up and settle, then sessions of `ttl` s, or long ones after expiry), waits
 * for the settled dashboard, whose screenshot is the reference, then films `swaps` renewals, each from LEAD_MS before
 * its session ends until the new frame shows the viewer's page with its dashboard loaded, and TAIL_MS more.
 * Resolves with `{ reference: [width, height], still, swaps: [score + { before, after, offending }], trace }`:
 * `still` is the reference's PNG; `before` counts the screenshots that came before the swap (the element's svc-ready),
 * `after` those asked for after it, and `offending` holds those over THRESHOLD, `{ index, pageAt, png }`; `trace` lists, in ms of the page, the
 * frames' events and each svc-ready, where `pageAt` places a screenshot.
 */
/**
 * The judge's page, then the host page that is filmed (1000 × 640, in front, which the browser renders at full rate),
 * once the element is defined there.
 */
export async function scenePage(browser, host, timeout) {
  const judged = await judge(browser);
  const page = await browser.newPage();
  await page.setViewport({ width: 1000, height: 640 });
  await page.goto(`${host.origin}/`);
  await page.bringToFront();
  await page.waitForFunction(() => customElements.get('svc-embed'), { timeout });
  return { judged, page };
}

export async function watchRenewals(
  browser,
  host,
  { mode = 'ahead', firstTtl = 15, ttl = 12, swaps = 2, timeout = 90_000 } = {},
) {
  const { judged, page } = await scenePage(browser, host, timeout);
  try {
    const first = await (await fetch(`${host.origin}/session?ttl=${firstTtl}`)).json();
    const src = `${host.tenantOrigin}/embed/dashboard/sales-overview?session=${encodeURIComponent(first.session)}`;
    await page.evaluate(mount, {
      src,
      expiresAt: first.expiresAt,
      filter: filterParam('orders', 'region', 'EMEA'),
      ttl,
      mode,
      path: PATH,
    });
    const state = () => page.evaluate(() => window.scene());
    // This process's clock in the page's (within half a round trip): screenshots placed in the page's trace.
    const asked = performance.now();
    const offset = (await page.evaluate(() => window.sceneNow())) - (asked + performance.now()) / 2;
    await page.waitForFunction(() => window.scene().settled, { timeout, polling: 100 });
    const clip = await clipOf(page, 'svc-embed');
    const still = await settled(page, clip, judged);
    const reference = await judged.reference(still);
    const films = [];
    for (let k = 1; k <= swaps; k++) {
      const before = await state();
      const ends = host.expiresAt(before.session);
      if (!ends) throw new Error(`the session on view was not minted by the host`);
      // Late (a slow machine), the film starts at once: what counts is that it starts before the swap.
      await sleep(ends - LEAD_MS - Date.now());
      let swapAt;
      const until = (async () => {
        const end = Date.now() + timeout;
        for (;;) {
          const now = await state();
          swapAt = now.readies > before.readies ? now.readyAt : undefined;
          if (swapAt !== undefined && now.session !== before.session && now.settled) break;
          if (Date.now() > end) throw new Error(`swap ${k}: not settled on the new session in ${timeout} ms`);
          await sleep(100);
        }
        // Two animation frames: what the dashboard-loaded frame drew is on screen.
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        await sleep(TAIL_MS);
      })();
      const shots = await film(page, clip, until);
      films.push({ shots, swapAt });
    }
    const results = [];
    for (const { shots, swapAt } of films) {
      const scored = await score(shots, judged);
      results.push({
        ...scored,
        // In the page's time: screenshots that came before the swap, and ones asked for after it.
        before: shots.filter((s) => s.end + offset < swapAt).length,
        after: shots.filter((s) => s.at + offset > swapAt).length,
        // The screenshots over the threshold themselves, to look at when a test fails.
        offending: shots.flatMap((s, i) =>
          scored.shares[i] > THRESHOLD ? [{ index: i, pageAt: Math.round(s.at + offset), png: s.png }] : [],
        ),
      });
    }
    return { reference, still, swaps: results, trace: await page.evaluate(() => window.sceneTrace()) };
  } finally {
    await judged.close().catch(() => {});
    await page.close().catch(() => {});
  }
}
