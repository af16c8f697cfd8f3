// Sessions off the happy path (issue 42): one describe per item of the issue, each with a test that fails on the code
// the review ran. Against the test peer (test/support/peer.html) on two origins. The renewal ahead of expiry runs on a
// fake clock (sinon: timers, Date and performance) that moves only when a test ticks it: every wait for the peer
// yields real tasks without moving it, so what a test asserts is order and outcome, never how fast the machine is.
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import {
  canMoveBefore,
  cleanup,
  envelope,
  frameOf,
  framePage,
  hasLoaded,
  oneSvcEvent,
  other,
  peerPost,
  peerReady,
  peerUrl,
  statuses,
  tenant as peer,
  windowOf,
} from './helpers.js';
import { prerender, show } from '../../src/prerender.js';
import type { SvcEmbedElement } from '../../src/index.js';

// ---------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------

const MINUTE = 60_000;
/** The last moment (item 3): this long before expiry, a frame behind that shows the viewer's path swaps in anyway. */
const LAST_MOMENT = 2000;

// Real time, taken before any test fakes it: the bound of every wait, and the sleeps of the tests on a real clock.
const realNow = performance.now.bind(performance);
const realSetTimeout = setTimeout;
const realSleep = (ms: number) => new Promise<void>((resolve) => realSetTimeout(resolve, ms));

/**
 * Session values of this run's own: the spent-session registry outlives a test (once shared, it lives on the top
 * window, which cleanup() does not clear), so no two tests, and no two runs in one browser, share a value.
 */
const RUN = Math.random().toString(36).slice(2, 8);
let serial = 0;
const fresh = (what: string) => `${what}-${RUN}-${++serial}`;

type Clock = sinon.SinonFakeTimers;
/**
 * A fake clock of timers, Date and performance, which moves only when ticked (never by itself). It starts at the real
 * time (an epoch near 0 would read as Unix seconds, and warn).
 */
const fakeClock = (now = Date.now()): Clock =>
  sinon.useFakeTimers({
    now,
    toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'performance'],
  });

/**
 * Waits until `done()` holds, letting real tasks (messages, loads) run; with a fake clock, by ticks of 0 ms (its
 * timers that are due run, and it does not move). Bounded by `limit` ms of real time, so that a test fails on what
 * it checks, with `what` named.
 */
async function until(clock: Clock | undefined, done: () => boolean, what: string, limit = 20_000): Promise<void> {
  const end = realNow() + limit;
  while (!done()) {
    if (realNow() > end) throw new Error(`never happened: ${what}`);
    if (clock) await clock.tickAsync(0);
    else await realSleep(10);
  }
}

/** Waits for `promise` as `until` does, and gives what it resolves with (or throws what it rejects with). */
async function settle<T>(clock: Clock | undefined, promise: Promise<T>, what: string): Promise<T> {
  const box: { result?: { value: T } | { error: unknown } } = {};
  promise.then(
    (value) => (box.result = { value }),
    (error: unknown) => (box.result = { error }),
  );
  await until(clock, () => box.result !== undefined, what);
  const result = box.result!;
  if ('error' in result) throw result.error;
  return result.value;
}

/** Two real animation frames (the swap waits for them), or 200 ms where the page paints none. */
const paint = () =>
  Promise.race([
    new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))),
    realSleep(200),
  ]);

/**
 * Moves the fake clock forward to `to` (epoch ms of the fake Date) in steps of `step` ms; after each step, two real
 * animation frames pass and `each` runs (the peer's part of the scene).
 */
async function driveTo(
  clock: Clock,
  to: number,
  { step = 500, each }: { step?: number; each?: () => Promise<unknown> } = {},
) {
  while (Date.now() < to) {
    await clock.tickAsync(Math.min(step, to - Date.now()));
    await paint();
    if (each) await each();
  }
}

/** `peerPost`, bounded: a frame removed meanwhile never answers. */
const post = (win: Window, messages: unknown[]) => Promise.race([peerPost(win, messages), realSleep(5000)]);

/** Every window that has said ready, and every peer page load with its session, as this page hears them. */
const saidReady = new Set<MessageEventSource>();
const peerLoads: Array<{ win: MessageEventSource | null; session: string | null }> = [];
addEventListener('message', (e: MessageEvent<{ type?: unknown; peerLoaded?: unknown; href?: unknown } | null>) => {
  if (e.source && e.data?.type === 'svc:event:ready') saidReady.add(e.source);
  if (typeof e.data?.peerLoaded === 'string' && typeof e.data.href === 'string')
    peerLoads.push({ win: e.source, session: new URL(e.data.href).searchParams.get('session') });
});
/** How many peer pages have loaded `session`, in any frame of this page. */
const loadsOf = (session: string) => peerLoads.filter((l) => l.session === session).length;

const sessionOf = (frame: HTMLIFrameElement) => new URL(frame.src).searchParams.get('session');
/** The frames in the element's shadow root: the visible one, and one loading behind it during a renewal. */
const frames = (el: SvcEmbedElement) => [...el.shadowRoot!.querySelectorAll('iframe')];
/** The frame loading behind the visible one during a renewal ahead of expiry, once there is one. */
const behindOf = (el: SvcEmbedElement) => frames(el).find((f) => f.inert);
/** The window of the frame behind once it has said ready, or undefined. */
function readyBehind(el: SvcEmbedElement): Window | undefined {
  const win = behindOf(el)?.contentWindow;
  return win && saidReady.has(win) ? win : undefined;
}

/** Records the origin and session of every frame the element puts in its shadow root (behind ones too), in order. */
function framesMade(el: SvcEmbedElement) {
  const seen: Array<{ origin: string; session: string | null }> = [];
  new MutationObserver((records) => {
    for (const r of records)
      for (const node of r.addedNodes)
        if (node instanceof HTMLIFrameElement)
          seen.push({ origin: new URL(node.src).origin, session: sessionOf(node) });
  }).observe(el.shadowRoot!, { childList: true });
  return seen;
}

