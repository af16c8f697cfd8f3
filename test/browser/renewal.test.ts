// Session renewal (issue 8): automatic on a fatal session error, manual with renewSession(), the viewer's
// place kept, and the loop guard.
import { expect, oneEvent } from '@open-wc/testing';
import sinon from 'sinon';
import {
  cleanup,
  embed,
  envelope,
  frameOf,
  newFrame,
  peerLoaded,
  peerPost,
  peerReady,
  peerReport,
  peerUrl,
  tenant,
  windowOf,
} from './helpers.js';
import type { SvcEmbedElement, SvcEmbedError } from '../../src/index.js';

const expired = envelope('svc:event:error', {
  message: 'Session expired',
  name: 'SessionExpiredError',
  context: 'auth',
  fatal: true,
});
const view = (path: string) => envelope('svc:event:view', { surface: 'dashboard', path });
const sessionOf = (el: SvcEmbedElement) => new URL(frameOf(el)!.src).searchParams.get('session');
/** Resolves with what `p` rejects with (an SvcEmbedError, in these tests), or with undefined if it fulfils. */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: SvcEmbedError) => e,
  );

/**
 * Has the peer post a fatal session error. Not awaited through the peer: the renewal replaces its frame,
 * and the browser drops what a removed frame posted last.
 */
function expire(el: SvcEmbedElement) {
  const renewing = oneEvent(el, 'svc-status');
  void peerPost(windowOf(el), [expired]);
  return renewing;
}

/** Records svc-error and svc-status (with its reason) of `el`, in order. */
function story(el: SvcEmbedElement) {
  const seen: string[] = [];
  el.addEventListener('svc-error', () => seen.push('svc-error'));
  el.addEventListener('svc-status', (e) =>
    seen.push(`${e.detail.status}${e.detail.reason ? ` (${e.detail.reason})` : ''}`),
  );
  return seen;
}

// The host's own session: with a provider and no session, the first load would ask the provider for one.
const hosted = peerUrl(tenant, 'dashboard', '&session=host-session');

