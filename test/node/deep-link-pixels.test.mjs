// A load that must show a path, in pixels (issue 43: "the viewer never sees a view they did not ask for"): an
// <svc-embed> (the built CDN bundle) on the simulated tenant, whose embed says ready and shows `/` before it is sent
// to any other path, filmed in headless Chromium and Firefox ESR (test/support/deep-link-scene.mjs) through
//   - a deep-link load: <svc-embed path="/details"> inserted;
//   - a re-insertion: the viewer on `/details`, the element taken out and put back (a new frame, a fresh session).
// No screenshot of the element's box, from before the load until the dashboard at the path has settled, may show the
// embed's default view: neither the settled `/` (at most 2 % of pixels off, as pixels.mjs judges a match) nor a good
// part of what only `/` shows (its widgets, its active tab). A covered or empty box, or the path loading, is fine.
// The element hears the filmed frame's ready 600 ms late, as a busy host page would (deep-link-scene.mjs): the
// frame's default view is then on screen long enough for a film of a few screenshots a second to see it, should
// nothing cover it. Order and outcome are asserted, never wall time: a slow machine changes neither.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTenant } from '@svc-embed/tenant';
import { enginesFrom, launch, unavailable } from '../support/browsers.mjs';
import { THRESHOLD, TOLERANCE } from '../support/pixels.mjs';
import { startRenewalHost } from '../support/renewal-scene.mjs';
import { PATH, watchDeepLink } from '../support/deep-link-scene.mjs';

