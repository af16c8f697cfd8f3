// A model-based test of the session lifecycle (fast-check's fc.commands) in a real browser, against the peer on
// real second origins. Random sequences of what host pages, providers and embeds do; after every step:
// - no action reaches a frame other than the current session's, and no command crosses a host change: every
//   navigate a frame received carries the host generation that frame was made in;
// - while connected, `status` is never `loading` without a running timer (the ready timer, or the bound of a
//   provider call);
// - `ready` is true exactly when `status` is `ready`, while connected;
// - no frame on one origin ever receives a session that the element renewed (given to renewSession() or answered
//   by the provider) and first put in a frame on another origin: a credential never leaves its tenant.
// - while `status` is `ready`, the visible frame is one whose window has said ready (a renewal ahead of expiry swaps in
//   only a frame that has);
// - sessions are single-use, and the element always has a provider: no frame is ever given a session that an earlier
//   frame of the document loaded, unless the provider (or renewSession()) gave it. The host's src may carry no
//   session at all: then the first load asks the provider.
// Listeners take part too: one may re-insert the element with a plain append() or insertBefore() at a `loading`.
// Renewals ahead of expiry too: the host gives its session an expiry a few seconds away, and the frame loading
// behind the visible one says ready, views the path, or stays silent, at random.
// At the end, the element leaves `loading` within its bounds, and every whenReady() and renewSession() promise
// settles. `npm test` runs a few sequences with a fixed seed; `npm run fuzz` runs many (MODEL_RUNS, MODEL_SEED).
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import fc from 'fast-check';
import {
  canMoveBefore,
  cleanup,
  envelope,
  forgetSpent,
  frameOf,
  hasLoaded,
  other,
  peerLoaded,
  peerNavigate,
  peerPost,
  peerReady,
  peerReport,
  peerUrl,
  rewriteAll,
  tenant,
} from './helpers.js';
import type { SvcEmbedElement, SvcSessionAnswer } from '../../src/index.js';

const { runs, seed }: { runs: number; seed: number } = await executeServerCommand('model-settings');

// A ready timeout no other timer of the page uses, so the element's timers can be told apart.
const TIMEOUT = 777;
const ORIGINS = [tenant, other];

interface Model {
  /** The host's src, or null. */
  src: string | null;
  /** Counts host changes that end a session; commands made in one generation may only reach its frames. */
  gen: number;
  connected: boolean;
}

interface Real {
  el: SvcEmbedElement;
  homes: [HTMLElement, HTMLElement];
  calls: Array<{ give: (s: SvcSessionAnswer | string) => void; refuse: (e: Error) => void; settled?: boolean }>;
  promises: Array<{ what: string; settled: boolean }>;
  /** The host generation each frame window was made in. */
  gens: Map<Window, number>;
  timers: Set<number>;
  renewed: number;
  navigations: number;
  /** The origin each renewed session was first loaded on, and what broke the rule that it stays there. */
  sessionOrigins: Map<string, string>;
  leaks: string[];
  /** The host's sessions that a frame of the document has loaded, and those a later frame was given again. */
  spent: Set<string>;
  reuses: string[];
}

type Command = fc.AsyncCommand<Model, Real>;

/** Resolves with the promise's value, or with undefined after `ms` (a peer that is reloading never answers). */
const within = <T>(p: Promise<T>, ms = 2000) => Promise.race([p, new Promise<undefined>((r) => setTimeout(r, ms))]);
const tick = () => new Promise((r) => setTimeout(r, 0));

/** The current frame's window and peer origin, if its peer page has loaded (or loads within `wait` ms). */
async function peer(r: Real, wait = 0) {
  const frame = frameOf(r.el);
  const win = frame?.contentWindow;
  if (!frame || !win || !r.el.isConnected) return undefined;
  const origin = new URL(frame.src).origin;
  if (wait) await within(peerLoaded(win, origin), wait);
  return hasLoaded(win, origin) ? { win, origin } : undefined;
}

function track(r: Real, what: string, p: Promise<unknown>) {
  const entry = { what, settled: false };
  r.promises.push(entry);
  p.then(
    () => (entry.settled = true),
    () => (entry.settled = true),
  );
}

