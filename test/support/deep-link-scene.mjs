// A load that must show a path, as the viewer sees it, for the deep-link pixel test: an <svc-embed> of 960 × 600
// (the built CDN bundle, on the renewal scene's host page) on the simulated tenant, whose embed says ready, then
// shows `/`, and goes to a path only when it is sent there. Its box is filmed (test/support/pixels.mjs) from before
// the load begins until the dashboard at the path has settled, and every screenshot is compared with two references
// taken first in the same page and box: the settled default view (`/`) and the settled path.
//   deep-link     <svc-embed path="/details"> inserted, with a fresh session
//   reinsertion   an element whose viewer clicked their way to `/details`, taken out and inserted again: its frame
//                 goes, and the new one (a fresh session from its sessionProvider) must come back to the viewer's path
import { clipOf, film, settled } from './pixels.mjs';
import { scenePage } from './renewal-scene.mjs';
import { evaluateIn, frameTargets } from './frame-targets.mjs';

/** The path the scenes open at: the dashboard's second page, whose widgets are not those of `/`. */
export const PATH = '/details';
// The film's margins: it starts once a screenshot of the empty box is in, and goes on this long after the dashboard
// at the path has loaded and the page has painted twice, so that what comes late is seen too.
const TAIL_MS = 600;
// Re-insertion: the element stays out of the document this long (the box is empty meanwhile).
const OUT_MS = 150;
// While filming, the element hears the new frame's ready this late (see setup): the embed's default view is then in
// its frame for that long at least, where a film of some screenshots a second sees it. Without it, the embed goes on
// to the path within a few tens of milliseconds, mostly between two screenshots.
export const LATE_MS = 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * In the host page: what the frames say and what the element does, in ms of the page. For each frame window (numbered
 * in order of its first message), the path it last viewed, and the path at which its last dashboard-loaded came.
 */
