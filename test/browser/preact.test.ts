// Preact renders <svc-embed> (typed by svc-embed/jsx): objects as properties, onsvc-* listeners.
import { expect } from '@open-wc/testing';
import { cleanup, peerUrl } from './helpers.js';
import { container, expectDelivered, readyHandler, theme } from './framework-checks.js';
import { renderPreact } from './fixtures/preact-app.js';

describe('Preact', () => {
  let unmount: (() => void) | undefined;
  afterEach(() => {
    unmount?.();
    cleanup();
  });

  for (const allowExport of [true, false]) {
    it(`sets the theme as a property, listens with onsvc-ready, binds allowExport={${allowExport}}`, async () => {
      const root = container();
      const { onReady, event } = readyHandler();
      unmount = renderPreact(root, { src: peerUrl(), theme, allowExport, onReady });
      expect((await event).detail.payload.mode).to.equal('signed');
      await expectDelivered(root.querySelector('svc-embed')!, allowExport);
    });
  }
});
