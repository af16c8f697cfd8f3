// Svelte 5 renders <svc-embed>: objects as properties, onsvc-* listeners. The component is fixtures/Embed.svelte,
// compiled and bundled by test/support/frameworks-plugin.mjs.
import { expect } from '@open-wc/testing';
import { cleanup, frameOf, peerReport, peerUrl, windowOf } from './helpers.js';
import { mountSvelte, type EmbedProps } from './fixtures/svelte-app.js';
import type { SvcEmbedEventMap } from '../../src/index.js';

const theme = { primaryColor: '#0f766e', borderRadius: 8 };

let unmount: (() => void) | undefined;

/** Renders Embed.svelte (or hydrates `serverHtml`) and resolves at its first svc-ready. */
async function mount(props: Omit<EmbedProps, 'src' | 'theme' | 'onready'>, serverHtml?: string) {
  const container = document.createElement('div');
  document.body.append(container);
  let ready!: (e: SvcEmbedEventMap['svc-ready']) => void;
  const readyEvent = new Promise<SvcEmbedEventMap['svc-ready']>((resolve) => (ready = resolve));
  if (serverHtml !== undefined) container.innerHTML = serverHtml;
  const el = container.querySelector('svc-embed');
  // The element is defined before the app hydrates, and renders what the server wrote in between.
  await el?.updateComplete;
  unmount = mountSvelte(container, { src, theme, onready: (e) => ready(e), ...props }, serverHtml === undefined ? 'mount' : 'hydrate');
  const event = await readyEvent;
  expect(el ?? container.querySelector('svc-embed')).to.equal(container.querySelector('svc-embed'));
  return { el: container.querySelector('svc-embed')!, event };
}

let src: string;
beforeEach(() => (src = peerUrl()));

describe('Svelte', () => {
  afterEach(() => {
    unmount?.();
    unmount = undefined;
    cleanup();
  });

  for (const allowExport of [true, false]) {
    it(`sets the theme as a property, listens with onsvc-ready, binds {allowExport} = ${allowExport}`, async () => {
      const { el, event } = await mount({ allowExport });
      expect(event.detail.payload.mode).to.equal('signed');
      expect(el.theme).to.deep.equal(theme);
      expect(el.hasAttribute('theme')).to.equal(false);
      expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal(allowExport ? 'true' : null);
      const sent = (await peerReport(windowOf(el))).map((r) => [r.data.type, r.data.payload]);
      expect(sent).to.deep.equal([
        ['svc:action:set-theme', theme],
        ['svc:action:set-color-scheme', { scheme: 'dark' }],
      ]);
    });
  }

  it('rendered on the server, then hydrated: theme="[object Object]" is ignored silently, the property wins', async () => {
    const res = await fetch(`/__frameworks/ssr/svelte?props=${encodeURIComponent(JSON.stringify({ src, theme, allowExport: false }))}`);
    const html = await res.text();
    expect(res.status, html).to.equal(200);
    // What SvelteKit writes for an object: the text of the object.
    expect(html).to.match(/<svc-embed [^>]*theme="\[object Object\]"/);
    const warnings: unknown[][] = [];
    const warn = console.warn;
    console.warn = (...args: unknown[]) => warnings.push(args);
    try {
      const { el, event } = await mount({ allowExport: false }, html);
      expect(event.detail.payload.mode).to.equal('signed');
      expect(el.theme).to.deep.equal(theme);
      const sent = (await peerReport(windowOf(el))).map((r) => [r.data.type, r.data.payload]);
      expect(sent.filter(([type]) => type === 'svc:action:set-theme')).to.deep.equal([['svc:action:set-theme', theme]]);
    } finally {
      console.warn = warn;
    }
    expect(warnings).to.deep.equal([]);
  });

  it('allow-export, the attribute name, as presence', async () => {
    const { el } = await mount({ exportAttribute: true });
    expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal('true');
  });
});