function setup() {
  const t0 = performance.now();
  const at = () => Math.round(performance.now() - t0);
  const frames = [];
  const trace = [];
  const events = [];
  const viewed = new Map();
  const loaded = new Map();
  const current = () => window.sceneEl?.shadowRoot?.querySelector('iframe[part~="frame"]') ?? null;
  // The element hears a new frame's ready, and what the frame says after it, `sceneLateMs` late (once, then it is
  // unset): as when the host page's event loop is busy with other tasks, and still paints between them. The frame,
  // in a process of its own, shows its default view meanwhile: whatever covers it must be up before the ready is
  // heard. The element's message listener is wrapped (it is added at connection, after this), and the events it is
  // handed late are the very events, in order.
  const add = EventTarget.prototype.addEventListener;
  const remove = EventTarget.prototype.removeEventListener;
  const wrapped = new WeakMap();
  let queue;
  window.addEventListener = function (type, fn, options) {
    if (type !== 'message' || typeof fn !== 'function') return add.call(this, type, fn, options);
    if (!wrapped.has(fn))
      wrapped.set(fn, function (e) {
        if (queue) queue.push(() => fn.call(this, e));
        else fn.call(this, e);
      });
    return add.call(this, type, wrapped.get(fn), options);
  };
  window.removeEventListener = function (type, fn, options) {
    return remove.call(this, type, (type === 'message' && wrapped.get(fn)) || fn, options);
  };
  // A capture listener of the window runs before the element's.
  add.call(
    window,
    'message',
    (e) => {
      const type = e.data?.type;
      if (typeof type !== 'string' || !type.startsWith('svc:event:')) return;
      if (!frames.includes(e.source)) frames.push(e.source);
      log(e, type);
      const late = window.sceneLateMs;
      if (type === 'svc:event:ready' && late && !queue) {
        window.sceneLateMs = 0;
        queue = [];
        trace.push(`${at()} the element hears this ${late} ms late`);
        setTimeout(() => {
          trace.push(`${at()} the element hears frame ${frames.indexOf(e.source)} (${queue.length} messages)`);
          const held = queue;
          queue = undefined;
          for (const deliver of held) deliver();
        }, late);
      }
    },
    true,
  );
  const log = (e, type) => {
    const frame = frames.indexOf(e.source);
    const path = e.data.payload?.path;
    const iframe = current();
    // What the element showed when the message came: its status, and whether its frame was covered.
    const entry = {
      at: at(),
      frame,
      type: type.slice(10),
      path,
      status: window.sceneEl?.status,
      held: iframe?.contentWindow === e.source ? iframe.hasAttribute('held') : undefined,
    };
    events.push(entry);
    trace.push(
      `${entry.at} frame ${frame}: ${entry.type}${path ? ` ${path}` : ''} (${entry.status}${entry.held ? ', held' : ''})`,
    );
    if (type === 'svc:event:view') {
      viewed.set(e.source, path);
      loaded.delete(e.source);
    } else if (type === 'svc:event:dashboard-loaded') loaded.set(e.source, viewed.get(e.source));
  };
  const readies = [];
  let mounts = 0;
  window.sceneMount = ({ src, path, provider }) => {
    const el = document.createElement('svc-embed');
    const mount = ++mounts;
    el.title = 'Sales overview';
    if (path) el.setAttribute('path', path);
    if (provider)
      el.sessionProvider = async () => {
        const res = await fetch('/session?ttl=300');
        if (!res.ok) throw new Error(`GET /session: HTTP ${res.status}`);
        return (await res.json()).session;
      };
    el.addEventListener('svc-ready', () => {
      const win = current()?.contentWindow;
      const ready = { at: at(), mount, frame: frames.indexOf(win), viewed: viewed.get(win), status: el.status };
      readies.push(ready);
      trace.push(`${ready.at} svc-ready: frame ${ready.frame}, which last viewed ${ready.viewed}`);
    });
    el.addEventListener('svc-status', (e) =>
      trace.push(
        `${at()} svc-status ${e.detail.previous} -> ${e.detail.status}${e.detail.reason ? ` (${e.detail.reason})` : ''}`,
      ),
    );
    el.src = src;
    window.sceneEl = el;
    document.body.append(el);
    trace.push(`${at()} inserted${path ? ` with path ${path}` : ''}`);
    return at();
  };
  window.sceneState = (path) => {
    const win = current()?.contentWindow;
    return {
      frame: win ? frames.indexOf(win) : -1,
      status: window.sceneEl?.status,
      readies: readies.filter((r) => r.mount === mounts).length,
      viewed: win ? (viewed.get(win) ?? null) : null,
      settled: !!win && viewed.get(win) === path && loaded.get(win) === path,
    };
  };
  // The element's own svc-ready events (the references' element has its own).
  window.sceneLog = () => ({ trace, events, readies: readies.filter((r) => r.mount === mounts) });
  window.sceneNow = at;
}

/** Waits, polling the page, until `test(state)` holds for `sceneState(path)`; rejects after `timeout` ms. */
async function until(page, path, test, what, timeout) {
  const end = Date.now() + timeout;
  for (;;) {
    const state = await page.evaluate((p) => window.sceneState(p), path);
    if (test(state)) return state;
    if (Date.now() > end) throw new Error(`${what}: not within ${timeout} ms (last: ${JSON.stringify(state)})`);
    await sleep(100);
  }
}

/** Two animation frames of the page: what the last message's frame drew is on screen. */
const painted = (page) =>
  page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));

/**
 * A real mouse click on the dashboard's other tab (it has two pages, `/` and PATH), in the current frame of the
 * element: a cross-origin frame, reached in Chromium through its own target (frame-targets.mjs says why), in Firefox
 * through puppeteer's frame.
 */