/** Every window that has said ready, as this page sees its messages. */
const saidReady = new Set<MessageEventSource>();
addEventListener('message', (e: MessageEvent<{ type?: unknown } | null>) => {
  if (e.source && e.data?.type === 'svc:event:ready') saidReady.add(e.source);
});

/** The frame loading behind the visible one during a renewal ahead of expiry, if any. */
const behindOf = (el: SvcEmbedElement) => [...el.shadowRoot!.querySelectorAll('iframe')].find((f) => f.inert);

/** Renewals ahead of expiry over all runs: swaps, and failed attempts by reason. */
const ahead: Record<string, number> = { swap: 0 };

function countRenewalsAhead(el: SvcEmbedElement) {
  let shown: Window | null | undefined;
  let status = false;
  el.addEventListener('svc-status', () => (status = true));
  el.addEventListener('svc-ready', () => {
    const win = frameOf(el)?.contentWindow;
    // A new frame's ready with no svc-status since the last one: the swap.
    if (shown && win !== shown && !status) ahead.swap++;
    shown = win;
    status = false;
  });
  el.addEventListener('svc-session-renewal-failed', (e) => {
    ahead[e.detail.reason] = (ahead[e.detail.reason] ?? 0) + 1;
  });
}

/** After each step: let Lit update, note new frames, and check the invariants. */
async function settle(m: Model, r: Real) {
  await r.el.updateComplete;
  await tick();
  expect(r.leaks, 'a renewed session went to another origin').to.deep.equal([]);
  expect(r.reuses, 'a frame was given a spent session that the provider did not give').to.deep.equal([]);
  const win = frameOf(r.el)?.contentWindow;
  if (win && !r.gens.has(win)) r.gens.set(win, m.gen);
  if (r.el.isConnected) {
    if (r.el.status === 'loading') expect(r.timers.size, 'loading with no timer running').to.be.greaterThan(0);
    expect(r.el.ready).to.equal(r.el.status === 'ready');
    if (r.el.status === 'ready')
      expect(saidReady.has(frameOf(r.el)!.contentWindow!), 'a visible frame that has not said ready').to.equal(true);
  }
  const p = await peer(r);
  if (!p) return;
  const report = await within(peerReport(p.win, p.origin));
  for (const { data } of report ?? []) {
    if (data.type !== 'svc:action:navigate') continue;
    expect(data.payload.path, 'a navigate crossed a host change').to.match(new RegExp(`^/g${r.gens.get(p.win)}/`));
  }
}

const command = (
  name: string,
  check: (m: Readonly<Model>) => boolean,
  run: (m: Model, r: Real) => void | Promise<void>,
): Command => ({
  check,
  async run(m, r) {
    await run(m, r);
    await settle(m, r);
  },
  toString: () => name,
});

const always = () => true;

/** Every frame the element puts in its shadow root, even one replaced in the same task: its session's origin. */
function watchFrames(r: Real) {
  new MutationObserver((records) => {
    for (const { addedNodes } of records)
      for (const node of addedNodes) {
        if (!(node instanceof HTMLIFrameElement)) continue;
        const url = new URL(node.src);
        const session = url.searchParams.get('session') ?? '';
        // A frame of a connected element loads its session: a host session (host-0, host-1) is spent by then, on its
        // origin (each tenant's sessions are its own).
        const key = `${url.origin} ${session}`;
        if (session.startsWith('host-') && r.el.isConnected) {
          if (r.spent.has(key)) r.reuses.push(key);
          r.spent.add(key);
        }
        // The host's own sessions are its to give to either tenant; renewed ones are the element's.
        if (!/^(renewed|provided)-/.test(session)) continue;
        const first = r.sessionOrigins.get(session);
        if (first === undefined) r.sessionOrigins.set(session, url.origin);
        else if (first !== url.origin) r.leaks.push(`${session}: first on ${first}, then on ${url.origin}`);
      }
  }).observe(r.el.shadowRoot!, { childList: true });
}

/**
 * The host sets src to origin `o`, with its own session `host-<v>` (the same string on either origin), or with none
 * when `v` is 2 (the provider alone then gives the first load its session).
 */
