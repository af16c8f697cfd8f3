// The renewal ahead of expiry, in pixels: an <svc-embed> (the built CDN bundle) on the simulated tenant, dark,
// filtered and on `/details`, filmed through two swaps in headless Chromium and Firefox ESR
// (test/support/renewal-scene.mjs). Every screenshot of its box, from before the renewal starts until after the new
// frame shows the dashboard, must show the settled dashboard: a blank frame, a half-themed page or loading
// placeholders differ in far more than 2 % of the pixels. `status` stays `ready` through all of them either way,
// so this is what tells a swap the viewer sees from one they do not.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTenant } from '@svc-embed/tenant';
import { enginesFrom, launch, unavailable } from '../support/browsers.mjs';
import { THRESHOLD, TOLERANCE } from '../support/pixels.mjs';
import { startRenewalHost, watchRenewals } from '../support/renewal-scene.mjs';

const bundle = new URL('../../cdn/svc-embed.min.js', import.meta.url);
const SWAPS = 2;
const pct = (share) => `${(share * 100).toFixed(1)} %`;

let tenant;
let host;

before(async () => {
  assert.ok(existsSync(bundle), 'cdn/svc-embed.min.js is missing: run npm run build first');
  tenant = await startTenant({ port: 0 });
  host = await startRenewalHost(tenant.origin);
});

after(async () => {
  await host?.close();
  await tenant?.close();
});

for (const engine of enginesFrom('E2E_BROWSERS')) {
  describe(`renewal ahead of expiry, in pixels, in ${engine}`, { skip: unavailable(engine) }, () => {
    let browser;
    before(async () => {
      browser = await launch(engine);
    });
    after(async () => {
      await browser?.close();
    });

    test(`${SWAPS} swaps: every screenshot of the element's box shows the settled dashboard (at most ${pct(THRESHOLD)} of pixels off by over ${TOLERANCE}/255)`, async (t) => {
      // A first session of 15 s (10 s to set up and settle before its renewal), then sessions of 12 s: the element
      // renews 5 s before each ends.
      const { reference, still, swaps, trace } = await watchRenewals(browser, host, {
        mode: 'ahead',
        firstTtl: 15,
        ttl: 12,
        swaps: SWAPS,
      });
      assert.deepEqual(reference, [960, 600], 'the reference is the element box, 960 × 600');
      assert.equal(swaps.length, SWAPS);
      // Every swap's numbers first, then the verdicts: a failure still shows what each swap looked like.
      for (const [i, s] of swaps.entries()) {
        t.diagnostic(
          `swap ${i + 1}: ${s.shots} screenshots (${s.before} before the swap, ${s.after} after; ${s.missed} refused), ` +
            `one every ${s.intervalMs?.toFixed(0)} ms; worst ${pct(s.worst)}; longest stretch over ${pct(THRESHOLD)}: ` +
            `${s.longestMs.toFixed(0)} ms`,
        );
      }
      // The screenshots that differ, beside the reference, where a failure can be looked at.
      if (swaps.some((s) => s.offending.length)) {
        const dir = mkdtempSync(join(tmpdir(), `svc-embed-renewal-${engine}-`));
        writeFileSync(join(dir, 'reference.png'), still);
        for (const [i, s] of swaps.entries())
          for (const o of s.offending) writeFileSync(join(dir, `swap${i + 1}-${o.index}-at${o.pageAt}.png`), o.png);
        t.diagnostic(`the screenshots over ${pct(THRESHOLD)}, and the reference: ${dir}`);
        t.diagnostic(`what the frames said (ms): ${trace.join('; ')}`);
      }
      for (const [i, s] of swaps.entries()) {
        // A film that starts after the swap, or ends at it, proves nothing.
        assert.ok(s.before >= 1, `swap ${i + 1}: no screenshot before the swap`);
        assert.ok(s.after >= 3, `swap ${i + 1}: ${s.after} screenshots after the swap, not 3`);
        assert.deepEqual(
          s.shares.flatMap((share, j) => (share > THRESHOLD ? [`#${j} ${pct(share)}`] : [])),
          [],
          `swap ${i + 1}: screenshots that differ from the settled dashboard (of ${s.shots}); ` +
            `the longest such stretch ${s.longestMs.toFixed(0)} ms`,
        );
      }
    });
  });
}
