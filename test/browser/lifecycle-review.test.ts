// The second outside review of the session lifecycle (issue 26): a renewed session never leaves its tenant, and
// nothing is stuck or lost, whatever listeners, moves, pop-outs and re-encoded host URLs do.
import { expect, oneEvent } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import sinon from 'sinon';
import {
  canMoveBefore,
  cleanup,
  embed,
  envelope,
  frameOf,
  newFrame,
  oneSvcEvent,
  other,
  peerLoaded,
  peerPost,
  peerReady,
  peerReport,
  peerUrl,
  statuses,
  tenant,
  windowOf,
} from './helpers.js';
import { SvcEmbedError } from '../../src/index.js';
import type { SvcEmbedElement, SvcStatusDetail } from '../../src/index.js';

const view = (path: string) => envelope('svc:event:view', { surface: 'dashboard', path });
const sessionOf = (el: SvcEmbedElement) => new URL(frameOf(el)!.src).searchParams.get('session');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves once the element shows a frame other than `win`, and that frame's peer page has loaded. */
async function nextFrame(el: SvcEmbedElement, win: Window | null, origin = tenant) {
  await newFrame(el, win);
  await peerLoaded(windowOf(el), origin);
  return windowOf(el);
}

/** An element on `src` that says ready, renewed with `session` and ready again on it. */
async function renewedOn(attrs: Record<string, string>, session: string, props: Partial<SvcEmbedElement> = {}) {
  const el = document.createElement('svc-embed');
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  Object.assign(el, props);
  document.body.append(el);
  await el.updateComplete;
  await peerLoaded(windowOf(el));
  await peerReady(windowOf(el));
  expect(el.status).to.equal('ready');
  const renewed = el.renewSession(session);
  const win = await nextFrame(el, windowOf(el));
  await peerReady(win);
  await renewed;
  expect(sessionOf(el)).to.equal(session);
  return el;
}

/**
 * An element on `src`, ready, then adopted into a same-origin pop-out document and ready again there; with `post`, a
 * function of the pop-out's realm that posts as the pop-out (the embed's parent), which is what the peer and the
 * simulated tenant require of their controller (`event.source === window.parent`).
 */
async function adoptedIntoPopOut(src: string) {
  const holder = document.body.appendChild(document.createElement('iframe'));
  const popOut = holder.contentDocument!;
  popOut.open();
  popOut.write('<!doctype html><body></body>');
  popOut.close();
  const { el, ready } = embed({ src });
  await ready;
  const readyAgain = oneSvcEvent(el, 'svc-ready');
  popOut.body.append(popOut.adoptNode(el));
  const readyThere = await readyAgain;
  const popWin = holder.contentWindow! as Window & typeof globalThis;
  const post = new popWin.Function('w', 'm', 'o', 'w.postMessage(m, o)') as (w: Window, m: unknown, o: string) => void;
  return { el, popWin, post, readyThere };
}

