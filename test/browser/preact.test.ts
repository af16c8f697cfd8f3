// Preact renders <svc-embed> (typed by svc-embed/jsx): objects as properties, onsvc-* listeners.
import { expect } from '@open-wc/testing';
import { cleanup, frameOf, peerReport, peerUrl, windowOf } from './helpers.js';
import { renderPreact } from './fixtures/preact-app.js';
import type { SvcEmbedEventMap } from '../../src/index.js';

const theme = { primaryColor: '#0f766e', borderRadius: 8 };

describe('Preact', () => {
  let unmount: (() => void) | undefined;
  afterEach(() => {
    unmount?.();
    cleanup();
  });

  for (const allowExport of [true, false]) {
    it(`sets the theme as a property, listens with onsvc-ready, binds allowExport={${allowExport}}`, async () => {
      const container = document.createElement('div');
      document.body.append(container);
      let ready!: (e: SvcEmbedEventMap['svc-ready']) => void;
      const event = new Promise<SvcEmbedEventMap['svc-ready']>((resolve) => (ready = resolve));
      unmount = renderPreact(container, { src: peerUrl(), theme, allowExport, onReady: (e) => ready(e) });
      expect((await event).detail.payload.mode).to.equal('signed');
      const el = container.querySelector('svc-embed')!;
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
});