describe('session renewal', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  it('renews by itself on a fatal session error, keeping the viewer in place', async () => {
    const provider = sinon.stub().resolves('renewed-1');
    const { el, ready } = embed({
      src: peerUrl(tenant, 'dashboard', '&session=old&allowExport=true'),
      'color-scheme': 'dark',
    });
    el.sessionProvider = provider;
    await ready;
    await peerPost(windowOf(el), [view('/dash/2')]);
    const seen = story(el);
    const readyAgain = oneEvent(el, 'svc-ready');
    await expire(el);
    // Made during the renewal: held for the new session.
    el.refresh();
    await readyAgain;
    expect(provider.callCount).to.equal(1);
    expect(seen).to.deep.equal(['svc-error', 'loading (session-renewal)', 'ready']);
    expect(sessionOf(el)).to.equal('renewed-1');
    expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal('true');
    // The host owns src: the renewed session is the element's own.
    expect(el.src).to.equal(peerUrl(tenant, 'dashboard', '&session=old&allowExport=true'));
    const report = await peerReport(windowOf(el));
    expect(report.map((r) => [r.data.type, r.data.payload])).to.deep.equal([
      ['svc:action:set-color-scheme', { scheme: 'dark' }],
      ['svc:action:navigate', { path: '/dash/2' }],
      ['svc:action:refresh', {}],
    ]);
  });

  it('keeps commands held before the renewal, and does not restore the path when the host navigated since', async () => {
    const provider = sinon.stub().resolves('renewed-2');
    const { el } = embed({ src: peerUrl(tenant, null, '&session=old') });
    el.sessionProvider = provider;
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    el.refresh();
    await peerReady(windowOf(el));
    await peerPost(windowOf(el), [view('/where-i-was')]);
    const oldWin = windowOf(el);
    const renewal = el.renewSession();
    el.navigate('/host-choice');
    await newFrame(el, oldWin);
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    await renewal;
    expect((await peerReport(windowOf(el))).map((r) => r.data.payload)).to.deep.equal([{ path: '/host-choice' }]);
  });

  it("renewSession(session) in the tenant-origin form loads that session, leaves the host's session as it is, and resolves at the new ready", async () => {
    const el = document.createElement('svc-embed');
    Object.assign(el, { tenantOrigin: tenant, publicId: 'test-board', session: 'old' });
    document.body.append(el);
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    const seen = story(el);
    let resolved = false;
    const renewal = el.renewSession('given-1').then(() => (resolved = true));
    await el.updateComplete;
    expect(el.session).to.equal('old');
    expect(frameOf(el)!.src).to.equal(`${tenant}/embed/dashboard/test-board?session=given-1`);
    await peerLoaded(windowOf(el));
    expect(resolved).to.equal(false);
    await peerReady(windowOf(el));
    await renewal;
    expect(seen).to.deep.equal(['loading (session-renewal)', 'ready']);
  });

  it('renewSession() without an argument asks the provider once', async () => {
    const provider = sinon.stub().resolves('from-provider');
    const { el, ready } = embed({ src: hosted });
    el.sessionProvider = provider;
    await ready;
    const readyAgain = oneEvent(el, 'svc-ready');
    await el.renewSession();
    await readyAgain;
    expect(provider.callCount).to.equal(1);
    expect(sessionOf(el)).to.equal('from-provider');
  });

  const BAD_PROVIDERS: Array<[string, () => Promise<string>]> = [
    ['rejects', () => Promise.reject(new Error('backend down'))],
    ["returns ''", () => Promise.resolve('')],
    ['returns a value with a control character', () => Promise.resolve('a\nb')],
    ['returns a number', () => Promise.resolve(42 as unknown as string)],
    ['hangs', () => new Promise<string>(() => {})],
  ];
  for (const [what, provider] of BAD_PROVIDERS) {
    it(`a provider that ${what}: error, session-renewal-failed, and renewSession() rejects`, async () => {
      const { el, ready } = embed({ 'ready-timeout': '300', src: hosted });
      el.sessionProvider = provider;
      await ready;
      const seen = story(el);
      const error = await failure(el.renewSession());
      expect([error!.name, error!.reason]).to.deep.equal(['SvcEmbedError', 'session-renewal-failed']);
      expect(el.status).to.equal('error');
      expect(seen).to.deep.equal(['loading (session-renewal)', 'error (session-renewal-failed)']);
      expect((await failure(el.whenReady()))!.reason).to.equal('session-renewal-failed');
    });
  }

  it('an automatic renewal within 30 s of the previous one is not attempted (fake clock)', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['performance', 'Date'], now: 1_000_000 });
    let n = 0;
    const provider = sinon.stub().callsFake(() => Promise.resolve(`renewed-${++n}`));
    const { el, ready } = embed({ src: hosted });
    el.sessionProvider = provider;
    await ready;
    const seen = story(el);
    let readyAgain = oneEvent(el, 'svc-ready');
    await expire(el);
    await readyAgain;
    clock.tick(30_001);
    readyAgain = oneEvent(el, 'svc-ready');
    await expire(el);
    await readyAgain;
    clock.tick(29_000);
    await expire(el);
    expect(provider.callCount).to.equal(2);
    expect(el.status).to.equal('error');
    expect(seen).to.deep.equal([
      'svc-error',
      'loading (session-renewal)',
      'ready',
      'svc-error',
      'loading (session-renewal)',
      'ready',
      'svc-error',
      'error (session-renewal-failed)',
    ]);
    clock.restore();
  });

  it('a fatal error that is not about the session does not renew', async () => {
    const provider = sinon.stub().resolves('x-session');
    const { el, ready } = embed({ src: hosted });
    el.sessionProvider = provider;
    await ready;
    const seen = story(el);
    await peerPost(windowOf(el), [
      envelope('svc:event:error', {
        message: 'Dashboard not found',
        name: 'NotFoundError',
        context: 'dashboard',
        fatal: true,
      }),
    ]);
    expect(provider.callCount).to.equal(0);
    expect(seen).to.deep.equal(['svc-error', 'error (embed-fatal-error)']);
  });

  it('a fatal session error without a provider is an embed-fatal-error', async () => {
    const { el, ready } = embed();
    await ready;
    const seen = story(el);
    await peerPost(windowOf(el), [expired]);
    expect(seen).to.deep.equal(['svc-error', 'error (embed-fatal-error)']);
  });

  it('posts nothing to the old frame once the renewal has begun', async () => {
    let give!: (s: string) => void;
    const { el, ready } = embed({ src: hosted });
    el.sessionProvider = () => new Promise((resolve) => (give = resolve));
    await ready;
    const oldWin = windowOf(el);
    const renewal = el.renewSession();
    el.navigate('/later');
    el.colorScheme = 'light';
    await el.updateComplete;
    // The old frame is still shown while the provider works: it must receive nothing, even if it says
    // ready again, and its events no longer count.
    expect(windowOf(el)).to.equal(oldWin);
    const seen: string[] = [];
    el.addEventListener('svc-ready', () => seen.push('svc-ready'));
    await peerReady(oldWin);
    expect(seen).to.deep.equal([]);
    expect(await peerReport(oldWin)).to.deep.equal([]);
    give('renewed-3');
    await renewal;
    expect((await peerReport(windowOf(el))).map((r) => r.data.type)).to.deep.equal([
      'svc:action:set-color-scheme',
      'svc:action:navigate',
    ]);
  });

  it('a host-made src change during the renewal wins, and drops the held commands', async () => {
    let give!: (s: string) => void;
    const { el, ready } = embed({ src: hosted });
    el.sessionProvider = () => new Promise((resolve) => (give = resolve));
    await ready;
    el.navigate('/dropped');
    const renewal = el.renewSession();
    el.src = peerUrl(tenant, 'dashboard', '&session=host');
    give('renewed-4');
    await renewal;
    expect(sessionOf(el)).to.equal('host');
    expect(await peerReport(windowOf(el))).to.deep.equal([]);
  });

  it('never shows the session in a status, message or log line', async () => {
    const debug = sinon.stub(console, 'debug');
    const { el, ready } = embed({ debug: '', src: peerUrl(tenant, 'dashboard', '&session=first-SECRET-1') });
    el.sessionProvider = () => Promise.resolve('second-SECRET-2');
    await ready;
    const details: unknown[] = [];
    for (const name of ['svc-status', 'svc-action', 'svc-ready', 'svc-error'])
      el.addEventListener(name, (e) => details.push((e as CustomEvent).detail));
    const readyAgain = oneEvent(el, 'svc-ready');
    await expire(el);
    await readyAgain;
    const text = JSON.stringify([details, debug.args]);
    expect(text).to.not.match(/SECRET/);
  });

  it('throws a TypeError for an invalid session, when there is neither a session nor a provider, or nothing to renew', () => {
    const el = document.createElement('svc-embed');
    expect(() => el.renewSession('fine')).to.throw(TypeError, /needs src/);
    el.src = peerUrl();
    for (const bad of [42, '', 'a\u0000b', 'x\u0085'])
      expect(() => el.renewSession(bad as string)).to.throw(TypeError, /renewSession/);
    expect(() => el.renewSession()).to.throw(TypeError, /sessionProvider/);
  });
});