async function clickTab(page, engine) {
  const find = () => {
    const tab = document.querySelector('.tab:not(.active)');
    if (!tab) return null;
    const r = tab.getBoundingClientRect();
    return { x: r.x + r.width / 2, y: r.y + r.height / 2 };
  };
  const frameOf = () => window.sceneEl.shadowRoot.querySelector('iframe[part~="frame"]');
  let at;
  const [target] = engine === 'chromium' ? await frameTargets(page, `(${frameOf})()`) : [];
  if (target?.session) at = await evaluateIn(target.session, find);
  else {
    const handle = await page.evaluateHandle(frameOf);
    at = await (await handle.asElement().contentFrame()).evaluate(find);
    await handle.dispose();
  }
  if (!at) throw new Error('no other tab in the embed');
  const { x, y } = await page.evaluate((p) => {
    const r = window.sceneEl.shadowRoot.querySelector('iframe[part~="frame"]').getBoundingClientRect();
    return { x: r.x + p.x, y: r.y + p.y };
  }, at);
  await page.mouse.click(x, y);
}

async function mint(host) {
  const res = await fetch(`${host.origin}/session?ttl=300`);
  if (!res.ok) throw new Error(`GET /session: HTTP ${res.status}`);
  return (await res.json()).session;
}
const srcOf = (host, session) =>
  `${host.tenantOrigin}/embed/dashboard/sales-overview?session=${encodeURIComponent(session)}`;

/**
 * Opens the host page (`startRenewalHost`) in `browser` (`engine`: 'chromium' or 'firefox'), takes the references (an
 * element without a path, settled at `/`, then at PATH, then the empty box), and films `scenario` ('deep-link' or
 * 'reinsertion'). Resolves with:
 *   `reference`      the references' size, [width, height]
 *   `distinct`       the share of the box's pixels that only the default view shows (not PATH, not the empty box)
 *   `apart`          the share of the box's pixels in which the two views differ
 *   `stills`         the references' PNGs, { default, target, blank }
 *   `shots`          the film: [{ at, end, pageAt, png, toDefault, toTarget, likeness }], where `toDefault` and
 *                    `toTarget` are the shares of pixels that differ from each reference, and `likeness` the share
 *                    of the default view's own pixels (`distinct`) that the screenshot shows as it does
 *   `before`, `after`  how many screenshots came before the load began (insertion, or re-insertion), and how many
 *                    were asked for after the dashboard at PATH had loaded
 *   `missed`, `intervalMs`  refused screenshots, and the median time between two
 *   `startAt`, `loadedAt`   in ms of the page: when the load began, and when the dashboard at PATH had loaded
 *   `events`, `readies`, `trace`, `frame`  what the frames said and the element did; `frame` numbers the filmed load's
 */
