// The simulated tenant's history switch (issue 43): with it, the embed keeps its own history as a single-page app's
// router does. A navigation the viewer makes pushes one entry (which joins the tab's history), one the host asks for
// replaces the current entry, and the frame's own Back routes to the entry's path with navigate and view. Switched on
// three ways: startTenant's embedHistory, svc-embed-tenant's --embed-history, and embedHistory=1 in one frame's URL.
// Without it, the embed adds no entry. In headless browsers, on a host page of another origin.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { buildAction } from '@svc-embed/protocol';
import { startTenant } from '@svc-embed/tenant';
import { enginesFrom, launch, unavailable } from '../support/browsers.mjs';
import { serveHostPage } from '../support/loopback.mjs';
import { startUntil } from '../support/processes.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const root = fileURLToPath(new URL('../..', import.meta.url));
const tenantBin = join(root, 'packages/tenant/dist/bin.js');
const children = new Set();
after(() => {
  for (const child of children) child.kill('SIGKILL');
});

const HOST_PAGE = `<!doctype html>
<meta charset="utf-8"><title>host</title>
<script>
  window.messages = [];
  addEventListener('message', (e) => {
    const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === e.source);
    if (e.data && e.data.source === 'svc-embed')
      window.messages.push({ frame: frame ? frame.id : null, type: e.data.type, payload: e.data.payload, length: history.length });
  });
  window.frameIt = (id, src) => {
    const f = document.createElement('iframe');
    f.id = id;
    f.src = src;
    f.style.cssText = 'width: 900px; height: 600px';
    document.body.append(f);
  };
</script>`;

describe('the history switch: options', () => {
  test('startTenant: embedHistory must be a boolean; true puts the switch in every embed page, false leaves it out', async () => {
    for (const value of ['yes', 1, null]) {
      await assert.rejects(startTenant({ embedHistory: value }), (e) => {
        assert.ok(e instanceof TypeError);
        assert.match(e.message, /^startTenant: embedHistory must be true or false/);
        return true;
      });
    }
    for (const [options, on] of [
      [{ embedHistory: true }, true],
      [{ embedHistory: false }, false],
      [{}, false],
    ]) {
      const tenant = await startTenant({ ...options, latency: false });
      try {
        for (const p of ['/embed/dashboard/sales-overview', '/embed/app', '/embed/chat']) {
          const res = await fetch(tenant.origin + p);
          const body = await res.text();
          assert.equal(
            body.includes('<meta name="svc-embed-history" content="on">'),
            on,
            `${p} ${JSON.stringify(options)}`,
          );
          // The switch changes nothing of the page's policy.
          assert.match(res.headers.get('content-security-policy'), /script-src 'self';/);
          assert.doesNotMatch(res.headers.get('content-security-policy'), /unsafe/);
        }
      } finally {
        await tenant.close();
      }
    }
  });
});

