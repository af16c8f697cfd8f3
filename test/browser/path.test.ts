// `path` and the held loading state (issue 43): a load that must show a path other than the one the embed opens at
// stays `loading`, under an opaque cover, until the embed has viewed that path and drawn it (its dashboard-loaded or
// error after the view, else 1 s), and the host has painted twice. The
// peer views each path it is sent to, as a real embed does (`noview=1` turns that off).
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import {
  cleanup,
  embed,
  envelope,
  frameOf,
  newFrame,
  oneSvcEvent,
  peerLoaded,
  peerPost,
  peerReady,
  peerReport,
  peerUrl,
  record,
  statuses,
  tenant,
  windowOf,
} from './helpers.js';
import type { SvcEmbedElement } from '../../src/index.js';

/** The paths the peer in `el`'s frame was sent to. */
const sent = async (el: SvcEmbedElement) =>
  (await peerReport(windowOf(el)))
    .filter((r) => r.data.type === 'svc:action:navigate')
    .map((r) => (r.data.payload as { path: string }).path);

/** Whether the loading box covers the frame: shown, with an opaque background. */
function covered(el: SvcEmbedElement) {
  const box = el.shadowRoot!.querySelector<HTMLElement>('[part=loading]')!;
  const style = getComputedStyle(box);
  const alpha = /rgba\(.*,\s*([\d.]+)\)$/.exec(style.backgroundColor)?.[1];
  return !box.hidden && style.display !== 'none' && style.backgroundColor !== 'transparent' && alpha !== '0';
}

const view = (path: string) => envelope('svc:event:view', { surface: 'dashboard', path });