describe('the lifecycle review (issue 26)', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  describe('HIGH: a renewed session never leaves its tenant', () => {
    const renewed = 'A-only-0123456789';
    const forms: Array<[string, Record<string, string>, Partial<SvcEmbedElement>, (el: SvcEmbedElement) => void]> = [
      [
        'src with a session, the same session kept',
        { src: peerUrl(tenant, null, '&session=host-session') },
        {},
        (el) => (el.src = peerUrl(other, null, '&session=host-session')),
      ],
      ['src with no session', { src: peerUrl(tenant, null) }, {}, (el) => (el.src = peerUrl(other, null))],
      [
        'tenant-origin with the same session kept',
        { 'tenant-origin': tenant, 'public-id': 'test-board' },
        { session: 'host-session' },
        (el) => (el.tenantOrigin = other),
      ],
      [
        'tenant-origin with no session',
        { 'tenant-origin': tenant, 'public-id': 'test-board' },
        {},
        (el) => (el.tenantOrigin = other),
      ],
    ];
    for (const [name, attrs, props, move] of forms) {
      it(`${name}: a change of origin drops the renewed session`, async () => {
        const el = await renewedOn(attrs, renewed, props);
        const before = windowOf(el);
        move(el);
        const win = await nextFrame(el, before, other);
        expect(new URL(frameOf(el)!.src).origin).to.equal(other);
        expect(frameOf(el)!.src).to.not.contain('A-only');
        expect(sessionOf(el)).to.equal(props.session ?? (attrs.src?.includes('host-session') ? 'host-session' : null));
        // Back on the first tenant, the renewed session is gone too: the host's own value loads.
        if (attrs.src) el.src = attrs.src;
        else el.tenantOrigin = tenant;
        await nextFrame(el, win);
        expect(frameOf(el)!.src).to.not.contain('A-only');
      });
    }

    it('a change within the origin (another public-id, allow-export) keeps the renewed session', async () => {
      const el = await renewedOn({ 'tenant-origin': tenant, 'public-id': 'test-board' }, renewed);
      let win = windowOf(el);
      el.publicId = 'other-board';
      win = await nextFrame(el, win);
      expect(sessionOf(el)).to.equal(renewed);
      el.allowExport = true;
      await nextFrame(el, win);
      expect(sessionOf(el)).to.equal(renewed);
    });
  });

  describe('1: never stuck in loading, whatever a listener does', () => {
    for (const how of ['append', 'insertBefore'] as const) {
      for (const when of ['the first load', 'a src change'] as const) {
        it(`a svc-status listener that moves the element with ${how}() at loading, on ${when}, still times out`, async () => {
          const home = document.body.appendChild(document.createElement('div'));
          const spare = document.body.appendChild(document.createElement('div'));
          const el = document.createElement('svc-embed');
          el.setAttribute('ready-timeout', '500');
          sinon.stub(console, 'error');
          if (when === 'a src change') {
            el.src = peerUrl(tenant, 'dashboard');
            home.append(el);
            await oneEvent(el, 'svc-ready');
          }
          let moves = 0;
          el.addEventListener('svc-status', (e) => {
            if (e.detail.status !== 'loading' || moves++) return;
            const to = el.parentNode === home ? spare : home;
            if (how === 'append') to.append(el);
            else to.insertBefore(el, to.firstChild);
          });
          const timedOut = new Promise<SvcStatusDetail>((resolve) =>
            el.addEventListener('svc-status', (e) => e.detail.status === 'error' && resolve(e.detail)),
          );
          el.src = peerUrl(tenant, null, '&never=ready');
          if (!el.isConnected) home.append(el);
          const detail = await Promise.race([timedOut, sleep(8000).then(() => undefined)]);
          expect(moves).to.equal(1);
          expect(detail?.reason, `status is ${el.status}`).to.equal('ready-timeout');
        });
      }
    }
  });

  describe('2: a browser that reloads the frame on moveBefore()', () => {
    it('holds commands until the new document says ready, then restores the state and the path', async function () {
      const from = document.body.appendChild(document.createElement('div'));
      const to = document.body.appendChild(document.createElement('section'));
      if (!canMoveBefore(to)) this.skip(); // WebKitGTK 2.50 has no moveBefore
      const el = from.appendChild(document.createElement('svc-embed'));
      el.colorScheme = 'dark';
      el.src = peerUrl(tenant, null);
      await el.updateComplete;
      await peerLoaded(windowOf(el));
      await peerReady(windowOf(el));
      await peerPost(windowOf(el), [view('/where-i-was')]);
      const before = windowOf(el);
      const seen = statuses(el);
      const warn = sinon.stub(console, 'warn');
      to.moveBefore(el, null);
      el.refresh();
      if (windowOf(el) === before) {
        // Chromium keeps the document: the move is invisible, and the command reaches it at once.
        expect(seen).to.deep.equal([]);
        const types = (await peerReport(before)).map((r) => r.data.type);
        expect(types).to.deep.equal(['svc:action:set-color-scheme', 'svc:action:refresh']);
        return;
      }
      // Firefox starts a new document: loading until it says ready; nothing was posted into the reload.
      expect([el.status, el.ready]).to.deep.equal(['loading', false]);
      await peerLoaded(windowOf(el));
      await peerReady(windowOf(el));
      expect(seen.map((s) => s.status)).to.deep.equal(['loading', 'ready']);
      const report = await peerReport(windowOf(el));
      expect(report.map((r) => [r.data.type, r.data.payload])).to.deep.equal([
        ['svc:action:set-color-scheme', { scheme: 'dark' }],
        ['svc:action:navigate', { path: '/where-i-was' }],
        ['svc:action:refresh', {}],
      ]);
      expect(warn.callCount).to.equal(0);
    });
  });

  describe('3: adopted into a pop-out window', () => {
    it('dispatches events, warns once that actions from another realm do not reach the embed', async () => {
      const { el, popWin, post } = await adoptedIntoPopOut(peerUrl(tenant, 'dashboard'));
      const win = windowOf(el);
      type Answer = { peerId?: number; peerDone?: number; peerReport?: Array<{ data: { type: string } }> };
      const ask = (peerCmd: string, extra = {}) =>
        new Promise<Answer>((resolve) => {
          const id = Math.random();
          popWin.addEventListener('message', function on(e: MessageEvent<Answer | null>) {
            if (e.source === win && e.data && (e.data.peerId === id || e.data.peerDone === id)) {
              popWin.removeEventListener('message', on);
              resolve(e.data);
            }
          });
          post(win, { peerCmd, id, ...extra }, tenant);
        });
      // Events work: the peer's view reaches the element's listeners.
      const viewed = oneSvcEvent(el, 'svc-view');
      await ask('post', { messages: [view('/in-the-pop-out')] });
      expect((await viewed).detail.payload.path).to.equal('/in-the-pop-out');
      // Firefox (ESR 140) gives the adopted node a wrapper of the pop-out's realm, where svc-embed is not defined: its
      // events still arrive, but the node has no methods left to call (docs/lifecycle.md).
      if (navigator.userAgent.includes('Firefox')) return void expect(typeof el.refresh).to.equal('undefined');
      // Actions do not: the element says so, once.
      const warn = sinon.stub(console, 'warn');
      el.refresh();
      el.navigate('/x');
      expect(warn.callCount).to.equal(1);
      expect(String(warn.firstCall.args[0])).to.contain('pop-out');
      const { peerReport: report } = await ask('report');
      expect(report!.map((r) => r.data.type)).to.deep.equal([]);
    });

    it("against the simulated tenant: its events arrive, the element's navigate is dropped, a pop-out's own is not", async () => {
      const [simulated]: string[] = await executeServerCommand('tenant-origins');
      const { el, post, readyThere } = await adoptedIntoPopOut(
        `${simulated}/embed/dashboard/sales-overview?session=demo-acme`,
      );
      expect(readyThere.detail.payload.mode).to.equal('signed');
      const paths: string[] = [];
      el.addEventListener('svc-view', (e) => paths.push(e.detail.payload.path));
      sinon.stub(console, 'warn');
      // The element's navigate comes from this window's realm: the tenant drops it. Then the same action posted by
      // the pop-out's own realm: the tenant takes it, and its view arrives. The tenant handles messages in order, so
      // that view proves the first was seen and dropped, not late.
      // (Firefox: the adopted node has no methods left, as above; only the pop-out's own navigate is sent.)
      if (navigator.userAgent.includes('Firefox')) expect(typeof el.navigate).to.equal('undefined');
      else el.navigate('/details');
      const viewed = oneSvcEvent(el, 'svc-view');
      post(
        windowOf(el),
        { source: 'svc-embed', direction: 'action', type: 'svc:action:navigate', payload: { path: '/' }, timestamp: 1 },
        simulated,
      );
      await viewed;
      expect(paths).to.deep.equal(['/']);
    });
  });

  describe('4: ready-timeout', () => {
    for (const value of ['', '   ']) {
      it(`ready-timeout="${value}" warns, and the default 15000 applies`, async () => {
        const warn = sinon.stub(console, 'warn');
        const timers = sinon.spy(window, 'setTimeout');
        const { el } = embed({ src: peerUrl(tenant, null), 'ready-timeout': value });
        await el.updateComplete;
        expect(timers.getCalls().map((c) => c.args[1])).to.include(15000);
        expect(warn.callCount).to.equal(1);
        expect(String(warn.firstCall.args[0])).to.contain('ready-timeout');
      });
    }

    it('removing the attribute, or null and undefined, restores 15000 without a warning', async () => {
      const warn = sinon.stub(console, 'warn');
      const { el } = embed({ src: peerUrl(tenant, null), 'ready-timeout': '500' });
      await el.updateComplete;
      el.removeAttribute('ready-timeout');
      expect(el.readyTimeout).to.equal(15000);
      for (const value of [600, null, 700, undefined]) {
        (el as { readyTimeout: unknown }).readyTimeout = value;
        await el.updateComplete;
        expect(el.readyTimeout).to.equal(value ?? 15000);
      }
      expect(warn.callCount).to.equal(0);
    });

    it('a new value applies to the running wait, counted from when it began', async () => {
      sinon.stub(console, 'error');
      const { el } = embed({ src: peerUrl(tenant, null), 'ready-timeout': '0' });
      await el.updateComplete;
      const timedOut = oneSvcEvent(el, 'svc-status');
      el.readyTimeout = 500;
      const { detail } = await timedOut;
      // It timed out at all (with 0 it would wait forever), on the new value rather than the default; elapsedMs is
      // rounded, and a timer may fire a moment early, hence the margin.
      expect(detail.reason).to.equal('ready-timeout');
      expect(detail.elapsedMs).to.be.within(450, 14_000);

      const { el: second } = embed({ src: peerUrl(tenant, null), 'ready-timeout': '300' });
      await second.updateComplete;
      second.readyTimeout = 60_000;
      await second.updateComplete;
      await sleep(700);
      expect(second.status).to.equal('loading');
    });
  });

  describe('5: every form of a session is redacted', () => {
    it('the raw, percent-encoded and form-encoded forms of the host session and the renewed one', async () => {
      sinon.stub(console, 'error');
      const host = 'host abc+/=xyz';
      const renewed = 'renewed ~+/= 12345';
      const el = await renewedOn({ 'tenant-origin': tenant, 'public-id': 'test-board' }, renewed, { session: host });
      const forms = (s: string) => [s, encodeURIComponent(s), new URLSearchParams({ s }).toString().slice(2)];
      const message = [...forms(host), ...forms(renewed)].map((f) => `https://x/embed?session=${f}`).join(' | ');
      const failed = oneSvcEvent(el, 'svc-status');
      await peerPost(windowOf(el), [envelope('svc:event:error', { message, fatal: true })]);
      const { detail } = await failed;
      expect(detail.reason).to.equal('embed-fatal-error');
      for (const form of [...forms(host), ...forms(renewed)]) expect(detail.message).to.not.contain(form);
      expect(detail.message).to.equal(Array(6).fill('https://x/embed?session=…').join(' | '));
    });
  });

  describe('6: a flush interrupted by a listener', () => {
    /**
     * An element whose held refresh and navigate meet `listener` at the action `at` of its ready. The peer's ready is
     * not awaited through the peer: the listener may replace its frame, and the browser drops what a removed frame
     * posted last.
     */
    async function heldAtReady(listener: (el: SvcEmbedElement) => void, at = 'svc:action:set-color-scheme') {
      const el = document.createElement('svc-embed');
      el.src = peerUrl(tenant, null);
      el.colorScheme = 'dark';
      document.body.append(el);
      await el.updateComplete;
      el.refresh();
      el.navigate('/held');
      const win = windowOf(el);
      await peerLoaded(win);
      await new Promise<void>((resolve) => {
        const on = (e: CustomEvent<{ type: string }>) => {
          if (e.detail.type !== at) return;
          el.removeEventListener('svc-action', on);
          listener(el);
          resolve();
        };
        el.addEventListener('svc-action', on);
        void peerReady(win);
      });
      return { el, win };
    }

    it('renewSession() at the first action: the commands not yet sent wait for the renewed session', async () => {
      const warn = sinon.stub(console, 'warn');
      const { el, win } = await heldAtReady((e) => void e.renewSession('renewed-at-action'));
      const next = await nextFrame(el, win);
      await peerReady(next);
      const report = await peerReport(next);
      expect(report.map((r) => r.data.type)).to.deep.equal([
        'svc:action:set-color-scheme',
        'svc:action:refresh',
        'svc:action:navigate',
      ]);
      expect(warn.callCount).to.equal(0);
    });

    it('removed and re-inserted at the first action: the commands not yet sent wait for the reload', async () => {
      const { el, win } = await heldAtReady((e) => {
        e.remove();
        document.body.append(e);
      });
      await peerLoaded(windowOf(el), tenant, win === windowOf(el) ? 2 : 1);
      await peerReady(windowOf(el));
      const types = (await peerReport(windowOf(el))).map((r) => r.data.type);
      expect(types.slice(-3)).to.deep.equal([
        'svc:action:set-color-scheme',
        'svc:action:refresh',
        'svc:action:navigate',
      ]);
    });

    it("a src change at the first held command's action drops the rest (rule 3), with no warning", async () => {
      const warn = sinon.stub(console, 'warn');
      const { el, win } = await heldAtReady((e) => (e.src = peerUrl(tenant, null, '&v=2')), 'svc:action:refresh');
      const next = await nextFrame(el, win);
      await peerReady(next);
      expect((await peerReport(next)).map((r) => r.data.type)).to.deep.equal(['svc:action:set-color-scheme']);
      expect(warn.callCount).to.equal(0);
    });
  });

  describe('7: a host URL that differs only in its encoding is no change', () => {
    for (const [name, written] of [
      ['%20 and %7E', 'new%20session%7E1'],
      ['+ and ~', 'new+session~1'],
    ]) {
      it(`a host that mirrors the renewed session into src with ${name} keeps the frame`, async () => {
        const el = await renewedOn({ src: peerUrl(tenant, null, '&session=old') }, 'new session~1');
        const win = windowOf(el);
        await peerPost(win, [view('/kept')]);
        const seen = statuses(el);
        el.src = peerUrl(tenant, null, `&session=${written}`);
        await el.updateComplete;
        expect([windowOf(el) === win, el.status, seen]).to.deep.equal([true, 'ready', []]);
      });
    }
  });

  describe('8: status, ready and svc-status agree', () => {
    it('right after a src assignment, and inside svc-action at ready', async () => {
      const { el, ready } = embed({ 'color-scheme': 'dark' });
      await ready;
      el.src = peerUrl(other, null);
      expect(el.ready).to.equal(el.status === 'ready');
      const seen: boolean[] = [];
      el.addEventListener('svc-action', () => seen.push(el.ready === (el.status === 'ready')));
      await el.updateComplete;
      expect(el.ready).to.equal(el.status === 'ready');
      await peerLoaded(windowOf(el), other);
      await peerReady(windowOf(el), other);
      expect(seen).to.deep.equal([true]);
    });

    it('a listener that renews inside svc-status: every listener sees the states in order', async () => {
      sinon.stub(console, 'error');
      const { el } = embed({ src: peerUrl(tenant, null), 'ready-timeout': '300' });
      el.addEventListener('svc-status', (e) => {
        if (e.detail.reason === 'ready-timeout') void el.renewSession('after-timeout').catch(() => {});
      });
      const mirror = statuses(document);
      const late = statuses(el);
      await new Promise<void>((resolve) =>
        el.addEventListener('svc-status', (e) => e.detail.reason === 'session-renewal' && resolve()),
      );
      for (const seen of [mirror, late]) {
        expect(seen.map((s) => s.status)).to.deep.equal(['loading', 'error', 'loading']);
        for (let i = 1; i < seen.length; i++) expect(seen[i].previous).to.equal(seen[i - 1].status);
      }
      expect(mirror.at(-1)!.status).to.equal(el.status);
    });
  });

  it('9: renewSession() during an automatic renewal joins it: the provider is called once', async () => {
    const calls: Array<(s: string) => void> = [];
    const { el, ready } = embed({ src: peerUrl(tenant, 'dashboard', '&session=old') });
    el.sessionProvider = () => new Promise<string>((give) => calls.push(give));
    await ready;
    const renewing = oneSvcEvent(el, 'svc-status');
    void peerPost(windowOf(el), [
      envelope('svc:event:error', { message: 'expired', name: 'SessionExpiredError', fatal: true }),
    ]);
    await renewing;
    const joined = el.renewSession();
    expect(calls.length).to.equal(1);
    const win = windowOf(el);
    calls[0]('provided-once');
    await nextFrame(el, win);
    await joined;
    expect([calls.length, sessionOf(el)]).to.deep.equal([1, 'provided-once']);
  });

  it('10: errors of another copy of the element are instanceof SvcEmbedError', async () => {
    // The built module is a second copy of the class: another module instance, as a second bundle would be.
    const copy = (await import(new URL('/dist/error.js', location.href).href)) as {
      SvcEmbedError: typeof SvcEmbedError;
    };
    expect(copy.SvcEmbedError).to.not.equal(SvcEmbedError);
    const theirs = new copy.SvcEmbedError('ready-timeout', 'x');
    const ours = new SvcEmbedError('ready-timeout', 'x');
    expect([theirs instanceof SvcEmbedError, ours instanceof copy.SvcEmbedError]).to.deep.equal([true, true]);
    expect([theirs.name, theirs instanceof Error, new Error('x') instanceof SvcEmbedError]).to.deep.equal([
      'SvcEmbedError',
      true,
      false,
    ]);
  });
});