const bundle = new URL('../../cdn/svc-embed.min.js', import.meta.url);
// Of the pixels that only the settled default view shows, a screenshot showing more than this share of them shows
// the default view, or a part of it (its header on the `/` tab, its cards and their placeholders). Measured: the
// default view loading (every card a placeholder) shows 30-39 % of them, settled 100 %; a covered box, an empty one
// or the embed's own spinner 0-1 %, the path loading 7-8 % (the header they share), settled 0 %.
const LIKENESS = 0.15;
const SCENARIOS = {
  'deep-link': `a deep-link load (<svc-embed path="${PATH}"> inserted)`,
  reinsertion: `a re-insertion (the viewer on ${PATH}, the element taken out and put back)`,
};
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
  describe(`a load that must show a path, in pixels, in ${engine}`, { skip: unavailable(engine) }, () => {
    let browser;
    before(async () => {
      browser = await launch(engine);
    });
    after(async () => {
      await browser?.close();
    });

    for (const [scenario, title] of Object.entries(SCENARIOS)) {
      test(`${title}: no screenshot of the element's box shows the default view /`, async (t) => {
        const r = await watchDeepLink(browser, engine, host, { scenario });
        const { shots } = r;
        const closest = shots.reduce((a, s) => (s.toDefault < a.toDefault ? s : a), shots[0]);
        const likest = shots.reduce((a, s) => (s.likeness > a.likeness ? s : a), shots[0]);
        const shows = (s) => s.toDefault <= THRESHOLD || s.likeness > LIKENESS;
        const offending = shots.filter(shows);
        // The screenshots asked for while the element held the new frame: from its ready (as the page heard it) to
        // svc-ready. That frame shows the default view then, behind the cover.
        const readyAt = r.events.find((e) => e.frame === r.frame && e.type === 'ready')?.at;
        const svcReadyAt = r.readies.at(-1)?.at;
        const held = shots.filter((s) => s.pageAt > readyAt && s.pageAt < svcReadyAt).length;
        // The numbers first, then the verdicts: a failure still shows what the film looked like.
        t.diagnostic(
          `${shots.length} screenshots (${r.before} before the load, ${held} while the new frame was held, ` +
            `${r.after} after the dashboard at ${PATH} ` +
            `loaded; ${r.missed} refused), one every ${r.intervalMs?.toFixed(0)} ms; the views differ in ` +
            `${pct(r.apart)} of pixels, ${pct(r.distinct)} are the default view's own`,
        );
        t.diagnostic(
          `worst match against the default view: ${pct(closest.toDefault)} of pixels off (#${shots.indexOf(closest)} ` +
            `at ${closest.pageAt} ms; a match is at most ${pct(THRESHOLD)}); at most ${pct(likest.likeness)} of its own ` +
            `pixels shown (#${shots.indexOf(likest)} at ${likest.pageAt} ms; the limit ${pct(LIKENESS)})`,
        );
        if (offending.length) {
          const dir = mkdtempSync(join(tmpdir(), `svc-embed-deep-link-${engine}-${scenario}-`));
          for (const [name, png] of Object.entries(r.stills)) writeFileSync(join(dir, `reference-${name}.png`), png);
          for (const s of offending)
            writeFileSync(
              join(
                dir,
                `${shots.indexOf(s)}-at${s.pageAt}-default${(s.toDefault * 100).toFixed(0)}-like${(s.likeness * 100).toFixed(0)}.png`,
              ),
              s.png,
            );
          t.diagnostic(`the screenshots that show the default view, and the references: ${dir}`);
          t.diagnostic(
            `they came at (ms of the page): ${offending.map((s) => `${s.pageAt} (${pct(s.toDefault)} off, ${pct(s.likeness)} like)`).join(', ')}`,
          );
          t.diagnostic(`what the frames and the element said (ms): ${r.trace.join('; ')}`);
        }

        // The references tell the two views apart, at the box's size.
        assert.deepEqual(r.reference, [960, 600], 'the references are the element box, 960 × 600');
        assert.ok(r.apart > 5 * THRESHOLD, `the default view and ${PATH} differ in only ${pct(r.apart)} of pixels`);
        assert.ok(r.distinct > 0.05, `only ${pct(r.distinct)} of pixels are the default view's own`);
        // A film that starts after the load began, or ends before the dashboard at the path loaded, proves nothing.
        assert.ok(r.before >= 1, 'no screenshot before the load began');
        assert.ok(r.after >= 3, `${r.after} screenshots after the dashboard at ${PATH} loaded, not 3`);
        assert.ok(held >= 1, "no screenshot between the frame's ready and svc-ready");

        // Order: the filmed frame said ready, showed `/` (what the viewer must not see), then viewed the path; the
        // element stayed loading until then, and said svc-ready once, after the frame viewed the path.
        const own = r.events.filter((e) => e.frame === r.frame);
        const step = (type, path) => own.findIndex((e) => e.type === type && (path === undefined || e.path === path));
        const ready = step('ready');
        const atDefault = step('view', '/');
        const atPath = step('view', PATH);
        assert.ok(ready >= 0 && atDefault > ready && atPath > atDefault, `the frame's events: ${JSON.stringify(own)}`);
        assert.equal(own[atDefault].status, 'loading', 'the element was loading when the frame showed /');
        const readies = r.readies.slice(r.readiesBefore);
        assert.equal(readies.length, 1, `svc-ready ${readies.length} times for the load`);
        assert.equal(readies[0].frame, r.frame, 'svc-ready for the filmed frame');
        assert.equal(readies[0].viewed, PATH, `svc-ready before the frame viewed ${PATH}`);
        assert.ok(readies[0].at >= own[atPath].at, 'svc-ready before the view of the path');
        assert.equal(readies[0].status, 'ready');

        // What the viewer saw: never the default view; and at the end, the path's.
        assert.deepEqual(
          offending.map(
            (s) => `#${shots.indexOf(s)} at ${s.pageAt} ms: ${pct(s.toDefault)} off, ${pct(s.likeness)} like`,
          ),
          [],
          `screenshots that show the default view (of ${shots.length})`,
        );
        const last = shots.at(-1);
        assert.ok(
          last.toTarget <= THRESHOLD,
          `the last screenshot differs from ${PATH}, settled, in ${pct(last.toTarget)} of pixels (over ${TOLERANCE}/255)`,
        );
      });
    }
  });
}