export async function watchDeepLink(
  browser,
  engine,
  host,
  { scenario = 'deep-link', lateMs = LATE_MS, timeout = 90_000 } = {},
) {
  const { judged, page } = await scenePage(browser, host, timeout);
  try {
    await page.evaluate(setup);
    // This process's clock in the page's (within half a round trip): screenshots placed in the page's trace.
    const asked = performance.now();
    const offset = (await page.evaluate(() => window.sceneNow())) - (asked + performance.now()) / 2;

    // The references, in the same box: the default view, settled; the path, settled; the empty box.
    await page.evaluate((o) => window.sceneMount(o), { src: srcOf(host, await mint(host)) });
    await until(page, '/', (s) => s.readies === 1 && s.settled, 'the reference at /', timeout);
    await painted(page);
    const clip = await clipOf(page, 'svc-embed');
    const stills = { default: await settled(page, clip, judged) };
    await page.evaluate((p) => window.sceneEl.navigate(p), PATH);
    await until(page, PATH, (s) => s.settled, `the reference at ${PATH}`, timeout);
    await painted(page);
    stills.target = await settled(page, clip, judged);
    await page.evaluate(() => window.sceneEl.remove());
    await painted(page);
    stills.blank = await settled(page, clip, judged);
    const reference = await judged.keep('default', stills.default);
    for (const name of ['target', 'blank']) await judged.keep(name, stills[name]);
    const distinct = await judged.distinct('default', ['target', 'blank']);
    const apart = await judged.shareWith('default', stills.target);

    // The scene up to its film.
    let mount;
    if (scenario === 'deep-link') {
      const src = srcOf(host, await mint(host));
      mount = () => page.evaluate((o) => window.sceneMount(o), { src, path: PATH });
    } else if (scenario === 'reinsertion') {
      await page.evaluate((o) => window.sceneMount(o), { src: srcOf(host, await mint(host)), provider: true });
      const first = await until(page, '/', (s) => s.readies === 1 && s.settled, 'ready at /', timeout);
      // The viewer goes to PATH with a click in the dashboard, as they would.
      await clickTab(page, engine);
      await until(page, PATH, (s) => s.frame === first.frame && s.settled, `the viewer at ${PATH}`, timeout);
      await painted(page);
      mount = () =>
        page.evaluate(async (out) => {
          const el = window.sceneEl;
          el.remove();
          const removed = window.sceneNow();
          window.sceneLog().trace.push(`${removed} removed`);
          await new Promise((r) => setTimeout(r, out));
          document.body.append(el);
          window.sceneLog().trace.push(`${window.sceneNow()} inserted again`);
          return removed;
        }, OUT_MS);
    } else throw new Error(`unknown scenario ${scenario}`);

    // The film: from a screenshot of the box before the load, until the dashboard at PATH has loaded in a new frame,
    // the element is ready, and TAIL_MS more.
    // The element filmed: a new one (deep link), or the one the viewer was using, with its frame and svc-ready.
    const { frame: old, readies: readiesBefore } =
      scenario === 'deep-link' ? { frame: -1, readies: 0 } : await page.evaluate((p) => window.sceneState(p), PATH);
    await page.evaluate((ms) => (window.sceneLateMs = ms), lateMs);
    let first;
    const begun = new Promise((r) => (first = r));
    let startAt;
    let loadedAt;
    let sentAt;
    let seenAt;
    let done;
    const ended = (async () => {
      await begun;
      sentAt = performance.now();
      startAt = await mount();
      const state = await until(
        page,
        PATH,
        (s) => s.frame !== old && s.frame >= 0 && s.settled && s.readies > readiesBefore,
        `the new frame at ${PATH}, ready`,
        timeout,
      );
      seenAt = performance.now();
      loadedAt = await page.evaluate(() => window.sceneNow());
      await painted(page);
      await sleep(TAIL_MS);
      done = state;
    })();
    const shots = await film(page, clip, ended, { onShot: () => first() });
    const log = await page.evaluate(() => window.sceneLog());

    // The verdicts, after the film: decoding while filming would take CPU from the page filmed.
    for (const s of shots) {
      s.pageAt = Math.round(s.at + offset);
      s.toDefault = await judged.shareWith('default', s.png);
      s.toTarget = await judged.shareWith('target', s.png);
      s.likeness = await judged.likeness('default', s.png);
    }
    const gaps = shots
      .slice(1)
      .map((s, i) => s.at - shots[i].at)
      .sort((a, b) => a - b);
    return {
      reference,
      distinct,
      apart,
      stills,
      shots,
      // By cause, in this process's time: screenshots that had come before the load was asked for, and ones asked
      // for once the dashboard at PATH was seen loaded.
      before: shots.filter((s) => s.end <= sentAt).length,
      after: shots.filter((s) => s.at >= seenAt).length,
      missed: shots.missed ?? 0,
      intervalMs: gaps.length ? gaps[gaps.length >> 1] : undefined,
      startAt,
      loadedAt,
      frame: done.frame,
      readiesBefore,
      ...log,
    };
  } finally {
    await judged.close().catch(() => {});
    await page.close().catch(() => {});
  }
}