function assignSrc(m: Model, r: Real, o: number, v: number) {
  const src = peerUrl(ORIGINS[o], null, v < 2 ? `&v=${v}&session=host-${v}` : `&v=${v}`);
  if (m.src !== src) {
    // A change from no URL ends no session: commands made while idle wait for the next one.
    if (m.src !== null) m.gen++;
    m.src = src;
  }
  r.el.src = src;
}

const setSrc = (o: number, v: number) =>
  command(`src = ${['tenant', 'other'][o]}#${v}`, always, (m, r) => assignSrc(m, r, o, v));

// The review's HIGH case: a session renewed on one tenant, then the host moves to the other keeping its session.
const renewThenMove = command('renewSession(s), then src on the other origin', always, (m, r) => {
  if (m.src === null) return;
  track(r, 'renewSession', r.el.renewSession(`renewed-${++r.renewed}`));
  const url = new URL(m.src);
  assignSrc(m, r, url.origin === tenant ? 1 : 0, Number(url.searchParams.get('v')));
});

// A listener that moves the element with a plain re-insertion at the next `loading` (on a first load, after a src
// change, a renewal or a reload), before the new frame is in the shadow root.
const moveAtLoading = (how: 'append' | 'insertBefore') =>
  command(`listener: ${how}() at the next loading`, always, (_m, r) => {
    const on = (e: CustomEvent<{ status: string }>) => {
      if (e.detail.status !== 'loading') return;
      r.el.removeEventListener('svc-status', on);
      if (!r.el.isConnected) return;
      const to = r.el.parentNode === r.homes[0] ? r.homes[1] : r.homes[0];
      if (how === 'append') to.append(r.el);
      else to.insertBefore(r.el, to.firstChild);
    };
    r.el.addEventListener('svc-status', on);
  });

const clearSrc = command('src = null', always, (m, r) => {
  if (m.src !== null) m.gen++;
  m.src = null;
  r.el.src = null;
});

const renew = (explicit: boolean) =>
  command(explicit ? 'renewSession(s)' : 'renewSession()', always, (m, r) => {
    const session = explicit ? `renewed-${++r.renewed}` : undefined;
    if (m.src === null) {
      expect(() => r.el.renewSession(session)).to.throw(TypeError);
      return;
    }
    track(r, 'renewSession', r.el.renewSession(session));
  });

// The provider answers a session, or one that expires in 5.2 s (whose renewal ahead is then due at once), or fails.
const provider = (answer: 'session' | 'expiring' | 'error') =>
  command(`provider: ${answer}`, always, (_m, r) => {
    const call = r.calls.find((c) => !c.settled);
    if (!call) return;
    call.settled = true;
    const session = `provided-${++r.renewed}`;
    if (answer === 'error') call.refuse(new Error('backend down'));
    else call.give(answer === 'session' ? session : { session, expiresAt: Date.now() + 5200 });
  });

const peerSays = (what: 'ready' | 'fatal' | 'view' | 'reload') =>
  command(
    `peer: ${what}`,
    (m) => m.connected,
    async (m, r) => {
      const p = await peer(r, 3000);
      if (!p) return;
      if (what === 'ready') await within(peerReady(p.win));
      else if (what === 'view')
        await within(
          peerPost(p.win, [envelope('svc:event:view', { surface: 'dashboard', path: `/g${m.gen}/viewed` })], p.origin),
        );
      else if (what === 'fatal') {
        const fatal = envelope('svc:event:error', {
          message: 'Session expired',
          name: 'SessionExpiredError',
          context: 'auth',
          fatal: true,
        });
        await within(peerPost(p.win, [fatal], p.origin));
      } else peerNavigate(p.win, frameOf(r.el)!.src, p.origin);
    },
  );

const navigate = command('navigate()', always, (m, r) => r.el.navigate(`/g${m.gen}/n${++r.navigations}`));

/** Waits until `done()` holds, or `ms` have passed. */
async function until(done: () => boolean, ms = 1500) {
  for (const end = performance.now() + ms; !done() && performance.now() < end;)
    await new Promise((res) => setTimeout(res, 20));
}