/** What the provider is called with (beside `reason`: the load's origin, surface and publicId, item 13). */
interface Request {
  reason: string;
  origin?: string;
  surface?: string;
  publicId?: string | null;
}
/** What a provider answers: the session, or the session with its expiry (`expiresIn`: seconds from now, item 10). */
type Answer = string | { session: string; expiresAt?: number | string | Date; expiresIn?: number };

/** A provider that answers `answer(n)` at its n-th call (from 1); records each request, and the fake time of each. */
function provider(answer: (n: number) => Answer | Promise<Answer> = () => fresh('provided')) {
  const requests: Request[] = [];
  const times: number[] = [];
  const fn = (request: Request) => {
    requests.push({ ...request });
    times.push(Date.now());
    return Promise.resolve(answer(requests.length));
  };
  return { fn, requests, times, reasons: () => requests.map((r) => r.reason) };
}

type ProviderFn = ReturnType<typeof provider>['fn'];

/** A provider that answers when the test says so. */
function slowProvider() {
  const calls: Array<{ request: Request; give: (a: Answer) => void; refuse: (e: Error) => void }> = [];
  const fn = (request: Request) => new Promise<Answer>((give, refuse) => calls.push({ request, give, refuse }));
  return { fn, calls };
}

/** One failed renewal ahead of expiry, as the tests read it (`message`: item 1). */
interface Failure {
  attempt: number;
  reason: string;
  expiresAt: number;
  message?: string;
}

/** What an embed reports once it shows `path`: its view, then on a dashboard its widgets rendered. */
const shows = (path = '/', surface = 'dashboard') => [
  envelope('svc:event:view', { surface, path }, surface),
  ...(surface === 'dashboard' ? [envelope('svc:event:dashboard-loaded', {})] : []),
];
const view = (path: string, surface = 'dashboard') => envelope('svc:event:view', { surface, path }, surface);
const queryError = (fatal: boolean) =>
  envelope('svc:event:error', { message: 'The query failed', name: 'QueryError', context: 'widget', fatal });

/** The viewer's interactions that make the viewer busy (item 4). */
const INTERACTIONS: Record<string, (surface?: string) => Record<string, unknown>> = {
  navigate: (surface = 'dashboard') => envelope('svc:event:navigate', { path: '/', previousPath: '/' }, surface),
  drilldown: (surface = 'dashboard') =>
    envelope('svc:event:drilldown', { member: 'orders.region', value: 'EMEA' }, surface),
  download: (surface = 'dashboard') => envelope('svc:event:download', { format: 'csv', target: 'widget' }, surface),
  'ai-query': (surface = 'dashboard') =>
    envelope('svc:event:ai-query', { query: 'sales by region', status: 'submitted' }, surface),
};

/**
 * A ready element on the peer, on a fake clock, with a host session that expires in 10 minutes and a provider; its
 * visible frame reports that it shows `/` after `render` ms of fake time from its creation (its render time, item 3).
 * Records the failed renewals, and the fake time of every swap (an svc-ready after the first).
 */
async function aheadScene(
  options: { surface?: string; readyTimeout?: number; render?: number; answer?: (n: number) => Answer } = {},
) {
  const { surface = 'dashboard', readyTimeout, render = 0, answer } = options;
  const clock = fakeClock();
  const calls = provider(answer ?? (() => fresh('ahead')));
  const host = fresh('host');
  const el = document.createElement('svc-embed');
  el.sessionProvider = calls.fn;
  el.src = peerUrl(peer, surface, `&session=${host}`);
  if (readyTimeout !== undefined) el.readyTimeout = readyTimeout;
  const expiresAt = Date.now() + 10 * MINUTE;
  el.sessionExpiresAt = expiresAt;
  const ready = oneSvcEvent(el, 'svc-ready');
  document.body.append(el);
  const made = framesMade(el);
  await settle(clock, ready, 'the first ready');
  const win = windowOf(el);
  if (render) await clock.tickAsync(render);
  await post(win, shows('/', surface));
  const failures: Failure[] = [];
  el.addEventListener('svc-session-renewal-failed', (e) => failures.push(e.detail));
  const swaps: number[] = [];
  el.addEventListener('svc-ready', () => swaps.push(Date.now()));
  const fatal: string[] = [];
  el.addEventListener('svc-error', (e) => e.detail.payload.fatal && fatal.push(e.detail.payload.message));
  return { el, clock, calls, host, expiresAt, win, made, failures, swaps, fatal };
}

/** Moves the scene's clock to `ms` before expiry in one step (nothing runs ahead before 60 s before it). */
const toBefore = (scene: { clock: Clock; expiresAt: number }, ms: number) =>
  scene.clock.tickAsync(scene.expiresAt - ms - Date.now());

/**
 * Has each frame behind that has said ready report `messages(n)` once (n: 1 for the first such frame, then 2 …): a
 * function for `driveTo`'s `each`.
 */
function feeder(el: SvcEmbedElement, messages: (n: number) => unknown[]) {
  const fed = new Set<Window>();
  return async () => {
    const win = readyBehind(el);
    if (!win || fed.has(win)) return;
    fed.add(win);
    await post(win, messages(fed.size));
  };
}

/**
 * Another window of the app (a frame or a pop-out, made by `open`) loads a session itself; then an element of this
 * page, given that session with a provider, asks for another and never loads it.
 */
