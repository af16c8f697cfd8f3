// Vue 3 renders <svc-embed> (as a custom element, by isCustomElement): objects as properties, @svc-* listeners.
// The app is fixtures/vue-app.ts, bundled with Vue's template compiler by test/support/frameworks-plugin.mjs.
import { expect } from '@open-wc/testing';
import type { App } from 'vue';
import { cleanup, frameOf, peerReport, peerUrl, windowOf } from './helpers.js';
import { mountVue, type VueProps } from './fixtures/vue-app.js';
import type { SvcEmbedEventMap } from '../../src/index.js';

const theme = { primaryColor: '#0f766e', borderRadius: 8 };

async function mount(template: string, allowExport: boolean) {
  const container = document.createElement('div');
  document.body.append(container);
  let ready!: (e: SvcEmbedEventMap['svc-ready']) => void;
  const readyEvent = new Promise<SvcEmbedEventMap['svc-ready']>((resolve) => (ready = resolve));
  const props: VueProps = { src: peerUrl(), theme, allowExport, onReady: (e) => ready(e) };
  app = mountVue(container, props, template);
  const event = await readyEvent;
  return { el: container.querySelector('svc-embed')!, event };
}

let app: App | undefined;

describe('Vue', () => {
  afterEach(() => {
    app?.unmount();
    app = undefined;
    cleanup();
  });

  for (const allowExport of [true, false]) {
    it(`sets the theme as a property, listens with @svc-ready, binds :allowExport="${allowExport}"`, async () => {
      const { el, event } = await mount(
        '<svc-embed :src="src" :theme="theme" color-scheme="dark" :allowExport="allowExport" @svc-ready="onReady"></svc-embed>',
        allowExport,
      );
      expect(event.detail.payload.mode).to.equal('signed');
      expect(el.theme).to.deep.equal(theme);
      expect(el.hasAttribute('theme')).to.equal(false);
      expect(el.colorScheme).to.equal('dark');
      expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal(allowExport ? 'true' : null);
      const sent = (await peerReport(windowOf(el))).map((r) => [r.data.type, r.data.payload]);
      expect(sent).to.deep.equal([
        ['svc:action:set-theme', theme],
        ['svc:action:set-color-scheme', { scheme: 'dark' }],
      ]);
    });
  }

  it('allow-export, the attribute name, as presence', async () => {
    const { el } = await mount('<svc-embed :src="src" allow-export @svc-ready="onReady"></svc-embed>', true);
    expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal('true');
  });
});