// A renewal ahead of expiry, driven to one of its ends. The embed says ready if it has not; the session in view gets
// an expiry 5.2 s away unless it has one (the host's `sessionExpiresAt`, or a provider's `expiresAt`), so that the
// renewal is due at once; the provider answers, and the frame loading behind says ready, views the viewer's path and
// renders its dashboard there (the swap), stays silent (its ready timeout), or reports a fatal error. Each may also be
// cut short by the element's own bounds (the ready timeout of this test is short).
const aheadRenewal = (end: 'swap' | 'silent' | 'fatal') =>
  command(
    `renewal ahead: ${end}`,
    (m) => m.connected,
    async (m, r) => {
      if (r.el.status === 'loading') {
        const p = await peer(r, 2000);
        if (p) await within(peerReady(p.win, p.origin));
      }
      if (r.el.status !== 'ready') return;
      const asked = r.calls.length;
      if (!behindOf(r.el)) {
        r.el.sessionExpiresAt = Date.now() + 5200;
        await until(() => r.calls.length > asked || !!behindOf(r.el));
        const call = r.calls.find((c) => !c.settled);
        if (call) {
          call.settled = true;
          call.give(`provided-${++r.renewed}`);
        }
        await until(() => !!behindOf(r.el));
      }
      const frame = behindOf(r.el);
      const win = frame?.contentWindow;
      if (!frame || !win || end === 'silent') return;
      const origin = new URL(frame.src).origin;
      await within(peerLoaded(win, origin), 2000);
      if (!hasLoaded(win, origin)) return;
      if (end === 'fatal')
        await within(
          peerPost(win, [envelope('svc:event:error', { message: 'boom', name: 'InternalError', fatal: true })], origin),
        );
      else {
        await within(peerReady(win, origin));
        // A dashboard: its view of the path, then its widgets rendered there (the swap waits for both).
        const view = envelope('svc:event:view', { surface: 'dashboard', path: `/g${m.gen}/viewed` });
        await within(peerPost(win, [view, envelope('svc:event:dashboard-loaded', {})], origin));
      }
    },
  );
const refresh = command('refresh()', always, (_m, r) => r.el.refresh());

const remove = command(
  'remove()',
  (m) => m.connected,
  (m, r) => {
    m.connected = false;
    r.el.remove();
  },
);
const insert = command(
  'append()',
  (m) => !m.connected,
  (m, r) => {
    m.connected = true;
    r.homes[0].append(r.el);
  },
);
const move = command(
  'moveBefore()',
  (m) => m.connected,
  (_m, r) => {
    const to = r.el.parentNode === r.homes[0] ? r.homes[1] : r.homes[0];
    // Where there is no moveBefore, a plain re-insertion (which reloads the frame).
    if (canMoveBefore(to)) to.moveBefore(r.el, null);
    else to.append(r.el);
  },
);

const unchanged = command('unchanged writes', always, (_m, r) => {
  rewriteAll(r.el);
});

const whenReady = command('whenReady()', always, (_m, r) => track(r, 'whenReady', r.el.whenReady()));

// Weighted towards what moves a session along (the peer saying ready, host changes) and what it must not lose
// or misdeliver (commands).
const commands = [
  fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 1 })).map(([o, v]) => setSrc(o, v)),
  fc.tuple(fc.integer({ min: 0, max: 1 }), fc.integer({ min: 0, max: 2 })).map(([o, v]) => setSrc(o, v)),
  fc.constant(clearSrc),
  fc.boolean().map(renew),
  fc.constantFrom<'session' | 'expiring' | 'error'>('session', 'expiring', 'error').map(provider),
  fc
    .constantFrom<'ready' | 'fatal' | 'view' | 'reload'>('ready', 'ready', 'ready', 'fatal', 'view', 'view', 'reload')
    .map(peerSays),
  fc.constantFrom<'ready' | 'fatal' | 'view' | 'reload'>('ready', 'view').map(peerSays),
  fc.constant(navigate),
  fc.constant(navigate),
  fc.constantFrom(remove, insert),
  fc.constantFrom(remove, insert, move),
  fc.constantFrom(refresh, unchanged, whenReady),
  fc.constantFrom<'append' | 'insertBefore'>('append', 'insertBefore').map(moveAtLoading),
  fc.constant(renewThenMove),
  fc.constantFrom<'swap' | 'silent' | 'fatal'>('swap', 'swap', 'silent', 'fatal').map(aheadRenewal),
];

