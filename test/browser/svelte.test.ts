// Svelte 5 renders <svc-embed>: objects as properties, onsvc-* listeners; and hydrates what its server rendered.
// The component is fixtures/Embed.svelte, compiled and bundled by test/support/frameworks-plugin.mjs.
import { expect } from '@open-wc/testing';
import { cleanup, frameOf, peerUrl } from './helpers.js';
import { container, expectDelivered, readyHandler, theme } from './framework-checks.js';
import { mountSvelte, type EmbedProps } from './fixtures/svelte-app.js';

let unmount: (() => void) | undefined;
let src: string;

/** Renders Embed.svelte (or hydrates `serverHtml`) and resolves at its first svc-ready. */
async function mount(props: Omit<EmbedProps, 'src' | 'theme' | 'onready'>, serverHtml?: string) {
  const root = container();
  const { onReady, event } = readyHandler();
  if (serverHtml !== undefined) {
    root.innerHTML = serverHtml;
    // The element is defined before the app hydrates, and renders what the server wrote in between.
    await root.querySelector('svc-embed')!.updateComplete;
  }
  const before = root.querySelector('svc-embed');
  unmount = mountSvelte(
    root,
    { src, theme, onready: onReady, ...props },
    serverHtml === undefined ? 'mount' : 'hydrate',
  );
  const el = root.querySelector('svc-embed')!;
  if (before) expect(el).to.equal(before, 'hydrated in place, not replaced');
  return { el, event: await event };
}

describe('Svelte', () => {
  beforeEach(() => (src = peerUrl()));
  afterEach(() => {
    unmount?.();
    unmount = undefined;
    cleanup();
  });

  for (const allowExport of [true, false]) {
    it(`sets the theme as a property, listens with onsvc-ready, binds {allowExport} = ${allowExport}`, async () => {
      const { el, event } = await mount({ allowExport });
      expect(event.detail.payload.mode).to.equal('signed');
      await expectDelivered(el, allowExport);
    });
  }

  it('rendered on the server, then hydrated: theme="[object Object]" is ignored silently, the property wins', async () => {
    const res = await fetch(
      `/__frameworks/ssr/svelte?props=${encodeURIComponent(JSON.stringify({ src, theme, allowExport: false }))}`,
    );
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
      await expectDelivered(el, false, '[object Object]');
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
