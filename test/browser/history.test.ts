// svc-embed/history (issue 43): the embed's path in a query parameter of the host page, one history entry per
// navigation the viewer makes and none for anything else, Back and Forward one step per press, deep links, several
// embeds, stop(), and the adapter. Against a routing peer on a real second origin, with the peer keeping its own
// history (as the simulated tenant's switch does) and without. The tests assert order and outcome, never time: where
// two navigations must be apart (they coalesce within 50 ms), the test waits longer than that, which a slow machine only
// makes longer.
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import {
  cleanup,
  embed,
  envelope,
  frameOf,
  oneSvcEvent,
  peerClick,
  peerLoaded,
  peerPath,
  peerPost,
  peerReady,
  peerUrl,
  tenant,
  windowOf,
} from './helpers.js';
import { syncHistory } from '../../src/history.js';
import { park, prerender, show } from '../../src/prerender.js';
import type { HistoryAdapter } from '../../src/history.js';
import type { SvcEmbedElement } from '../../src/index.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Longer than the 50 ms within which the module makes one entry of several navigations. */
const APART = 120;
const MINUTE = 60_000;

/** Resolves once `check()` holds; fails the test with `what` after 20 s. */
async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (const end = performance.now() + 20_000; !(await check()); await sleep(15))
    if (performance.now() > end) throw new Error(`not seen: ${what}`);
}

// The test page's own URL (the runner's parameters): every test starts there, and the module must keep it.
const home = `${location.pathname}${location.search}`;
// This document's own entry. The test runner may load test files one after another in one page, so the tab's earlier
// entries can be other files' documents: a traversal must never reach them (the page would navigate away).
const own = history.length - 1;
const param = (name = 'embed') => new URLSearchParams(location.search).get(name);

/** A routing peer in an `<svc-embed>`; `own` makes it keep its own history. */
function routed(own: boolean, extra = '') {
  return embed({ src: peerUrl(tenant, 'dashboard', `&router=1${own ? '&embedHistory=1' : ''}${extra}`) });
}

/** Records the paths of the svc-view events of `el`. */
function views(el: SvcEmbedElement) {
  const seen: string[] = [];
  el.addEventListener('svc-view', (e) => seen.push(e.detail.payload.path));
  return seen;
}

/** The navigate actions posted to `el` (svc-action), their paths in order. */
function navigations(el: SvcEmbedElement) {
  const seen: string[] = [];
  el.addEventListener('svc-action', (e) => {
    if (e.detail.type === 'svc:action:navigate') seen.push(e.detail.payload.path);
  });
  return seen;
}

/** An embed, synced, ready, and its first view seen. */
async function started(own: boolean, options: Parameters<typeof syncHistory>[1] = {}) {
  const { el, ready } = routed(own);
  const seen = views(el);
  const stop = syncHistory(el, options);
  stops.push(stop);
  await ready;
  await until(() => seen.includes('/'), 'first view');
  return { el, seen, stop, win: windowOf(el) };
}

/** Back (or Forward): resolves once the embed has viewed `path`, and the URL's param says `expected`. */
async function traverse(
  delta: -1 | 1,
  el: SvcEmbedElement,
  path: string,
  expected: (value: string | null) => boolean,
  name = 'embed',
) {
  const viewed = new Promise<void>((resolve) => {
    const on = (e: CustomEvent<{ payload: { path: string } }>) => {
      if (e.detail.payload.path !== path) return;
      el.removeEventListener('svc-view', on);
      resolve();
    };
    el.addEventListener('svc-view', on);
  });
  history.go(delta);
  await Promise.race([
    viewed,
    sleep(20_000).then(async () => {
      const paths = await Promise.all([...document.querySelectorAll('svc-embed')].map((e) => peerPath(windowOf(e))));
      throw new Error(`Back/Forward: ${path} not viewed; URL ${location.search} ${history.length} ${paths.join(',')}`);
    }),
  ]);
  await until(async () => (await peerPath(windowOf(el))) === path && expected(param(name)), `${path} and its URL`);
}

let stops: Array<() => void> = [];