describe('the session lifecycle against a model', () => {
  // The page's own timers (as functions: they need no `this`), typed as window's rather than as Node's.
  const realSet: typeof window.setTimeout = globalThis.setTimeout;
  const realClear: typeof window.clearTimeout = globalThis.clearTimeout;
  let timers: Set<number>;

  beforeEach(() => {
    timers = new Set();
    // Counts the element's live timers: those with its ready timeout's delay.
    window.setTimeout = ((fn: (...a: unknown[]) => void, ms?: number, ...args: unknown[]) => {
      if (ms !== TIMEOUT) return realSet(fn, ms, ...args);
      const id: number = realSet(() => {
        timers.delete(id);
        fn(...args);
      }, ms);
      timers.add(id);
      return id;
    }) as typeof setTimeout;
    window.clearTimeout = ((id?: number) => {
      if (id !== undefined) timers.delete(id);
      realClear(id);
    }) as typeof clearTimeout;
  });

  afterEach(() => {
    window.setTimeout = realSet;
    window.clearTimeout = realClear;
    cleanup();
  });

  // How far the sequences took renewals ahead of expiry: a run that never reaches a swap or a failure tests little.
  after(() => console.log(`renewals ahead of expiry over all runs: ${JSON.stringify(ahead)}`));
  it(`holds its invariants over random sequences (${runs} runs, seed ${seed})`, async function () {
    this.timeout(runs * 90_000);
    await fc
      .assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 16, size: 'max' }), async (cmds) => {
          const homes = [document.createElement('div'), document.createElement('section')] as [
            HTMLElement,
            HTMLElement,
          ];
          document.body.append(...homes);
          const el = document.createElement('svc-embed');
          const src = peerUrl(tenant, null, '&v=0&session=host-0');
          el.setAttribute('ready-timeout', String(TIMEOUT));
          el.colorScheme = 'dark';
          el.src = src;
          const r: Real = {
            el,
            homes,
            calls: [],
            promises: [],
            gens: new Map(),
            timers,
            renewed: 0,
            navigations: 0,
            sessionOrigins: new Map(),
            leaks: [],
            spent: new Set(),
            reuses: [],
          };
          // Each run is a page of its own: what an earlier run's frames spent is not this one's.
          forgetSpent();
          el.sessionProvider = () =>
            new Promise<SvcSessionAnswer | string>((give, refuse) => r.calls.push({ give, refuse }));
          homes[0].append(el);
          watchFrames(r);
          countRenewalsAhead(el);
          const m: Model = { src, gen: 0, connected: true };
          await settle(m, r);
          try {
            await fc.asyncModelRun(() => ({ model: m, real: r }), cmds);
            // Rule 4: connected, the element leaves loading within its bounds (a ready timeout, then at most one
            // provider bound and one more ready timeout), however slow the machine.
            if (!el.isConnected) homes[0].append(el);
            await settle(m, r);
            const until = performance.now() + 4 * TIMEOUT + 20_000;
            while (el.status === 'loading' && performance.now() < until)
              await new Promise((res) => setTimeout(res, 20));
            expect(el.status, 'stuck in loading').to.not.equal('loading');
            // Then a last host change to an embed that says ready by itself: every promise made on the way settles,
            // and nothing held before the change reaches the new frame.
            if (m.src !== null) m.gen++;
            el.src = m.src = peerUrl(tenant, 'dashboard', '&final=1&session=host-final');
            const ready = performance.now() + 20_000;
            while (el.status !== 'ready' && performance.now() < ready) await new Promise((res) => setTimeout(res, 20));
            expect(el.status).to.equal('ready');
            await settle(m, r);
            expect(
              r.promises.filter((p) => !p.settled).map((p) => p.what),
              'unsettled promises',
            ).to.deep.equal([]);
          } finally {
            for (const c of r.calls) c.refuse(new Error('run over'));
            el.remove();
            homes.forEach((h) => h.remove());
          }
        }),
        { numRuns: runs, seed, endOnFailure: true, verbose: 1 },
      )
      .catch((e: Error) => {
        throw new Error(`${e.message}\ncause: ${(e.cause as Error)?.message ?? e.cause}`);
      });
  });
});
