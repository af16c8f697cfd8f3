// React: svc-embed/react after a server render in Node and hydration, on the client alone, and the bare tag in React 19.
// The pages are in fixtures/react-app.tsx; test/support/frameworks-plugin.mjs bundles them and renders on the server.
import { expect } from '@open-wc/testing';
import type { Root } from 'react-dom/client';
import { cleanup, peerPost, peerReport, envelope, frameOf, peerUrl, windowOf } from './helpers.js';
import { hydrateWrapper, render, type PageProps } from './fixtures/react-app.js';
import type { SvcEmbedElement, SvcEmbedEventMap } from '../../src/index.js';

const theme = { primaryColor: '#0f766e', borderRadius: 8 };

/** The page's props, with handlers that record what they receive. */
function page(extra: Partial<PageProps> = {}) {
  const seen: { ready: Array<SvcEmbedEventMap['svc-ready']>; view: Array<SvcEmbedEventMap['svc-view']> } = { ready: [], view: [] };
  let readyNow: () => void;
  const ready = new Promise<void>((resolve) => (readyNow = resolve));
  const props: PageProps = {
    src: peerUrl(),
    theme,
    onReady: (e) => {
      seen.ready.push(e);
      readyNow();
    },
    onView: (e) => seen.view.push(e),
    ...extra,
  };
  return { props, seen, ready };
}

/** The peer received the theme as an object, once, as svc:action:set-theme. */
async function expectThemeDelivered(el: SvcEmbedElement) {
  expect(el.theme).to.deep.equal(theme);
  expect(el.hasAttribute('theme')).to.equal(false);
  const themes = (await peerReport(windowOf(el))).filter((r) => r.data.type === 'svc:action:set-theme');
  expect(themes.map((r) => r.data.payload)).to.deep.equal([theme]);
}

/** A later event reaches its handler too. */
async function expectViewHandled(el: SvcEmbedElement, seen: { view: unknown[] }) {
  await peerPost(windowOf(el), [envelope('svc:event:view', { surface: 'dashboard', path: '/dashboards/sales' })]);
  expect(seen.view.map((e) => (e as SvcEmbedEventMap['svc-view']).detail.payload.path)).to.deep.equal(['/dashboards/sales']);
}

describe('React', () => {
  let container: HTMLElement;
  let root: Root | undefined;
  const errors: unknown[] = [];
  const consoleError = console.error;

  beforeEach(() => {
    container = document.createElement('div');
    document.body.append(container);
    errors.length = 0;
    // React reports hydration mismatches and warnings with console.error.
    console.error = (...args: unknown[]) => errors.push(args);
  });
  afterEach(() => {
    console.error = consoleError;
    root?.unmount();
    root = undefined;
    container.remove();
    cleanup();
  });

  it('svc-embed/react: rendered on the server, then hydrated: the handlers fire and the theme is an object', async () => {
    const { props, seen, ready } = page();
    const res = await fetch(`/__frameworks/ssr/react?props=${encodeURIComponent(JSON.stringify({ src: props.src, theme }))}`);
    const html = await res.text();
    expect(res.status, html).to.equal(200);
    expect(html).to.match(/^<main><h1>Sales<\/h1><svc-embed [^>]*><\/svc-embed><\/main>$/);
    expect(html).not.to.contain('[object Object]');

    container.innerHTML = html;
    const el = container.querySelector('svc-embed')!;
    // The element is defined before the app hydrates, and renders what the server wrote in between.
    await el.updateComplete;
    root = hydrateWrapper(container, props, errors);
    await ready;

    expect(container.querySelector('svc-embed')).to.equal(el, 'hydrated in place, not replaced');
    expect(seen.ready.map((e) => e.detail.payload.mode)).to.deep.equal(['signed']);
    expect(el.colorScheme).to.equal('dark');
    await expectThemeDelivered(el);
    await expectViewHandled(el, seen);
    expect(errors).to.deep.equal([]);
  });

  it('svc-embed/react, rendered on the client: properties and handlers, allowExport as a boolean', async () => {
    const { props, seen, ready } = page({ allowExport: true });
    root = render(container, 'wrapper', props);
    await ready;
    const el = container.querySelector('svc-embed')!;
    expect(seen.ready).to.have.length(1);
    expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal('true');
    await expectThemeDelivered(el);
    await expectViewHandled(el, seen);
    expect(errors).to.deep.equal([]);
  });

  for (const allowExport of [true, false]) {
    it(`the bare tag in React 19 (svc-embed/jsx): properties, onsvc-* listeners, allow-export={${allowExport}}`, async () => {
      const { props, seen, ready } = page({ allowExport });
      root = render(container, 'bare', props);
      await ready;
      const el = container.querySelector('svc-embed')!;
      expect(seen.ready).to.have.length(1);
      expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal(allowExport ? 'true' : null);
      await expectThemeDelivered(el);
      await expectViewHandled(el, seen);
      expect(errors).to.deep.equal([]);
    });
  }
});
