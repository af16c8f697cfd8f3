// The leak check of issue 11, kept by CI: 1,000 mount/unmount cycles of <svc-embed> (the built CDN
// bundle, each with its frame loading from a real second origin) in headless Chromium leave no window
// `message` listener, no frame, no document and no element behind. The bench's own page and CDP
// readings (bench/lib/leaks.mjs); counts only, never timings, so a loaded machine cannot fail it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chromiumProbe, launch, openHost } from '../../bench/lib/browsers.mjs';
import { leakCheck } from '../../bench/lib/leaks.mjs';
import { startPages } from '../../bench/lib/pages-server.mjs';

const CYCLES = 1000;

test(
  `${CYCLES} mount/unmount cycles leave no message listener, frame, document or element`,
  { timeout: 600_000 },
  async () => {
    assert.ok(
      existsSync(new URL('../../cdn/svc-embed.min.js', import.meta.url)),
      'cdn/svc-embed.min.js is built (npm run build)',
    );
    const pages = await startPages();
    let browser;
    try {
      browser = await launch('chromium');
      const page = await openHost(browser, pages);
      const { cdp } = await chromiumProbe(page);
      const { before, after, delta } = await leakCheck(page, cdp, CYCLES);
      const seen = JSON.stringify({ before, after });
      assert.equal(after.messageListeners, 0, `window message listeners remain: ${seen}`);
      assert.equal(after.embeds, 0, `<svc-embed> elements survive a full GC: ${seen}`);
      assert.equal(delta.frames, 0, `frames remain: ${seen}`);
      assert.equal(delta.documents, 0, `documents remain: ${seen}`);
      assert.equal(delta.iframes, 0, `iframe elements survive a full GC: ${seen}`);
      // The cycles did happen: the element ran in this page.
      assert.equal(await page.evaluate(() => customElements.get('svc-embed') !== undefined), true);
    } finally {
      await browser?.close();
      await pages.close();
    }
  },
);