for (const engine of enginesFrom('E2E_BROWSERS')) {
  describe(`the history switch in ${engine}`, { skip: unavailable(engine) }, () => {
    let plain;
    let switched;
    let cli;
    let server;
    let hostOrigin;
    let browser;
    before(async () => {
      plain = await startTenant({ latency: false });
      switched = await startTenant({ latency: false, embedHistory: true });
      cli = await startUntil(
        process.execPath,
        [tenantBin, '--port', '0', '--latency', 'off', '--embed-history'],
        'Ctrl-C stops it.',
        {
          cwd: root,
          running: children,
        },
      );
      cli.origin = /^Simulated tenant {2}(http:\/\/\S+)$/m.exec(cli.stdout)?.[1];
      ({ server, hostOrigin } = await serveHostPage(HOST_PAGE));
      browser = await launch(engine);
    });
    after(async () => {
      await browser?.close();
      server?.close();
      await plain?.close();
      await switched?.close();
      cli?.child.kill('SIGTERM');
      await cli?.exited;
    });

    /** Waits until `predicate(messages)` holds in the host page; resolves with what it returned. */
    async function until(page, predicate, what) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const messages = await page.evaluate(() => window.messages);
        const found = predicate(messages);
        if (Array.isArray(found) ? found.length : found) return found;
        if (Date.now() > deadline) assert.fail(`${what}: not seen in ${JSON.stringify(messages).slice(0, 2000)}`);
        await sleep(50);
      }
    }
    const views = (messages) => messages.filter((m) => m.type === 'svc:event:view').map((m) => m.payload.path);
    const navigates = (messages) => messages.filter((m) => m.type === 'svc:event:navigate');

    /** A viewer's click on the dashboard's other page tab, inside the frame. */
    async function clickTab(page) {
      const frame = page.frames().find((f) => f !== page.mainFrame());
      const tab = await frame.waitForSelector('a.tab:not(.active)');
      // The element's own click (puppeteer's mouse click needs the frame's element, which Firefox's BiDi cannot
      // locate across origins): the tenant's handler runs as for the viewer's.
      await tab.evaluate((a) => a.click());
    }

    /**
     * The story of one frame: a viewer's click, the host's navigate, the frame's Back. Returns what history.length
     * was at each step, and the paths viewed.
     */
    async function story(origin, extra = '') {
      const page = await browser.newPage();
      try {
        await page.goto(`${hostOrigin}/`);
        await page.evaluate(
          (u) => window.frameIt('a', u),
          `${origin}/embed/dashboard/sales-overview?session=demo-acme${extra}`,
        );
        await until(page, (m) => views(m).length === 1, 'first view');
        const start = await page.evaluate(() => history.length);
        // A viewer's navigation: navigate and view, /details.
        await clickTab(page);
        const clicked = await until(page, (m) => navigates(m).length === 1 && navigates(m)[0], 'the click');
        assert.equal(clicked.payload.path, '/details');
        const afterClick = await page.evaluate(() => history.length);
        // A navigation the host asks for: back to /.
        await page.evaluate(
          (action, origin) => document.getElementById('a').contentWindow.postMessage(action, origin),
          buildAction('svc:action:navigate', { path: '/' }),
          origin,
        );
        await until(page, (m) => navigates(m).length === 2, 'the host navigation');
        const afterHost = await page.evaluate(() => history.length);
        // A second viewer's navigation, then Back in the tab.
        await clickTab(page);
        await until(page, (m) => navigates(m).length === 3, 'the second click');
        const afterSecond = await page.evaluate(() => history.length);
        const frame = page.frames().find((f) => f !== page.mainFrame());
        const hash = await frame.evaluate(() => [location.hash, history.state?.svcEmbedPath]);
        let back;
        if (afterSecond > start) {
          await page.evaluate(() => history.back());
          back = await until(page, (m) => navigates(m).length === 4 && navigates(m)[3], 'the Back');
        }
        return {
          lengths: [start, afterClick, afterHost, afterSecond],
          hash,
          back,
          viewed: views(await page.evaluate(() => window.messages)),
        };
      } finally {
        await page.close();
      }
    }

    for (const [how, pick, extra] of [
      ['startTenant({ embedHistory: true })', () => switched.origin, ''],
      ['svc-embed-tenant --embed-history', () => cli.origin, ''],
      ['embedHistory=1 in the frame URL', () => plain.origin, '&embedHistory=1'],
    ]) {
      test(`${how}: a viewer's click pushes one entry, the host's navigate replaces, Back routes to the entry's path`, async () => {
        const { lengths, hash, back, viewed } = await story(pick(), extra);
        const [start, afterClick, afterHost, afterSecond] = lengths;
        assert.equal(afterClick, start + 1, 'one entry for the click, counted when its navigate arrives');
        assert.equal(afterHost, afterClick, 'no entry for the host navigation');
        // The second click, from the host's / at the replaced entry, pushes one more.
        assert.equal(afterSecond, afterHost + 1, 'one entry for the second click');
        assert.deepEqual(hash, ['#/details', '/details'], 'the entry holds the path');
        // Back: the frame's previous entry, which the host's navigation replaced with /.
        assert.equal(back.payload.path, '/');
        assert.equal(back.payload.previousPath, '/details');
        assert.deepEqual(viewed, ['/', '/details', '/', '/details', '/']);
      });
    }

    test('without the switch (and with embedHistory=0, or repeated): no entry for any navigation', async () => {
      for (const extra of ['', '&embedHistory=0', '&embedHistory=1&embedHistory=1']) {
        const { lengths, viewed } = await story(plain.origin, extra);
        assert.deepEqual(lengths, Array(4).fill(lengths[0]), extra);
        assert.deepEqual(viewed, ['/', '/details', '/', '/details'], extra);
      }
    });
  });
}