/** Every window that has said ready, as the page sees its messages (a renewal's frame behind, among them). */
const saidReady = new Set<MessageEventSource>();
addEventListener('message', (e: MessageEvent<{ type?: unknown } | null>) => {
  if (e.source && e.data?.type === 'svc:event:ready') saidReady.add(e.source);
});

// WebKit refuses more than 100 pushState and replaceState calls in 10 s: every call, the module's too, is counted, and
// a test starts only when the last 10 s saw fewer than 60.
const calls: number[] = [];
for (const name of ['pushState', 'replaceState'] as const) {
  const real = history[name].bind(history);
  history[name] = (...args: Parameters<History['pushState']>) => {
    calls.push(performance.now());
    real(...args);
  };
}
async function unthrottled() {
  while (calls.filter((t) => t > performance.now() - 10_500).length > 60) await sleep(200);
}

describe('svc-embed/history', () => {
  beforeEach(async () => {
    await unthrottled();
    // Firefox drops the entries of a removed frame (an embed that kept its own history) a little after the removal:
    // history.length shrinks. Each test counts from a length that has stopped changing.
    for (let same = 0, last = history.length; same < 4; await sleep(50))
      same = history.length === last ? same + 1 : ((last = history.length), 0);
    // At the end of the tab's history: a test that ended after Back left entries ahead, which a push would drop, and
    // history.length would not count the push.
    history.pushState(null, '', home);
    // Chromium and Firefox keep at most 50 entries a tab: a push at that length drops the oldest, and history.length
    // no longer counts it. Well before that, the tab goes back to an entry of this document (never before its own),
    // and a push drops the entries ahead of it.
    const back = history.length - 1 - Math.max(own, 19);
    if (back > 10) {
      const popped = new Promise((r) => addEventListener('popstate', r, { once: true }));
      history.go(-back);
      await Promise.race([popped, sleep(3000)]);
      history.pushState(null, '', home);
    }
  });
  afterEach(() => {
    for (const stop of stops) stop();
    stops = [];
    cleanup();
    sinon.restore();
    history.replaceState(null, '', home);
  });

  describe('arguments', () => {
    it('a bad embed, options, param or adapter throws a TypeError naming the accepted form', () => {
      const { el } = routed(false);
      expect(() => syncHistory(document.createElement('div') as unknown as SvcEmbedElement)).to.throw(
        TypeError,
        /embed must be an <svc-embed> element/,
      );
      expect(() => syncHistory(el, 42 as never)).to.throw(TypeError, /options must be an object/);
      for (const p of ['', 'a b', 'x'.repeat(65), 'a&b', 'a=b', 7])
        expect(() => syncHistory(el, { param: p as string })).to.throw(
          TypeError,
          /param must be 1-64 of \[A-Za-z0-9_.~-\]/,
        );
      expect(() => syncHistory(el, { adapter: { read: () => null } as unknown as HistoryAdapter })).to.throw(
        TypeError,
        /adapter must be \{read, write, subscribe\}/,
      );
    });

    it('a second live syncHistory on the same param throws, naming it; stop() frees it; another param is free', () => {
      const { el } = routed(false);
      const other = routed(false).el;
      const stop = syncHistory(el, { param: 'sales' });
      expect(() => syncHistory(other, { param: 'sales' })).to.throw(TypeError, /param sales must be free/);
      const third = syncHistory(other, { param: 'support' });
      stop();
      // A second stop() frees nothing that another syncHistory took since.
      stops.push(syncHistory(other, { param: 'sales' }));
      stop();
      expect(() => syncHistory(el, { param: 'sales' })).to.throw(TypeError, /param sales/);
      third();
      // The default param is 'embed'.
      stops.push(syncHistory(el));
      expect(() => syncHistory(other, {})).to.throw(TypeError, /param embed must be free/);
    });
  });

  for (const own of [false, true]) {
    describe(own ? 'an embed that keeps its own history' : 'an embed that keeps no history', () => {
      it('the first view adds no entry; each navigation the viewer makes adds exactly one, whose URL holds its path', async () => {
        const start = history.length;
        const { win } = await started(own);
        expect(history.length).to.equal(start);
        expect(location.search).to.equal(new URL(home, location.href).search);
        await peerClick(win, '/details/7');
        expect(history.length).to.equal(start + 1);
        expect(param()).to.equal('/details/7');
        // Written as a path, not percent-encoded.
        expect(location.search).to.match(/[?&]embed=\/details\/7$/);
        await sleep(APART);
        await peerClick(win, '/orders');
        expect(history.length).to.equal(start + 2);
        expect(param()).to.equal('/orders');
      });

      it('Back and Forward walk the viewer’s paths, one press per step, and the URL follows', async () => {
        const start = history.length;
        const { el, win } = await started(own);
        await peerClick(win, '/a');
        await sleep(APART);
        await peerClick(win, '/b');
        expect(history.length).to.equal(start + 2);
        await traverse(-1, el, '/a', (v) => v === '/a');
        await traverse(-1, el, '/', (v) => (v ?? '/') === '/');
        await traverse(1, el, '/a', (v) => v === '/a');
        await traverse(1, el, '/b', (v) => v === '/b');
        await traverse(-1, el, '/a', (v) => v === '/a');
        // Traversals and their answers add no entry.
        expect(history.length).to.equal(start + 2);
      });

      it('the embed’s answer to a navigation the host asks for adds no entry and leaves the URL', async () => {
        const start = history.length;
        const { el, seen } = await started(own);
        const before = location.href;
        el.navigate('/asked/1');
        await until(() => seen.includes('/asked/1'), 'the answer');
        await sleep(APART);
        el.navigate('/asked/2');
        await until(() => seen.includes('/asked/2'), 'the second answer');
        expect(history.length).to.equal(start);
        expect(location.href).to.equal(before);
      });

      it('a re-insertion that restores the path adds no entry, and the URL stays', async () => {
        const start = history.length;
        const { el, win, seen } = await started(own);
        await peerClick(win, '/kept');
        expect(history.length).to.equal(start + 1);
        const url = location.href;
        const again = oneSvcEvent(el, 'svc-ready');
        const parent = el.parentNode!;
        el.remove();
        seen.length = 0;
        parent.append(el);
        await again;
        await until(() => seen.includes('/kept'), 'the restored path');
        expect(await peerPath(windowOf(el))).to.equal('/kept');
        expect(history.length).to.be.at.most(start + 1);
        expect(location.href).to.equal(url);
      });

      it('a renewal (renewSession) that restores the path adds no entry, and the URL stays', async () => {
        const start = history.length;
        const { el, win, seen } = await started(own);
        el.sessionProvider = () => Promise.resolve('renewed-history');
        await peerClick(win, '/renewed');
        const url = location.href;
        seen.length = 0;
        await el.renewSession();
        await until(() => seen.includes('/renewed'), 'the restored path');
        expect(await peerPath(windowOf(el))).to.equal('/renewed');
        expect(history.length).to.be.at.most(start + 1);
        expect(location.href).to.equal(url);
      });

      it('a renewal ahead of expiry swaps frames with no entry, and the URL stays; the next navigation the viewer makes adds one', async function () {
        this.timeout(60_000);
        const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], shouldAdvanceTime: true });
        const start = history.length;
        const el = document.createElement('svc-embed');
        el.sessionProvider = () => Promise.resolve('renewed-ahead');
        el.src = peerUrl(tenant, 'dashboard', `&router=1${own ? '&embedHistory=1' : ''}&session=host-session-1`);
        // Its renewal ahead falls at 9 minutes of the controlled clock.
        el.sessionExpiresAt = new Date(Date.now() + 10 * MINUTE);
        const ready = oneSvcEvent(el, 'svc-ready');
        const seen = views(el);
        stops.push(syncHistory(el));
        document.body.append(el);
        await ready;
        await until(() => seen.includes('/'), 'first view');
        const win = windowOf(el);
        await peerClick(win, '/renewed');
        expect(history.length).to.equal(start + 1);
        const url = location.href;
        await clock.tickAsync(9 * MINUTE + 100);
        // The frame behind (the routing peer, on the new session) is sent the viewer's path and routes there; a
        // dashboard swaps once its widgets are rendered, which the peer reports when told.
        const behind = () => [...el.shadowRoot!.querySelectorAll('iframe')].find((f) => f.inert)?.contentWindow;
        while (!behind() || !saidReady.has(behind()!)) await clock.tickAsync(20);
        const next = behind()!;
        await until(async () => (await peerPath(next)) === '/renewed', 'the frame behind at the viewer’s path');
        await peerPost(next, [envelope('svc:event:dashboard-loaded', {})]);
        await until(() => windowOf(el) === next && el.shadowRoot!.querySelectorAll('iframe').length === 1, 'the swap');
        clock.restore();
        expect(new URL(frameOf(el)!.src).searchParams.get('session')).to.equal('renewed-ahead');
        expect(el.status).to.equal('ready');
        // Firefox drops the entries of a removed frame that kept its own history: with the switch, at most.
        if (own) expect(history.length).to.be.at.most(start + 1);
        else expect(history.length).to.equal(start + 1);
        expect(location.href).to.equal(url);
        // A following navigation of the viewer, in the new frame: exactly one entry, and the URL follows.
        for (let same = 0, last = history.length; same < 4; await sleep(50))
          same = history.length === last ? same + 1 : ((last = history.length), 0);
        const before = history.length;
        await sleep(APART);
        await peerClick(next, '/after-renewal');
        expect(history.length).to.equal(before + 1);
        expect(param()).to.equal('/after-renewal');
      });

      it('a prerendered embed shown (deep-linked, then after a navigation of the viewer) adds no entry, and the URL stays', async () => {
        history.replaceState(null, '', `${home}${location.search ? '&' : '?'}embed=/details/7`);
        const start = history.length;
        const url = location.href;
        const el = prerender({ src: peerUrl(tenant, 'dashboard', `&router=1${own ? '&embedHistory=1' : ''}`) });
        const seen = views(el);
        stops.push(syncHistory(el));
        await el.whenReady();
        await until(() => seen.includes('/details/7'), 'the deep link, while parked');
        expect([history.length, location.href]).to.deep.equal([start, url]);
        const outlet = document.createElement('main');
        outlet.style.cssText = 'width: 600px; height: 400px';
        document.body.append(outlet);
        /** Shows the element in the outlet; resolves once it is ready there at `path`. */
        const shown = async (path: string) => {
          if (show(el, outlet) === 'reloaded') await el.whenReady();
          expect(el.status).to.equal('ready');
          await until(async () => (await peerPath(windowOf(el))) === path, `${path}, shown`);
        };
        await shown('/details/7');
        expect(history.length).to.equal(start);
        expect(location.href).to.equal(url);
        // The viewer navigates in the shown embed (one entry); parked and shown again, it comes back there with none.
        await sleep(APART);
        await peerClick(windowOf(el), '/orders');
        expect(history.length).to.equal(start + 1);
        const after = location.href;
        expect(param()).to.equal('/orders');
        park(el);
        await shown('/orders');
        if (own) expect(history.length).to.be.at.most(start + 1);
        else expect(history.length).to.equal(start + 1);
        expect(location.href).to.equal(after);
      });

      it('started with the parameter present (a deep link, a reload), it opens the embed there, with no entry', async () => {
        history.replaceState(null, '', `${home}${location.search ? '&' : '?'}embed=/details/7`);
        const start = history.length;
        const url = location.href;
        const { el, ready } = routed(own);
        const seen = views(el);
        const asked = navigations(el);
        stops.push(syncHistory(el));
        await ready;
        await until(() => seen.includes('/details/7'), 'the deep link');
        expect(asked).to.deep.equal(['/details/7']);
        expect(await peerPath(windowOf(el))).to.equal('/details/7');
        expect(history.length).to.equal(start);
        expect(location.href).to.equal(url);
      });

      // WebKitGTK 2.50 does not walk the entries of two frames that each pushed their own: without this module (or any
      // script of the host), after a1, b1, a2 in two such frames, the first two Backs change neither frame and the third
      // takes the first frame to "/". No host can undo what the browser does not traverse: there, the test is skipped.
      const webkitFrames = own && !/Chrome|Firefox/.test(navigator.userAgent);
      (webkitFrames ? it.skip : it)(
        'several embeds keep their own params; Back undoes their navigations in the order they were made',
        async () => {
          const start = history.length;
          const a = await started(own, { param: 'sales' });
          const b = await started(own, { param: 'support' });
          await peerClick(a.win, '/a1');
          await sleep(APART);
          await peerClick(b.win, '/b1');
          await sleep(APART);
          await peerClick(a.win, '/a2');
          expect(history.length).to.equal(start + 3);
          expect([param('sales'), param('support')]).to.deep.equal(['/a2', '/b1']);
          await traverse(-1, a.el, '/a1', (v) => v === '/a1', 'sales');
          expect(await peerPath(b.win)).to.equal('/b1');
          expect(param('support')).to.equal('/b1');
          await traverse(-1, b.el, '/', (v) => (v ?? '/') === '/', 'support');
          expect(await peerPath(a.win)).to.equal('/a1');
          await traverse(-1, a.el, '/', (v) => (v ?? '/') === '/', 'sales');
          expect(await peerPath(b.win)).to.equal('/');
        },
      );

      it('stop() removes every listener and leaves the URL as it is', async () => {
        const start = history.length;
        const { el, win, stop } = await started(own);
        await peerClick(win, '/before');
        const url = location.href;
        const add = sinon.spy(window, 'removeEventListener');
        stop();
        expect(add.calledWith('popstate')).to.equal(true);
        expect(location.href).to.equal(url);
        const asked = navigations(el);
        await sleep(APART);
        await peerClick(win, '/after');
        // The embed's own entry (with its switch) is the frame's; the module wrote nothing.
        expect(history.length).to.equal(start + 1 + (own ? 1 : 0));
        expect(location.href).to.equal(url);
        // Back: nothing is sent into the embed.
        const popped = new Promise((r) => addEventListener('popstate', r, { once: true }));
        history.back();
        if (!own) await popped;
        else await sleep(APART * 3);
        await sleep(APART);
        expect(asked).to.deep.equal([]);
      });
    });
  }

  it('navigate events within 50 ms of each other make one entry, which holds the last path (no history of its own)', async () => {
    const start = history.length;
    const { el, win } = await started(false);
    await peerClick(win, '/c1', '/c2', '/c3');
    expect(history.length).to.equal(start + 1);
    expect(param()).to.equal('/c3');
    await traverse(-1, el, '/', (v) => v === null);
  });

  it('an embed that pushes its own entries: no second entry of the module; the frame’s Back is one press', async () => {
    const start = history.length;
    const { el, win } = await started(true);
    // Three entries of the frame's, one per navigation, so Back walks them: the URL follows each.
    await peerClick(win, '/c1', '/c2', '/c3');
    expect(history.length).to.equal(start + 3);
    expect(param()).to.equal('/c3');
    await traverse(-1, el, '/c2', (v) => v === '/c2');
  });

  it('the rest of the URL (other parameters as written, the hash) and the state of the page’s router are kept', async () => {
    history.replaceState(
      { router: 'state', position: 3 },
      '',
      `${home}${location.search ? '&' : '?'}q=a%20b&flag#part`,
    );
    const { win } = await started(false);
    await peerClick(win, '/kept');
    expect(location.search).to.contain('q=a%20b&flag&embed=/kept');
    expect(location.hash).to.equal('#part');
    expect(history.state).to.deep.equal({ router: 'state', position: 3 });
    await sleep(APART);
    await peerClick(win, '/kept/2');
    expect(location.search).to.contain('q=a%20b&flag&embed=/kept/2');
    expect(location.search.match(/embed=/g)).to.have.length(1);
  });

  it('a value that is not an in-embed path is ignored with one console warning, never navigated to', async () => {
    for (const bad of [
      'https://evil.example/x',
      '//evil.example/x',
      'javascript:alert(1)',
      'details',
      '/a/../b',
      `/${'x'.repeat(2048)}`,
    ]) {
      history.replaceState(null, '', `${home}${location.search ? '&' : '?'}embed=${encodeURIComponent(bad)}`);
      const warn = sinon.stub(console, 'warn');
      const { el, ready } = routed(false);
      const asked = navigations(el);
      const stop = syncHistory(el);
      await ready;
      await sleep(APART);
      expect(warn.callCount, bad).to.equal(1);
      expect(String(warn.firstCall.args[0])).to.match(/ignoring embed: not an in-embed path/);
      expect(asked, bad).to.deep.equal([]);
      expect(await peerPath(windowOf(el))).to.equal('/');
      stop();
      warn.restore();
      el.remove();
    }
  });

  it('a bad value reached by Back is ignored too, with one warning', async () => {
    // An entry whose parameter is not a path (a hand-edited link), then one without it: Back to the first.
    history.pushState(null, '', `${home}${location.search ? '&' : '?'}embed=javascript:alert(1)`);
    history.pushState(null, '', home);
    const { el } = await started(false);
    const warn = sinon.stub(console, 'warn');
    const asked = navigations(el);
    const popped = new Promise((r) => addEventListener('popstate', r, { once: true }));
    history.back();
    await popped;
    await sleep(APART);
    expect(warn.callCount).to.equal(1);
    expect(asked).to.deep.equal([]);
    expect(await peerPath(windowOf(el))).to.equal('/');
  });

  it('Back works before the embed is ready: the navigation is held', async () => {
    const { el, win } = await started(false);
    await peerClick(win, '/one');
    await sleep(APART);
    await peerClick(win, '/two');
    // A re-insertion: the embed is loading again when Back arrives.
    const again = oneSvcEvent(el, 'svc-ready');
    const parent = el.parentNode!;
    el.remove();
    const popped = new Promise((r) => addEventListener('popstate', r, { once: true }));
    history.back();
    await popped;
    parent.append(el);
    expect(el.status).to.not.equal('ready');
    await again;
    await until(async () => (await peerPath(windowOf(el))) === '/one', 'the held navigation');
    expect(param()).to.equal('/one');
  });

  it('navigate events while the embed is not ready are never the viewer’s: no entry, no URL change', async () => {
    const start = history.length;
    const url = location.href;
    // A peer that says ready only when told, so its events arrive while the element is loading.
    const { el, ready } = embed({ src: peerUrl(tenant, null) });
    stops.push(syncHistory(el));
    const navigated = new Promise((r) => el.addEventListener('svc-navigate', r, { once: true }));
    await until(() => !!el.shadowRoot?.querySelector('iframe'), 'the frame');
    await peerLoaded(windowOf(el));
    expect(el.status).to.equal('loading');
    await peerPost(windowOf(el), [
      envelope('svc:event:navigate', { path: '/early', previousPath: '/' }),
      envelope('svc:event:view', { surface: 'dashboard', path: '/early' }),
    ]);
    await navigated;
    await peerReady(windowOf(el));
    await ready;
    expect(history.length).to.equal(start);
    expect(location.href).to.equal(url);
  });

  it('an adapter owns the URL: a small router reads, writes (push or replace) and tells of its changes', async () => {
    // A router that keeps its own location and entries, as a framework's does.
    const entries: string[] = [''];
    let index = 0;
    const listeners = new Set<() => void>();
    const writes: string[] = [];
    const router = {
      go(delta: number) {
        index += delta;
        for (const l of listeners) l();
      },
    };
    const adapter: HistoryAdapter = {
      read: () => new URLSearchParams(entries[index]).get('view'),
      write(path, mode) {
        writes.push(`${mode} ${path}`);
        const next = `view=${path}`;
        if (mode === 'push') entries.splice(++index, Infinity, next);
        else entries[index] = next;
      },
      subscribe(onChange) {
        listeners.add(onChange);
        return () => listeners.delete(onChange);
      },
    };
    const start = history.length;
    const { el, win, stop } = await started(false, { param: 'view', adapter });
    await peerClick(win, '/r1');
    await sleep(APART);
    await peerClick(win, '/r2', '/r3');
    expect(writes).to.deep.equal(['push /r1', 'push /r2', 'replace /r3']);
    expect(entries).to.deep.equal(['', 'view=/r1', 'view=/r3']);
    // The module wrote nothing to the page's own URL.
    expect(history.length).to.equal(start);
    expect(param('view')).to.equal(null);
    router.go(-1);
    await until(async () => (await peerPath(win)) === '/r1', 'the router went back');
    router.go(-1);
    await until(async () => (await peerPath(win)) === '/', 'the first path');
    expect(writes).to.have.length(3);
    stop();
    expect(listeners.size).to.equal(0);
    void el;
  });
});