describe('path: the in-embed path a load must show first', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  it('opens at `path`: loading and covered until the embed viewed it, then ready; svc-ready after its view', async () => {
    const { el } = embed({ src: peerUrl(tenant, null), path: '/details/7' });
    const events = record(el);
    await el.updateComplete;
    expect([el.status, covered(el)]).to.deep.equal(['loading', true]);
    await peerLoaded(windowOf(el));
    // The embed shows its default view first: no one sees it.
    await peerPost(windowOf(el), [view('/')]);
    const ready = oneSvcEvent(el, 'svc-ready');
    await peerReady(windowOf(el));
    await ready;
    expect([el.status, covered(el)]).to.deep.equal(['ready', false]);
    expect(await sent(el)).to.deep.equal(['/details/7']);
    const names = events.map((e) => e.type + ((e.detail.payload?.path as string | undefined) ?? ''));
    // The events are dispatched as they come; svc-ready waits for the view of the path.
    expect(names.filter((n) => n !== 'svc-status' && n !== 'svc-action')).to.deep.equal([
      'svc-view/',
      'svc-view/details/7',
      'svc-ready',
    ]);
    expect(el.path).to.equal('/details/7');
  });

  it('stays loading at the view itself, and is ready only after two animation frames', async () => {
    const { el } = embed({ src: peerUrl(tenant, null, '&noview=1'), path: '/x' });
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    expect([el.status, covered(el)]).to.deep.equal(['loading', true]);
    const ready = oneSvcEvent(el, 'svc-ready');
    // peerPost resolves once the host has handled the view: still covered then.
    await peerPost(windowOf(el), [view('/x')]);
    expect([el.status, covered(el)]).to.deep.equal(['loading', true]);
    await ready;
    expect(el.status).to.equal('ready');
  });

  it('without `path` (or a path to restore), the ready is at once, with nothing covered', async () => {
    const { el } = embed({ src: peerUrl(tenant, null) });
    await el.updateComplete;
    expect(covered(el)).to.equal(false);
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    expect(el.status).to.equal('ready');
    expect(await sent(el)).to.deep.equal([]);
  });

  it('a navigate() held before ready holds the load as `path` does', async () => {
    const { el } = embed({ src: peerUrl(tenant, null, '&noview=1') });
    await el.updateComplete;
    el.navigate('/held');
    expect(covered(el)).to.equal(true);
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    expect(el.status).to.equal('loading');
    const ready = oneSvcEvent(el, 'svc-ready');
    await peerPost(windowOf(el), [view('/held')]);
    await ready;
    expect(await sent(el)).to.deep.equal(['/held']);
  });

  it('a navigation while holding moves the goal: the view of the old path no longer counts', async () => {
    const { el } = embed({ src: peerUrl(tenant, null, '&noview=1'), path: '/a' });
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    el.navigate('/b');
    await peerPost(windowOf(el), [view('/a')]);
    for (let i = 0; i < 4; i++) await new Promise((r) => requestAnimationFrame(r));
    expect(el.status).to.equal('loading');
    const ready = oneSvcEvent(el, 'svc-ready');
    await peerPost(windowOf(el), [view('/b')]);
    await ready;
    expect(await sent(el)).to.deep.equal(['/a', '/b']);
  });

  // The frame paints in a process of its own, after its view message: a loaded machine showed its old view after
  // the view and four of the host's paints. So the load waits for the embed to have drawn the path.
  for (const [said, payload] of [
    ['dashboard-loaded', {}],
    ['error', { message: 'A widget failed', name: 'QueryError', context: 'widget', fatal: false }],
  ] as const) {
    it(`the view of the path is not enough: covered until the embed drew it (its ${said} after the view)`, async () => {
      const { el } = embed({ src: peerUrl(tenant, null, '&noview=1'), path: '/held' });
      await el.updateComplete;
      await peerLoaded(windowOf(el));
      await peerReady(windowOf(el));
      // The 1 s bound stands still: only what the embed says moves the load on.
      const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldClearNativeTimers: true });
      // Drawn before the view of the path counts for nothing.
      await peerPost(windowOf(el), [envelope(`svc:event:${said}`, payload), view('/held')]);
      for (let i = 0; i < 6; i++) await new Promise((r) => requestAnimationFrame(r));
      expect([el.status, covered(el)]).to.deep.equal(['loading', true]);
      const ready = oneSvcEvent(el, 'svc-ready');
      await peerPost(windowOf(el), [envelope(`svc:event:${said}`, payload)]);
      await ready;
      expect([el.status, covered(el)]).to.deep.equal(['ready', false]);
      clock.restore();
    });
  }

  it('an embed that says neither (app, chat) is drawn 1 s after the view of the path', async () => {
    const { el } = embed({ src: peerUrl(tenant, null, '&noview=1'), path: '/held' });
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'], shouldClearNativeTimers: true });
    await peerPost(windowOf(el), [view('/held')]);
    clock.tick(999);
    for (let i = 0; i < 6; i++) await new Promise((r) => requestAnimationFrame(r));
    expect([el.status, covered(el)]).to.deep.equal(['loading', true]);
    const ready = oneSvcEvent(el, 'svc-ready');
    clock.tick(1);
    await ready;
    expect([el.status, covered(el)]).to.deep.equal(['ready', false]);
    clock.restore();
  });

  it('the ready timeout names the path the embed never viewed', async () => {
    const error = sinon.stub(console, 'error');
    const { el } = embed({ src: peerUrl(tenant, null, '&noview=1'), path: '/missing', 'ready-timeout': '1500' });
    const seen = statuses(el);
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    await new Promise((resolve) => el.addEventListener('svc-status', () => el.status === 'error' && resolve(0)));
    const failed = seen.at(-1)!;
    expect([failed.status, failed.reason]).to.deep.equal(['error', 'ready-timeout']);
    expect(failed.message).to.contain('/missing');
    expect(String(error.lastCall.args[0])).to.contain('/missing');
    expect(covered(el)).to.equal(false);
  });

  it('is host-owned: the viewer navigating never writes it; an unchanged write posts nothing; a change after ready navigates', async () => {
    const { el, ready } = embed({ src: peerUrl(tenant), path: '/a' });
    await ready;
    await peerPost(windowOf(el), [
      envelope('svc:event:navigate', { path: '/viewer', previousPath: '/a' }),
      view('/viewer'),
    ]);
    expect(el.path).to.equal('/a');
    const actions: unknown[] = [];
    el.addEventListener('svc-action', (e) => actions.push([e.detail.type, e.detail.payload]));
    el.path = '/a';
    await el.updateComplete;
    expect(actions.length).to.equal(0);
    el.path = '/b';
    await el.updateComplete;
    expect(actions).to.deep.equal([['svc:action:navigate', { path: '/b' }]]);
    // After ready, a navigation is the viewer's to see: no loading state.
    expect(el.status).to.equal('ready');
  });

  it('an invalid path warns and is ignored: no navigation, no hold', async () => {
    const warn = sinon.stub(console, 'warn');
    const { el } = embed({ src: peerUrl(tenant, null), path: 'https://evil.example/x' });
    await el.updateComplete;
    expect(String(warn.firstCall?.args[0])).to.match(/ignoring path/);
    expect(covered(el)).to.equal(false);
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    expect(el.status).to.equal('ready');
    expect(await sent(el)).to.deep.equal([]);
  });

  it("re-insertion restores the viewer's path under the held loading state, not `path`", async () => {
    const { el, ready } = embed({ src: peerUrl(tenant, null), path: '/a' });
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    await peerReady(windowOf(el));
    await ready;
    await peerPost(windowOf(el), [
      envelope('svc:event:navigate', { path: '/viewer', previousPath: '/a' }),
      view('/viewer'),
    ]);
    const parent = el.parentNode!;
    el.remove();
    parent.appendChild(el);
    expect([el.status, covered(el)]).to.deep.equal(['loading', true]);
    // The frame reloads in a new window (the peer's auto-ready is off): a new document at its default view.
    await peerLoaded(windowOf(el));
    await peerPost(windowOf(el), [view('/')]);
    const again = oneSvcEvent(el, 'svc-ready');
    await peerReady(windowOf(el));
    expect(el.status).to.equal('loading');
    await again;
    expect(await sent(el)).to.deep.equal(['/viewer']);
  });

  it("a refused session's new frame restores the viewer's path, held", async () => {
    let n = 0;
    const { el } = embed({ src: peerUrl(tenant, 'dashboard', '&session=first') });
    el.sessionProvider = () => Promise.resolve(`renewed-${++n}`);
    await oneSvcEvent(el, 'svc-ready');
    const first = windowOf(el);
    await peerPost(first, [envelope('svc:event:navigate', { path: '/deep', previousPath: '/' }), view('/deep')]);
    const seen = statuses(el);
    void peerPost(first, [
      envelope('svc:event:error', { message: 'expired', name: 'SessionExpiredError', context: 'auth', fatal: true }),
    ]);
    await newFrame(el, first);
    await oneSvcEvent(el, 'svc-ready');
    expect(seen.map((s) => s.status)).to.deep.equal(['loading', 'ready']);
    expect(await sent(el)).to.deep.equal(['/deep']);
    expect(frameOf(el)!.hasAttribute('held')).to.equal(false);
  });
});