async function spentForThePage(
  open: (html: string, done: (win: OwnElementPage) => boolean) => Promise<OwnElementPage>,
) {
  const spent = fresh('spent');
  const win = await open(
    ownElementPage(peerUrl(peer, 'dashboard', `&session=${spent}`), fresh('unused')),
    (w) => w.report !== undefined,
  );
  expect(win.report?.session).to.equal(spent);
  const calls = provider();
  const el = await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${spent}`), sessionProvider: calls.fn });
  expect([calls.reasons(), sessionOf(frameOf(el)!) === spent]).to.deep.equal([['load'], false]);
}

/** The pop-outs a test opened, closed after it. */
const popOuts: Window[] = [];

/**
 * A same-origin pop-out (window.open of a blank page) with `html` written into it; resolves once `done(window)` holds
 * (or after 40 s, so that the test fails on what it checks).
 */
async function popOutPage<W extends Window>(html: string, done: (win: W) => boolean): Promise<W> {
  const win = open('about:blank', '_blank');
  if (!win) throw new Error('the browser blocked the pop-out');
  popOuts.push(win);
  win.document.open();
  win.document.write(html);
  win.document.close();
  const page = win as W;
  await until(undefined, () => done(page), 'the pop-out page', 40_000).catch(() => {});
  return page;
}

/** What a page that loads the element module itself reports: its provider's reasons, and its frame's session. */
type OwnElementPage = Window & { report?: { reasons: string[]; session: string | null } };

/**
 * A page that loads the element module itself (as the docs advise for a pop-out) and shows an <svc-embed> on `src`
 * whose provider answers `answer`; it reports at its element's ready.
 */
const ownElementPage = (src: string, answer: string) => `<!doctype html><body><script type="module">
  import '/src/index.ts';
  const reasons = [];
  const el = document.createElement('svc-embed');
  el.sessionProvider = ({ reason }) => (reasons.push(reason), Promise.resolve(${JSON.stringify(answer)}));
  el.src = ${JSON.stringify(src)};
  el.addEventListener('svc-ready', () => {
    const session = new URL(el.shadowRoot.querySelector('iframe').src).searchParams.get('session');
    window.report = { reasons, session };
  });
  document.body.append(el);
</script>`;

/** Every string held in `value`, through Sets, Maps (keys and values), arrays and plain objects, 4 levels deep. */
function stringsIn(value: unknown, depth = 4, found = new Set<string>()): Set<string> {
  if (typeof value === 'string') found.add(value);
  else if (depth > 0 && value !== null && typeof value === 'object') {
    const items: unknown[] =
      value instanceof Map
        ? [...value.keys(), ...value.values()]
        : value instanceof Set
          ? [...value]
          : Object.values(value);
    for (const item of items) stringsIn(item, depth - 1, found);
  }
  return found;
}

/** The number of entries of the registry: its `size` (a Set, a Map, or an object that says), else its `length`. */
function sizeOf(registry: unknown): number | undefined {
  if (registry === null || typeof registry !== 'object') return undefined;
  const size: unknown = Reflect.get(registry, 'size') ?? Reflect.get(registry, 'length');
  return typeof size === 'number' ? size : undefined;
}

/** Whether console.warn was called with text matching `pattern`. */
const warned = (warn: sinon.SinonStub, pattern: RegExp) =>
  warn.args.some((args) => pattern.test(args.map(String).join(' ')));

/** An element with `props`, appended; resolves with it at its first svc-ready. */
async function readyOn(props: Partial<SvcEmbedElement>, clock?: Clock) {
  const el = document.createElement('svc-embed');
  Object.assign(el, props);
  const ready = oneSvcEvent(el, 'svc-ready');
  document.body.append(el);
  await settle(clock, ready, 'svc-ready');
  return el;
}

// ---------------------------------------------------------------------------------------------------------------
// The items of issue 42
// ---------------------------------------------------------------------------------------------------------------

describe('sessions off the happy path (issue 42)', function () {
  this.timeout(120_000);

  afterEach(() => {
    cleanup();
    sinon.restore();
    for (const win of popOuts.splice(0)) win.close();
  });

  describe('1: a provider answer that is spent is never loaded', () => {
    it('on a load: the provider is asked once more, and a second spent answer ends in session-renewal-failed, "already loaded"', async () => {
      const spent = fresh('spent');
      await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${spent}`) });
      const calls = provider(() => spent);
      const el = document.createElement('svc-embed');
      el.sessionProvider = calls.fn;
      el.src = peerUrl(peer);
      const seen = statuses(el);
      document.body.append(el);
      const made = framesMade(el);
      await until(undefined, () => el.status === 'error' || el.status === 'ready', 'error or ready');
      const last = seen[seen.length - 1];
      expect([el.status, last.reason, calls.reasons(), made]).to.deep.equal([
        'error',
        'session-renewal-failed',
        ['load', 'load'],
        [],
      ]);
      expect(last.message).to.match(/already loaded/);
      expect(loadsOf(spent)).to.equal(1);
    });

    it('on a load: a spent answer, then a fresh one: the fresh one is loaded, and the spent one never', async () => {
      const spent = fresh('spent');
      const renewed = fresh('fresh');
      await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${spent}`) });
      const calls = provider((n) => (n === 1 ? spent : renewed));
      const el = document.createElement('svc-embed');
      el.sessionProvider = calls.fn;
      el.src = peerUrl(peer);
      const ready = oneSvcEvent(el, 'svc-ready');
      document.body.append(el);
      const made = framesMade(el);
      await ready;
      expect([calls.reasons(), made.map((m) => m.session), sessionOf(frameOf(el)!)]).to.deep.equal([
        ['load', 'load'],
        [renewed],
        renewed,
      ]);
    });

    it('ahead of expiry: an answer repeating the visible session fails the attempt with invalid-session, "already loaded"; no frame loads it', async () => {
      let visible = '';
      const scene = await aheadScene({ answer: () => visible });
      visible = scene.host;
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - 40_000, { step: 500 });
      expect(scene.failures.length, 'failed attempts').to.be.at.least(1);
      const [first] = scene.failures;
      expect([first.attempt, first.reason]).to.deep.equal([1, 'invalid-session']);
      expect(first.message).to.match(/already loaded/);
      expect(Math.abs(first.expiresAt - scene.expiresAt)).to.be.below(1000);
      expect([scene.made, loadsOf(scene.host)]).to.deep.equal([[{ origin: peer, session: scene.host }], 1]);
      expect([windowOf(scene.el) === scene.win, frames(scene.el).length, scene.el.status, scene.swaps]).to.deep.equal([
        true,
        1,
        'ready',
        [],
      ]);
    });
  });

  describe('2: a move while loading never reloads the spent session', () => {
    /**
     * An element with a host session and a provider whose frame has loaded but not said ready (the peer says ready
     * when told), moved by `move`; resolves once the element is ready again, with what happened.
     */
    async function moveWhileLoading(
      make: (src: string, sessionProvider: ProviderFn) => SvcEmbedElement,
      move: (el: SvcEmbedElement) => void,
    ) {
      const host = fresh('host');
      const calls = provider(() => fresh('moved'));
      const el = make(peerUrl(peer, null, `&session=${host}`), calls.fn);
      const fatal: string[] = [];
      el.addEventListener('svc-error', (e) => e.detail.payload.fatal && fatal.push(e.detail.payload.message));
      await el.updateComplete;
      const win = windowOf(el);
      await until(undefined, () => hasLoaded(win), 'the first frame loaded');
      expect(el.status).to.equal('loading');
      move(el);
      // The frame it shows now: the same window (the frame lived through the move), or a new document once loaded.
      const shown = () => frameOf(el)?.contentWindow ?? null;
      await until(undefined, () => shown() === win || (!!shown() && hasLoaded(shown()!)), 'a frame that loaded');
      const kept = shown() === win;
      await peerReady(shown()!);
      await settle(undefined, el.whenReady(), 'ready after the move');
      return { el, host, calls, fatal, kept };
    }

    const engine = navigator.userAgent.includes('Firefox')
      ? 'firefox'
      : navigator.userAgent.includes('Chrome')
        ? 'chromium'
        : 'webkit';

    /** What must hold after the move, in every engine; and in Chromium, the frame lives on. */
    function expectNoSpentReload({ el, host, calls, fatal, kept }: Awaited<ReturnType<typeof moveWhileLoading>>) {
      expect([loadsOf(host), fatal, el.status]).to.deep.equal([1, [], 'ready']);
      if (engine === 'chromium') expect(kept, 'Chromium keeps the frame through moveBefore').to.equal(true);
      if (kept) expect(calls.reasons()).to.deep.equal([]);
      else {
        expect(calls.reasons()).to.deep.equal(['load']);
        expect(sessionOf(frameOf(el)!)).to.match(/^moved-/);
      }
    }

    it('moveBefore() after the frame loaded, before ready: a new document gets a fresh session (Chromium: the frame lives on)', async function () {
      const from = document.body.appendChild(document.createElement('div'));
      const to = document.body.appendChild(document.createElement('div'));
      if (!canMoveBefore(to)) this.skip();
      const result = await moveWhileLoading(
        (src, fn) => {
          const el = document.createElement('svc-embed');
          el.sessionProvider = fn;
          el.src = src;
          from.append(el);
          return el;
        },
        (el) => canMoveBefore(to) && to.moveBefore(el, null),
      );
      expectNoSpentReload(result);
    });

    it('prerender show() after the frame loaded, before ready: a new document gets a fresh session', async () => {
      const outlet = document.body.appendChild(document.createElement('main'));
      const result = await moveWhileLoading(
        (src, fn) => prerender({ src, sessionProvider: fn }),
        (el) => show(el, outlet),
      );
      expectNoSpentReload(result);
    });
  });

  describe('3: the renewal ahead allows for the time the dashboard takes to render', () => {
    it('a visible frame that took 40 s to render: the renewal ahead starts by 90 s (10 s + 2 × 40 s) before expiry', async () => {
      const scene = await aheadScene({ render: 40_000 });
      await toBefore(scene, 89_000);
      expect(scene.calls.reasons()).to.deep.equal(['ahead']);
    });

    it('the frame behind may take up to 2 × the render time (beyond the ready timeout) to render: no failure, and the swap', async () => {
      const scene = await aheadScene({ render: 40_000 });
      await toBefore(scene, 89_000);
      expect(scene.calls.reasons()).to.deep.equal(['ahead']);
      await until(scene.clock, () => !!readyBehind(scene.el), 'the frame behind said ready');
      const behind = readyBehind(scene.el)!;
      await post(behind, [view('/')]);
      // 50 s to render: more than the ready timeout (15 s), less than 2 × 40 s.
      await driveTo(scene.clock, Date.now() + 50_000, { step: 1000 });
      expect([scene.failures, scene.swaps]).to.deep.equal([[], []]);
      await post(behind, [envelope('svc:event:dashboard-loaded', {})]);
      await driveTo(scene.clock, Date.now() + 2000, { step: 100 });
      expect([scene.failures, scene.swaps.length, windowOf(scene.el) === behind]).to.deep.equal([[], 1, true]);
    });

    it('at the last moment (2 s before expiry), a frame behind that viewed the path but never said dashboard-loaded swaps in', async () => {
      const scene = await aheadScene({ readyTimeout: 120_000 });
      const feed = feeder(scene.el, () => [view('/')]);
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - LAST_MOMENT - 500, { step: 500, each: feed });
      expect(scene.swaps, 'no swap before the last moment').to.deep.equal([]);
      await driveTo(scene.clock, scene.expiresAt - 100, { step: 100, each: feed });
      expect(scene.swaps.length, 'swapped before expiry').to.equal(1);
      expect(scene.el.status).to.equal('ready');
      expect(sessionOf(frameOf(scene.el)!)).to.match(/^ahead-/);
    });
  });

  describe('4: never swap while the viewer is busy, unless past the last moment', () => {
    it('focus inside the visible frame: no swap until the last moment, then the swap before expiry', async () => {
      const scene = await aheadScene();
      const feed = feeder(scene.el, () => shows('/'));
      frameOf(scene.el)!.focus();
      expect([
        document.activeElement === scene.el,
        scene.el.shadowRoot!.activeElement === frameOf(scene.el),
      ]).to.deep.equal([true, true]);
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - LAST_MOMENT - 500, { step: 500, each: feed });
      expect(scene.swaps, 'no swap while focused').to.deep.equal([]);
      await driveTo(scene.clock, scene.expiresAt - 100, { step: 100, each: feed });
      expect(scene.swaps.length, 'swapped before expiry').to.equal(1);
    });

    it('focus inside the visible frame, then elsewhere: the swap comes after focus left, before the last moment', async () => {
      const scene = await aheadScene();
      const feed = feeder(scene.el, () => shows('/'));
      frameOf(scene.el)!.focus();
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - 55_000, { step: 250, each: feed });
      expect([scene.calls.reasons(), scene.swaps]).to.deep.equal([['ahead'], []]);
      const button = document.body.appendChild(document.createElement('button'));
      button.focus();
      expect(document.activeElement).to.equal(button);
      const left = Date.now();
      await driveTo(scene.clock, scene.expiresAt - LAST_MOMENT - 500, { step: 250, each: feed });
      expect(scene.swaps.length).to.equal(1);
      expect(scene.swaps[0]).to.be.at.least(left);
    });

    for (const kind of Object.keys(INTERACTIONS)) {
      it(`an svc:event:${kind} of the visible frame: no swap within 5 s of it, then the swap`, async () => {
        const scene = await aheadScene();
        await toBefore(scene, 61_000);
        await driveTo(scene.clock, scene.expiresAt - 60_000 + 500, { step: 100 });
        await until(scene.clock, () => !!readyBehind(scene.el), 'the frame behind said ready');
        const at = Date.now();
        await post(scene.win, [INTERACTIONS[kind]()]);
        await post(readyBehind(scene.el)!, shows('/'));
        await driveTo(scene.clock, at + 4000, { step: 250 });
        expect(scene.swaps, 'no swap within 5 s').to.deep.equal([]);
        await driveTo(scene.clock, at + 12_000, { step: 250, each: feeder(scene.el, () => shows('/')) });
        expect(scene.swaps.length).to.equal(1);
        expect(scene.swaps[0]).to.be.at.least(at + 5000);
      });
    }

    it('on the chat surface, after an ai-query, no swap until the last moment (a conversation is open); then before expiry', async () => {
      const scene = await aheadScene({ surface: 'chat' });
      await post(scene.win, [INTERACTIONS['ai-query']('chat')]);
      const feed = feeder(scene.el, () => shows('/', 'chat'));
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - LAST_MOMENT - 500, { step: 500, each: feed });
      expect(scene.swaps, 'no swap while the conversation is open').to.deep.equal([]);
      await driveTo(scene.clock, scene.expiresAt - 100, { step: 100, each: feed });
      expect(scene.swaps.length, 'swapped before expiry').to.equal(1);
    });
  });

  describe('5: any error of the frame behind fails its attempt', () => {
    it('a non-fatal svc:event:error behind: embed-error, the frame behind goes without a swap, and the retry swaps', async () => {
      const scene = await aheadScene();
      // The first frame behind reports a failed query, then that it shows the dashboard; later ones only the latter.
      const feed = feeder(scene.el, (n) => (n === 1 ? [queryError(false), ...shows('/')] : shows('/')));
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - 55_000, { step: 250, each: feed });
      expect(scene.failures.map((f) => [f.attempt, f.reason])).to.deep.equal([[1, 'embed-error']]);
      expect([scene.swaps, windowOf(scene.el) === scene.win]).to.deep.equal([[], true]);
      expect(frames(scene.el).length).to.be.at.most(2);
      await driveTo(scene.clock, scene.expiresAt - 30_000, { step: 250, each: feed });
      expect([scene.failures.length, scene.swaps.length, scene.calls.reasons()]).to.deep.equal([
        1,
        1,
        ['ahead', 'ahead'],
      ]);
    });

    it('a fatal svc:event:error behind: embed-fatal-error, never swapped in', async () => {
      const scene = await aheadScene();
      const feed = feeder(scene.el, (n) => (n === 1 ? [queryError(true), ...shows('/')] : shows('/')));
      await toBefore(scene, 61_000);
      await driveTo(scene.clock, scene.expiresAt - 55_000, { step: 250, each: feed });
      expect(scene.failures.map((f) => [f.attempt, f.reason])).to.deep.equal([[1, 'embed-fatal-error']]);
      expect([scene.swaps, windowOf(scene.el) === scene.win]).to.deep.equal([[], true]);
    });
  });

  describe('6: an element created in the opener and first connected in a pop-out', () => {
    it('loads there: ready with the peer, and whenReady() settles', async () => {
      const popOut = open('about:blank', '_blank');
      if (!popOut) throw new Error('the browser blocked the pop-out');
      popOuts.push(popOut);
      popOut.document.open();
      popOut.document.write('<!doctype html><title>pop-out</title><body></body>');
      popOut.document.close();
      const el = document.createElement('svc-embed');
      el.src = peerUrl(peer, 'dashboard', `&session=${fresh('pop')}`);
      const seen = statuses(el);
      popOut.document.body.append(el);
      if (navigator.userAgent.includes('Firefox')) {
        // Firefox (ESR 140) gives an adopted node a wrapper of its new window's realm, where svc-embed is not defined:
        // the node has no methods left, and in a window.open pop-out it never says ready (docs/lifecycle.md: in
        // Firefox, load svc-embed in the pop-out and create the element there). Left open: see the closing note.
        expect(typeof el.whenReady).to.equal('undefined');
        return;
      }
      const outcome = await Promise.race([
        el.whenReady().then(
          () => 'ready',
          (error: { reason?: string }) => `rejected: ${error.reason}`,
        ),
        realSleep(15_000).then(() => 'unsettled after 15 s'),
      ]);
      expect([outcome, el.status, seen.map((s) => s.status)]).to.deep.equal(['ready', 'ready', ['loading', 'ready']]);
    });
  });

  describe('7: sessions spent in one same-origin window are spent in all', () => {
    it('a session loaded by the page is spent in a same-origin iframe that loads the element itself', async () => {
      const spent = fresh('spent');
      await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${spent}`) });
      const answer = fresh('frame-own');
      const win = await framePage<OwnElementPage>(
        ownElementPage(peerUrl(peer, 'dashboard', `&session=${spent}`), answer),
        (w) => w.report !== undefined,
      );
      expect(win.report).to.deep.equal({ reasons: ['load'], session: answer });
      expect(loadsOf(spent)).to.equal(1);
    });

    it('a session loaded by a same-origin iframe is spent for the page', async () => {
      await spentForThePage(framePage);
    });

    it('a session loaded by the opener is spent in a same-origin pop-out that loads the element itself', async () => {
      const spent = fresh('spent');
      await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${spent}`) });
      const answer = fresh('pop-own');
      const win = await popOutPage<OwnElementPage>(
        ownElementPage(peerUrl(peer, 'dashboard', `&session=${spent}`), answer),
        (w) => w.report !== undefined,
      );
      expect(win.report).to.deep.equal({ reasons: ['load'], session: answer });
    });

    it('a session loaded by the pop-out is spent for the opener', async () => {
      await spentForThePage(popOutPage);
    });
  });

  describe('8: sessions too short to renew ahead, and no loop', () => {
    it('a session of 3 s is not renewed ahead, and one console.warn says so', async () => {
      const warn = sinon.stub(console, 'warn');
      const clock = fakeClock();
      const calls = provider();
      const expiresAt = Date.now() + 3000;
      const el = await readyOn(
        {
          src: peerUrl(peer, 'app', `&session=${fresh('short')}`),
          sessionExpiresAt: expiresAt,
          sessionProvider: calls.fn,
        },
        clock,
      );
      // Written again with each render, as a framework does: still one warning.
      for (let i = 0; i < 3; i++) {
        el.sessionExpiresAt = expiresAt;
        await el.updateComplete;
      }
      await driveTo(clock, Date.now() + 30_000, { step: 1000 });
      expect([calls.reasons(), warn.callCount], JSON.stringify(warn.args)).to.deep.equal([[], 1]);
    });

    it('with 1 s sessions from the provider, 30 s make at most 2 provider calls', async () => {
      const clock = fakeClock();
      const calls = provider(() => ({ session: fresh('one-second'), expiresAt: Date.now() + 1000 }));
      sinon.stub(console, 'warn');
      // The app surface swaps at the frame behind's ready: nothing else slows a loop down.
      await readyOn(
        {
          src: peerUrl(peer, 'app', `&session=${fresh('host')}`),
          sessionExpiresAt: Date.now() + 10_000,
          sessionProvider: calls.fn,
        },
        clock,
      );
      await driveTo(clock, Date.now() + 30_000, { step: 100 });
      expect(calls.reasons().length).to.be.within(1, 2);
    });
  });

  describe('9: loading="lazy" with a provider', () => {
    it('asks only near the viewport, and the frame made from the answer loads at once (not lazy)', async () => {
      const spacer = document.body.appendChild(document.createElement('div'));
      spacer.style.height = '20000px';
      const calls = provider();
      const el = document.createElement('svc-embed');
      Object.assign(el, { src: peerUrl(peer), loading: 'lazy', sessionProvider: calls.fn });
      const ready = oneSvcEvent(el, 'svc-ready');
      document.body.append(el);
      await realSleep(500);
      expect([calls.reasons(), frames(el).length]).to.deep.equal([[], 0]);
      el.scrollIntoView();
      await ready;
      expect(calls.reasons()).to.deep.equal(['load']);
      expect(frameOf(el)!.loading).to.not.equal('lazy');
    });
  });

  describe("10: expiresIn, and expiries that the viewer's clock cannot take", () => {
    it("a viewer's clock 20 s slow, 30 s sessions given as expiresIn: the renewal ahead comes before expiry", async () => {
      // The backend's clock is right; the viewer's (the fake Date) is 20 s slow: an expiresAt from the backend would
      // read 50 s away. The provider says how long the session lasts instead.
      const clock = fakeClock(Date.now() - 20_000);
      const calls = provider((n) => ({ session: fresh(n === 1 ? 'first' : 'renewed'), expiresIn: 30 }));
      await readyOn({ src: peerUrl(peer, 'app'), sessionProvider: calls.fn }, clock);
      const answered = calls.times[0];
      await driveTo(clock, answered + 30_000, { step: 500 });
      expect(calls.reasons()).to.include('ahead');
      const ahead = calls.times[calls.reasons().indexOf('ahead')];
      expect(ahead - answered).to.be.below(30_000);
    });

    for (const form of ['property', 'attribute'] as const) {
      it(`session-expires-in (${form}): seconds from when it is written; the renewal ahead comes before expiry`, async () => {
        const clock = fakeClock();
        const calls = provider();
        const el = document.createElement('svc-embed');
        el.src = peerUrl(peer, 'app', `&session=${fresh('host')}`);
        el.sessionProvider = calls.fn;
        if (form === 'property') Object.assign(el, { sessionExpiresIn: 30 });
        else el.setAttribute('session-expires-in', '30');
        const written = Date.now();
        const ready = oneSvcEvent(el, 'svc-ready');
        document.body.append(el);
        await settle(clock, ready, 'svc-ready');
        await driveTo(clock, written + 30_000, { step: 500 });
        expect(calls.reasons()).to.include('ahead');
        expect(calls.times[0] - written).to.be.below(30_000);
      });
    }

    it('an expiresAt already past, or more than 48 h away, warns', async () => {
      const warn = sinon.stub(console, 'warn');
      const el = await readyOn({
        src: peerUrl(peer, 'dashboard', `&session=${fresh('host')}`),
        sessionExpiresAt: Date.now() + 10 * MINUTE,
      });
      expect(warn.callCount, 'a valid expiry').to.equal(0);
      el.sessionExpiresAt = Date.now() - MINUTE;
      await el.updateComplete;
      expect(warn.callCount, 'one already past').to.equal(1);
      el.sessionExpiresAt = Date.now() + 49 * 60 * MINUTE;
      await el.updateComplete;
      expect(warn.callCount, 'one 49 h away').to.equal(2);
      // The provider's expiresAt, already past.
      el.sessionProvider = () => Promise.resolve({ session: fresh('renewed'), expiresAt: Date.now() - MINUTE });
      await el.renewSession();
      expect(warn.callCount, `the provider's, already past: ${JSON.stringify(warn.args)}`).to.equal(3);
    });
  });

  describe('11: a renewal that fails while the element is detached', () => {
    it('fires no error svc-status and does not reject whenReady(); re-inserted, the element asks again and loads', async () => {
      const slow = slowProvider();
      const el = document.createElement('svc-embed');
      el.sessionProvider = slow.fn;
      el.src = peerUrl(peer);
      const seen = statuses(el);
      document.body.append(el);
      await until(undefined, () => slow.calls.length === 1, 'the first provider call');
      let settled = 'no';
      el.whenReady().then(
        () => (settled = 'resolved'),
        () => (settled = 'rejected'),
      );
      el.remove();
      slow.calls[0].refuse(new Error('backend down'));
      await realSleep(300);
      expect([seen.map((s) => s.status), settled]).to.deep.equal([['loading'], 'no']);
      const ready = oneSvcEvent(el, 'svc-ready');
      document.body.append(el);
      await until(undefined, () => slow.calls.length === 2, 'a provider call after re-insertion');
      slow.calls[1].give(fresh('after'));
      await ready;
      await realSleep(0);
      expect([slow.calls.map((c) => c.request.reason), settled, el.status]).to.deep.equal([
        ['load', 'load'],
        'resolved',
        'ready',
      ]);
    });
  });

  describe('12: a first load whose provider is slower than the ready timeout, or fails', () => {
    it('error "trying again in 5 s", asked again 5 s later; then "trying again in 10 s"', async () => {
      const clock = fakeClock();
      const slow = slowProvider();
      const el = document.createElement('svc-embed');
      el.sessionProvider = slow.fn;
      el.src = peerUrl(peer);
      const seen = statuses(el);
      document.body.append(el);
      await until(clock, () => slow.calls.length === 1, 'the first provider call');
      await clock.tickAsync(15_000 + 100);
      const errors = () => seen.filter((s) => s.status === 'error');
      expect(errors().map((s) => s.reason)).to.deep.equal(['session-renewal-failed']);
      expect(errors()[0].message).to.match(/trying again in 5 s\.?$/);
      await clock.tickAsync(4000);
      expect(slow.calls.length, 'not before 5 s').to.equal(1);
      await clock.tickAsync(1100);
      expect(slow.calls.length, 'asked again after 5 s').to.equal(2);
      await clock.tickAsync(15_000 + 100);
      expect(errors().length).to.equal(2);
      expect(errors()[1].message).to.match(/trying again in 10 s\.?$/);
      await clock.tickAsync(10_000 + 100);
      expect(slow.calls.length).to.equal(3);
    });

    it('a provider that fails: error "trying again in 5 s", and the next call, 5 s later, loads', async () => {
      const clock = fakeClock();
      const renewed = fresh('second-call');
      let n = 0;
      const el = document.createElement('svc-embed');
      el.sessionProvider = () => (++n === 1 ? Promise.reject(new Error('backend down')) : Promise.resolve(renewed));
      el.src = peerUrl(peer);
      const seen = statuses(el);
      const ready = oneSvcEvent(el, 'svc-ready');
      document.body.append(el);
      await until(clock, () => el.status === 'error', 'the error');
      expect(seen[seen.length - 1].message).to.match(/trying again in 5 s\.?$/);
      await clock.tickAsync(5100);
      await settle(clock, ready, 'ready after the retry');
      expect([n, sessionOf(frameOf(el)!)]).to.deep.equal([2, renewed]);
    });

    it('a late valid answer to the first call, before the retry, is loaded', async () => {
      const clock = fakeClock();
      const slow = slowProvider();
      const el = document.createElement('svc-embed');
      el.sessionProvider = slow.fn;
      el.src = peerUrl(peer);
      const ready = oneSvcEvent(el, 'svc-ready');
      document.body.append(el);
      await until(clock, () => slow.calls.length === 1, 'the first provider call');
      await clock.tickAsync(15_000 + 100);
      expect(el.status).to.equal('error');
      const late = fresh('late');
      slow.calls[0].give(late);
      await settle(clock, ready, 'ready with the late answer');
      expect([slow.calls.length, sessionOf(frameOf(el)!), el.status]).to.deep.equal([1, late, 'ready']);
    });
  });

  describe('13: sessions belong to an origin', () => {
    const forms: Array<[string, Partial<SvcEmbedElement>, Request]> = [
      [
        'tenant-origin and public-id',
        { tenantOrigin: peer, publicId: 'test-board' },
        { reason: 'load', origin: peer, surface: 'dashboard', publicId: 'test-board' },
      ],
      [
        'src of a dashboard',
        { src: peerUrl(peer) },
        { reason: 'load', origin: peer, surface: 'dashboard', publicId: 'test-board' },
      ],
      [
        'src of the app',
        { src: `${other}/embed/app?host=${location.origin}` },
        { reason: 'load', origin: other, surface: 'app' },
      ],
      [
        'src of the chat',
        { src: `${other}/embed/chat?host=${location.origin}` },
        { reason: 'load', origin: other, surface: 'chat' },
      ],
    ];
    for (const [what, props, request] of forms) {
      it(`the provider is called with the load's reason, origin, surface and publicId: ${what}`, async () => {
        const calls = provider();
        const el = document.createElement('svc-embed');
        Object.assign(el, props, { sessionProvider: calls.fn });
        document.body.append(el);
        await until(undefined, () => calls.requests.length > 0, 'a provider call');
        expect(calls.requests[0]).to.deep.include(request);
      });
    }

    it('a session value spent on one origin is not spent on another: loaded there as given, with no provider call', async () => {
      const value = fresh('same-text');
      await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${value}`) });
      const calls = provider();
      const el = await readyOn({ src: peerUrl(other, 'dashboard', `&session=${value}`), sessionProvider: calls.fn });
      expect([calls.reasons(), sessionOf(frameOf(el)!)]).to.deep.equal([[], value]);
    });

    for (const when of ['before', 'after'] as const) {
      it(`an answer asked for one origin never loads on another the host changed to (answer ${when} the update)`, async () => {
        const slow = slowProvider();
        const el = document.createElement('svc-embed');
        el.sessionProvider = slow.fn;
        el.src = peerUrl(peer);
        document.body.append(el);
        const made = framesMade(el);
        await until(undefined, () => slow.calls.length === 1, 'the first provider call');
        const forFirst = fresh('for-first-origin');
        el.src = peerUrl(other);
        if (when === 'before') slow.calls[0].give(forFirst);
        await el.updateComplete;
        if (when === 'after') slow.calls[0].give(forFirst);
        await until(undefined, () => slow.calls.length === 2, 'a provider call for the new origin');
        const forSecond = fresh('for-second-origin');
        slow.calls[1].give(forSecond);
        await settle(undefined, el.whenReady(), 'ready on the new origin');
        expect(slow.calls[1].request.origin ?? other).to.equal(other);
        expect(made).to.deep.equal([{ origin: other, session: forSecond }]);
      });
    }
  });

  describe('14: the spent registry keeps a digest, bounded', () => {
    it('after 2,000 loads of distinct sessions, it holds no session value and at most 1,000 entries; the latest still counts', async function () {
      this.timeout(300_000);
      // Far below the viewport, with loading="lazy": each frame is put in the document (which spends its session) but
      // the browser never fetches it, so 2,000 loads cost no network, and no later test waits behind them.
      const spacer = document.body.appendChild(document.createElement('div'));
      spacer.style.height = '20000px';
      const el = document.createElement('svc-embed');
      el.loading = 'lazy';
      document.body.append(el);
      const sessions: string[] = [];
      for (let i = 0; i < 2000; i++) {
        const session = `${fresh('digest')}-${'0123456789abcdef'.repeat(3)}`;
        sessions.push(session);
        el.src = peerUrl(peer, 'dashboard', `&session=${session}`);
        await el.updateComplete;
        if (i % 50 === 49) await realSleep(0);
      }
      el.remove();
      spacer.remove();
      const registry: unknown = Reflect.get(window.top ?? window, Symbol.for('svc-embed.spent'));
      expect(registry, 'a registry on the top window').to.be.instanceOf(Object);
      const held = [...stringsIn(registry)];
      const kept = sessions.filter((s) => held.some((h) => h.includes(s)));
      expect(kept.length, 'session values held').to.equal(0);
      expect(sizeOf(registry), 'entries').to.be.at.most(1000);
      // The latest load still counts as spent: an element given it with a provider asks for another.
      const calls = provider();
      const last = sessions[sessions.length - 1];
      const again = await readyOn({ src: `${peerUrl(peer)}&session=${last}`, sessionProvider: calls.fn });
      expect([calls.reasons(), sessionOf(frameOf(again)!) === last]).to.deep.equal([['load'], false]);
    });
  });

  describe('15: an expiry in Unix seconds', () => {
    it('sessionExpiresAt below 10^11 warns, naming milliseconds', async () => {
      const warn = sinon.stub(console, 'warn');
      const el = document.createElement('svc-embed');
      el.src = peerUrl(peer, 'dashboard', `&session=${fresh('host')}`);
      el.sessionExpiresAt = Math.floor(Date.now() / 1000) + 3600;
      document.body.append(el);
      await el.updateComplete;
      expect(warned(warn, /milliseconds/i)).to.equal(true);
    });

    it("a provider's expiresAt below 10^11 warns, naming milliseconds", async () => {
      const warn = sinon.stub(console, 'warn');
      const el = await readyOn({ src: peerUrl(peer, 'dashboard', `&session=${fresh('host')}`) });
      el.sessionProvider = () =>
        Promise.resolve({ session: fresh('renewed'), expiresAt: Math.floor(Date.now() / 1000) + 3600 });
      await el.renewSession();
      expect(warned(warn, /milliseconds/i)).to.equal(true);
    });
  });

  describe('16: a viewer clicking through the renewal window', () => {
    it('navigate and drilldown every 100 ms, the frame behind never done rendering: the swap still comes before expiry', async function () {
      this.timeout(300_000);
      const scene = await aheadScene();
      await toBefore(scene, 62_000);
      let k = 0;
      let path = '/';
      // Each 100 ms of fake time: the viewer clicks (a navigation to a new path, or a drilldown); the frame behind
      // follows to the viewer's path and views it, but never gets to say dashboard-loaded before the next click.
      const click = async () => {
        if (scene.swaps.length) return;
        k++;
        if (k % 2) {
          const previousPath = path;
          path = `/p/${k}`;
          await post(scene.win, [envelope('svc:event:navigate', { path, previousPath })]);
        } else await post(scene.win, [INTERACTIONS.drilldown()]);
        const behind = readyBehind(scene.el);
        if (behind) await post(behind, [view(path)]);
      };
      // Animation frames (for the swap) between the drilldown and the next navigation, when the path holds.
      while (Date.now() < scene.expiresAt - 50 && !scene.swaps.length) {
        await scene.clock.tickAsync(100);
        await click();
        if (k % 2 === 0) await paint();
      }
      expect(scene.swaps.length, 'swapped before expiry').to.equal(1);
      expect(scene.swaps[0]).to.be.below(scene.expiresAt);
      expect([scene.el.status, scene.fatal]).to.deep.equal(['ready', []]);
    });
  });
});
