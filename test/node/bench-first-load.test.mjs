// The bench's first-load row (bench/suites/first-load.mjs, issue 44): its pages differ only in the embed and the
// bundle, the floor's frame is the element's frame, the pages server delays and routes as the row needs, and a load
// in which the element does not adopt the server's frame fails the row instead of giving a number. Counts and
// shapes only, never timings, so a loaded machine cannot fail it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { launch } from '../../bench/lib/browsers.mjs';
import { startPages } from '../../bench/lib/pages-server.mjs';
import { firstLoadPage, firstLoadSuite } from '../../bench/suites/first-load.mjs';
import { ALLOW, REFERRER, SANDBOX, TITLE } from '../../dist/frame.js';
import { renderEmbed } from '../../dist/ssr.js';

const TENANT = 'http://127.0.0.2:4100';
const SRC = `${TENANT}/embed/dashboard/sales-overview?session=demo-acme-x&lang=en`;
const page = (variant, delay = 0) => firstLoadPage({ variant, src: SRC, tenant: TENANT, delay });
const head = (html) => html.slice(0, html.indexOf('</script>'));
const iframe = (html) => /<iframe [^>]*>/.exec(html)?.[0];
const attr = (tag, name) => new RegExp(` ${name}="([^"]*)"`).exec(tag)?.[1];

test('the pages of the three variants share their recorder, and only the element pages load the bundle', async () => {
  const [floor, ssr, client] = await Promise.all(['floor', 'ssr', 'client'].map((v) => page(v, 100)));
  assert.match(head(floor), /<script>\(function recorder/);
  assert.equal(head(ssr), head(floor));
  assert.equal(head(client), head(floor));
  assert.doesNotMatch(floor, /svc-embed\.min\.js/);
  for (const html of [ssr, client])
    assert.match(html, /<script type="module" src="\/cdn\/svc-embed\.min\.js\?delay=100"><\/script>/);
  assert.ok(ssr.includes(renderEmbed({ src: SRC, style: 'display: block; width: 960px; height: 600px; border: 0' })));
  assert.match(client, /<svc-embed src="[^"]+" style="[^"]+"><\/svc-embed>/);
  assert.equal(iframe(client), undefined);
});

test("the floor's bare iframe is the frame the server renders for the element, attribute for attribute", async () => {
  const bare = iframe(await page('floor'));
  const ssr = iframe(await page('ssr'));
  assert.equal(attr(bare, 'sandbox'), SANDBOX);
  assert.equal(attr(bare, 'allow'), ALLOW);
  assert.equal(attr(bare, 'referrerpolicy'), REFERRER);
  assert.equal(attr(bare, 'title'), TITLE);
  for (const name of ['src', 'sandbox', 'allow', 'referrerpolicy', 'title'])
    assert.equal(attr(bare, name), attr(ssr, name), name);
});

test('the pages server holds an answer for ?delay=, refuses a bad one, and serves routes until they are removed', async () => {
  const pages = await startPages();
  try {
    const unroute = pages.route('/routed.html', (url) => ({
      code: `hi ${url.searchParams.get('n')}`,
      type: 'text/html',
    }));
    const t0 = performance.now();
    const res = await fetch(`${pages.hostOrigin}/routed.html?n=1&delay=150`);
    assert.equal(await res.text(), 'hi 1');
    assert.ok(performance.now() - t0 >= 140, 'held about 150 ms');
    for (const bad of ['-1', '1e3', '99999', 'x'])
      assert.equal((await fetch(`${pages.hostOrigin}/routed.html?delay=${bad}`)).status, 404, bad);
    unroute();
    assert.equal((await fetch(`${pages.hostOrigin}/routed.html`)).status, 404);
  } finally {
    await pages.close();
  }
});

test(
  'in Chromium, a round gives every figure, and a server frame the element does not adopt fails the row',
  { timeout: 300_000 },
  async () => {
    assert.ok(existsSync(new URL('../../cdn/svc-embed.min.js', import.meta.url)), 'cdn/ is built (npm run build)');
    const pages = await startPages();
    let browser;
    try {
      browser = await launch('chromium');
      const ctx = { browser, name: 'chromium', pages, rounds: 1, delays: [0], keeper: false, settleMs: 0, log() {} };
      const { rows, raw } = await firstLoadSuite(ctx);
      assert.equal(rows.length, 5);
      for (const row of rows.slice(0, 4))
        for (const n of [row.value.median, row.floor.median, row.ratio.median]) assert.ok(n > 0, row.figure);
      for (const v of ['floor', 'ssr', 'client']) assert.equal(raw.runs[`${v}@0`].length, 1);
      // The element's src differs from its server frame's, so it makes a frame of its own for the same session. When
      // that frame wins the single-use session (the server's is dropped before its exchange), the element does reach
      // ready, on its own frame: the second frame the page attached is what gives it away.
      const unadopted = async (args) => {
        const html = await firstLoadPage(args);
        return args.variant === 'ssr' ? html.replace(/<svc-embed src="([^"]+)"/, '<svc-embed src="$1&amp;x=1"') : html;
      };
      await assert.rejects(
        firstLoadSuite({ ...ctx, page: unadopted }),
        /chromium, ssr, bundle \+0 ms: .*(not ready|2 frames attached)/,
      );
    } finally {
      await browser?.close();
      await pages.close();
    }
  },
);
