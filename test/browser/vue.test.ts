// Vue 3 renders <svc-embed> (as a custom element, by isCustomElement): objects as properties, @svc-* listeners.
// The app is fixtures/vue-app.ts, bundled with Vue's template compiler by test/support/frameworks-plugin.mjs.
import { expect } from '@open-wc/testing';
import type { App } from 'vue';
import { cleanup, frameOf, peerUrl } from './helpers.js';
import { container, expectDelivered, readyHandler, theme } from './framework-checks.js';
import { mountVue } from './fixtures/vue-app.js';

let app: App | undefined;

/** Mounts a Vue app with this template and resolves at its first svc-ready. */
async function mount(template: string, allowExport: boolean) {
  const root = container();
  const { onReady, event } = readyHandler();
  app = mountVue(root, { src: peerUrl(), theme, allowExport, onReady }, template);
  return { el: root.querySelector('svc-embed')!, event: await event };
}

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
      expect(el.colorScheme).to.equal('dark');
      await expectDelivered(el, allowExport);
    });
  }

  it('allow-export, the attribute name, as presence', async () => {
    const { el } = await mount('<svc-embed :src="src" allow-export @svc-ready="onReady"></svc-embed>', true);
    expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal('true');
  });
});
