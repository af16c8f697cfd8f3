// React: svc-embed/react after a server render in Node and hydration, on the client alone, and the bare tag in React 19.
// The pages are in fixtures/react-app.tsx; test/support/frameworks-plugin.mjs bundles them and renders on the server.
import { expect } from '@open-wc/testing';
import type { Root } from 'react-dom/client';
import { cleanup, envelope, frameOf, peerPost, peerUrl, tenant, windowOf } from './helpers.js';
import { container, expectDelivered, readyHandler, theme } from './framework-checks.js';
import { createRoot, hydrateWrapper, render, renderRenewal, type PageProps } from './fixtures/react-app.js';
import type { SvcEmbedElement, SvcEmbedEventMap } from '../../src/index.js';

/** The page's props, with a ready handler and a view handler that records what it receives. */
function page(allowExport = false) {
  const { onReady, event } = readyHandler();
  const views: Array<SvcEmbedEventMap['svc-view']> = [];
  const props: PageProps = { src: peerUrl(), theme, allowExport, onReady, onView: (e) => views.push(e) };
  return { props, views, ready: event };
}

/** A later event reaches its handler too. */
async function expectViewHandled(el: SvcEmbedElement, views: Array<SvcEmbedEventMap['svc-view']>) {
  await peerPost(windowOf(el), [envelope('svc:event:view', { surface: 'dashboard', path: '/dashboards/sales' })]);
  expect(views.map((e) => e.detail.payload.path)).to.deep.equal(['/dashboards/sales']);
}

describe('React', () => {
  let root: Root | undefined;
  const errors: unknown[] = [];
  const consoleError = console.error;

  beforeEach(() => {
    errors.length = 0;
    // React reports hydration mismatches and other mistakes with console.error.
    console.error = (...args: unknown[]) => errors.push(args);
  });
  afterEach(() => {
    console.error = consoleError;
    root?.unmount();
    root = undefined;
    cleanup();
  });

  it('svc-embed/react: rendered on the server, then hydrated: the handlers fire and the theme is an object', async () => {
    const { props, views, ready } = page();
    const res = await fetch(
      `/__frameworks/ssr/react?props=${encodeURIComponent(JSON.stringify({ src: props.src, theme }))}`,
    );
    const html = await res.text();
    expect(res.status, html).to.equal(200);
    expect(html).to.match(/^<main><h1>Sales<\/h1><svc-embed [^>]*><\/svc-embed><\/main>$/);
    expect(html).not.to.contain('[object Object]');

    const host = container();
    host.innerHTML = html;
    const el = host.querySelector('svc-embed')!;
    // The element is defined before the app hydrates, and renders what the server wrote in between.
    await el.updateComplete;
    root = hydrateWrapper(host, props, errors);
    expect((await ready).detail.payload.mode).to.equal('signed');

    expect(host.querySelector('svc-embed')).to.equal(el, 'hydrated in place, not replaced');
    expect(el.colorScheme).to.equal('dark');
    await expectDelivered(el, false);
    await expectViewHandled(el, views);
    expect(errors).to.deep.equal([]);
  });

  for (const [name, allowExport] of [
    ['wrapper', true],
    ['bare', true],
    ['bare', false],
  ] as const) {
    const what =
      name === 'wrapper' ? 'svc-embed/react, rendered on the client' : 'the bare tag in React 19 (svc-embed/jsx)';
    it(`${what}: properties, handlers, allowExport ${allowExport}`, async () => {
      const { props, views, ready } = page(allowExport);
      const host = container();
      root = render(host, name, props);
      expect((await ready).detail.payload.mode).to.equal('signed');
      const el = host.querySelector('svc-embed')!;
      await expectDelivered(el, allowExport);
      await expectViewHandled(el, views);
      expect(errors).to.deep.equal([]);
    });
  }

  it('svc-embed/react with a status mirror and a session provider: a fatal session error renews to ready, and later renders keep it', async () => {
    const host = container();
    root = createRoot(host);
    const src = peerUrl(tenant, 'dashboard', '&session=react-expiring');
    const asked: string[] = [];
    const sessionProvider = () => {
      asked.push('asked');
      return Promise.resolve('react-renewed');
    };
    renderRenewal(root, { src, sessionProvider });
    const shown = () => host.querySelector('.status')?.textContent;
    while (shown() !== 'ready') await new Promise((r) => setTimeout(r, 10));
    const el = host.querySelector('svc-embed')!;
    const statuses: string[] = [];
    el.addEventListener('svc-status', (e) => statuses.push(e.detail.status));
    void peerPost(windowOf(el), [
      envelope('svc:event:error', {
        message: 'Session expired',
        name: 'SessionExpiredError',
        context: 'auth',
        fatal: true,
      }),
    ]);
    // Each status change renders the page again, and @lit/react assigns src (the same string) on every render.
    while (statuses.length < 2) await new Promise((r) => setTimeout(r, 10));
    expect(statuses).to.deep.equal(['loading', 'ready']);
    expect(new URL(frameOf(el)!.src).searchParams.get('session')).to.equal('react-renewed');
    for (const note of ['a', 'b', 'c']) {
      renderRenewal(root, { src, sessionProvider, note });
      while (host.querySelector('.note')?.textContent !== note) await new Promise((r) => setTimeout(r, 10));
    }
    await el.updateComplete;
    expect([
      shown(),
      el.status,
      new URL(frameOf(el)!.src).searchParams.get('session'),
      el.src,
      asked.length,
    ]).to.deep.equal(['ready', 'ready', 'react-renewed', src, 1]);
    expect(statuses).to.deep.equal(['loading', 'ready']);
    expect(errors).to.deep.equal([]);
  });
});
