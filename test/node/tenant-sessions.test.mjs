// Minted sessions as the service issues them: single-use (the embed's bootstrap exchanges one for a token that only
// its document holds), lapsing after an exchange window counted from minting, and remembered once used until they
// end, in bounded memory. The rules with a clock of our own, then over HTTP, then in browsers: a second frame and a
// reload are refused with a fatal error, while the document that exchanged the session keeps working.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { buildAction } from '@svc-embed/protocol';
import { startTenant } from '@svc-embed/tenant';
import { createSessions } from '../../packages/tenant/dist/sessions.js';
import { enginesFrom, launch, unavailable } from '../support/browsers.mjs';
import { serveHostPage } from '../support/loopback.mjs';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

describe('the rules, with a clock of our own', () => {
  test('the first load exchanges a minted session for a token; every later load is refused as used', () => {
    const now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now });
    const { session } = sessions.mint('acme', 60);
    const tried = sessions.check([session], { commit: false });
    assert.equal(tried.ok, true);
    assert.equal(sessions.check([session], { commit: false }).ok, true, 'trying an exchange spends nothing');
    assert.equal(sessions.usedCount, 0);
    const first = sessions.check([session]);
    assert.deepEqual([first.ok, first.embedTenant, first.expiresInMs], [true, 'acme', 60_000]);
    assert.match(first.token, /^tok-acme-exp[0-9]{13}-[0-9a-f]{12}-[A-Za-z0-9_-]{32}$/);
    for (const again of [sessions.check([session]), sessions.check([session], { commit: false })]) {
      assert.equal(again.ok, false);
      assert.equal(again.name, 'SessionUsedError');
      assert.match(again.message, /already used/);
    }
    assert.equal(sessions.usedCount, 1);
  });

  test("the token stands for the session until the session's end, and nothing else passes for either", () => {
    let now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now });
    const { session } = sessions.mint('Globex', 30);
    const { token } = sessions.check([session]);
    const ok = sessions.checkToken(token);
    assert.deepEqual([ok.ok, ok.mode, ok.embedTenant, ok.expiresInMs], [true, 'signed', 'globex', 30_000]);
    // A token is not a session, a session is not a token, and an altered token or another tenant's is invalid.
    assert.equal(sessions.check([token]).name, 'InvalidSessionError');
    assert.equal(sessions.checkToken(session).name, 'InvalidSessionError');
    const other = createSessions({ now: () => now });
    assert.equal(other.checkToken(token).name, 'InvalidSessionError');
    const [, exp] = /-exp([0-9]{13})-/.exec(token);
    assert.equal(sessions.checkToken(token.replace(exp, String(Number(exp) + 60_000))).name, 'InvalidSessionError');
    assert.equal(sessions.checkToken(token.replace('tok-globex-', 'tok-acme-')).name, 'InvalidSessionError');
    now += 30_000;
    assert.equal(sessions.checkToken(token).name, 'SessionExpiredError');
  });

  test('in the URL of an API call, a minted session is refused: the document presents its token', () => {
    const sessions = createSessions();
    const { session } = sessions.mint('acme', 60);
    assert.equal(sessions.checkCall([session]).name, 'InvalidSessionError', 'not exchanged yet');
    sessions.check([session]);
    assert.equal(sessions.checkCall([session]).name, 'SessionUsedError');
    // Fixed sessions have no exchange: their calls present them.
    assert.equal(sessions.checkCall(['demo-acme']).ok, true);
  });

  test('the exchange window is counted from minting: a session loaded after it is refused as expired', () => {
    let now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now });
    const late = sessions.mint('acme', 600, 10).session;
    const onTime = sessions.mint('acme', 600, 10).session;
    const byDefault = sessions.mint('acme', 600).session;
    now += 9_999;
    const exchanged = sessions.check([onTime]);
    assert.equal(exchanged.ok, true);
    now += 1;
    const refused = sessions.check([late]);
    assert.equal(refused.name, 'SessionExpiredError');
    assert.match(refused.message, /exchange window/);
    assert.equal(sessions.check([late], { commit: false }).name, 'SessionExpiredError');
    // Exchanged in time, the session lasts until its own end, past the window.
    assert.equal(sessions.checkToken(exchanged.token).ok, true);
    now = 1_700_000_000_000 + 299_999;
    assert.equal(sessions.check([byDefault], { commit: false }).ok, true, 'the default window is 300 s');
    now += 1;
    assert.equal(sessions.check([byDefault]).name, 'SessionExpiredError');
  });

  test('reusable: a minted session loads any number of times until it ends, and still lapses unused', () => {
    let now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now, reusable: true });
    const { session } = sessions.mint('acme', 600, 5);
    for (let i = 0; i < 3; i++) assert.equal(sessions.check([session]).ok, true, `load ${i + 1}`);
    assert.equal(sessions.checkCall([session]).ok, true, 'and its calls may present it, as before');
    now += 10_000;
    assert.equal(sessions.check([session]).ok, true, 'exchanged in time, it outlives the window');
    assert.equal(sessions.check([sessions.mint('acme', 600, 5).session]).ok, true);
    const unused = sessions.mint('acme', 600, 5).session;
    now += 5_000;
    assert.equal(sessions.check([unused]).name, 'SessionExpiredError');
  });

  test('fixed demo-<tenant> and demo-<tenant>-ttl<N> sessions stay reusable, and have no token', () => {
    const sessions = createSessions();
    for (const s of ['demo-acme', 'demo-globex-x', 'demo-acme-ttl60']) {
      for (let i = 0; i < 3; i++) {
        const r = sessions.check([s]);
        assert.equal(r.ok, true, `${s}, load ${i + 1}`);
        assert.equal(r.token, undefined);
      }
    }
    assert.equal(sessions.usedCount, 0);
  });

  test('a used session is forgotten once it has ended, and stays refused, as expired, even if the clock goes back', () => {
    let now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now });
    const short = sessions.mint('acme', 20).session;
    const long = sessions.mint('acme', 600).session;
    sessions.check([short]);
    sessions.check([long]);
    assert.equal(sessions.usedCount, 2);
    now += 60_000;
    sessions.check([sessions.mint('acme', 600).session]);
    assert.equal(sessions.usedCount, 2, 'the ended one is forgotten, the new one remembered');
    assert.equal(sessions.check([short]).name, 'SessionExpiredError');
    assert.equal(sessions.check([long]).name, 'SessionUsedError', 'one that has not ended is still remembered');
    // A system clock set back does not bring a forgotten session back: the tenant's clock never goes back.
    now -= 50_000;
    assert.equal(sessions.check([short]).name, 'SessionExpiredError');
    assert.equal(sessions.check([short], { commit: false }).name, 'SessionExpiredError');
  });

  test('a flood of mints costs nothing; a flood of loads is bounded, refusing new sessions rather than forgetting used ones', () => {
    let now = 1_700_000_000_000;
    const sessions = createSessions({ now: () => now, maxUsed: 3 });
    for (let i = 0; i < 10_000; i++) sessions.mint('acme', 60);
    assert.equal(sessions.usedCount, 0);
    const used = [1, 2, 3].map(() => sessions.mint('acme', 60 + 10).session);
    for (const s of used) assert.equal(sessions.check([s]).ok, true);
    const refused = sessions.check([sessions.mint('acme', 600).session]);
    assert.equal(refused.name, 'InvalidSessionError');
    assert.match(refused.message, /remembers 3 used sessions/);
    assert.equal(sessions.usedCount, 3);
    for (const s of used) assert.equal(sessions.check([s]).name, 'SessionUsedError', 'none is pushed out');
    // Fixed sessions are not affected.
    assert.equal(sessions.check(['demo-acme']).ok, true);
    // Once the used ones have ended, there is room again.
    now += 70_000;
    const fresh = sessions.mint('acme', 600).session;
    assert.equal(sessions.check([fresh]).ok, true);
    assert.equal(sessions.usedCount, 1);
    for (const s of used) assert.equal(sessions.check([s]).name, 'SessionExpiredError');
  });
});

describe('over HTTP', () => {
  let tenant;
  let reusable;
  before(async () => {
    [tenant, reusable] = await Promise.all([
      startTenant({ port: 0, latency: false }),
      startTenant({ port: 0, latency: false, reusableSessions: true }),
    ]);
  });
  after(async () => {
    await tenant?.close();
    await reusable?.close();
  });

  const mint = (t, body) =>
    fetch(`${t.origin}/api/v1/embed/sessions`, {
      method: 'POST',
      headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
      body: JSON.stringify({ embedTenant: 'acme', ttlSeconds: 60, ...body }),
    });
  const session = async (t, body = {}) => {
    const res = await mint(t, body);
    assert.equal(res.status, 201);
    return (await res.json()).session;
  };
  const get = async (t, p, headers = {}) => {
    const res = await fetch(t.origin + p, { headers });
    return { status: res.status, body: await res.json() };
  };
  const boot = (t, s, surface = 'dashboard&publicId=sales-overview') =>
    get(t, `/embed/api/bootstrap?surface=${surface}&session=${encodeURIComponent(s)}`);

  test("the first bootstrap gets a token; the document's queries and questions present it; a second load is refused", async () => {
    const s = await session(tenant);
    const first = await boot(tenant, s);
    assert.equal(first.status, 200);
    assert.equal(typeof first.body.token, 'string');
    const auth = { authorization: `Bearer ${first.body.token}` };
    const q = await get(tenant, '/embed/api/query?publicId=sales-overview&widget=kpi-revenue', auth);
    assert.equal(q.status, 200);
    assert.equal(typeof q.body.value, 'number');
    const a = await get(tenant, '/embed/api/ask?q=revenue%20by%20region', auth);
    assert.equal(a.status, 200);
    for (const surface of ['dashboard&publicId=sales-overview', 'chat', 'app']) {
      const again = await boot(tenant, s, surface);
      assert.equal(again.status, 401, surface);
      assert.equal(again.body.error.name, 'SessionUsedError');
      assert.match(again.body.error.message, /already used/);
    }
    // The session itself no longer opens the API; a token beside a session, or a malformed one, is a 400.
    const raw = await get(tenant, `/embed/api/query?publicId=sales-overview&widget=kpi-revenue&session=${s}`);
    assert.equal(raw.body.error.name, 'SessionUsedError');
    const both = await get(tenant, `/embed/api/ask?q=revenue&session=${s}`, auth);
    assert.equal(both.status, 400);
    for (const authorization of ['Bearer', 'Basic abc', `Bearer ${first.body.token} x`]) {
      assert.equal((await get(tenant, '/embed/api/ask?q=revenue', { authorization })).status, 400, authorization);
    }
    assert.equal(
      (await get(tenant, '/embed/api/ask?q=revenue', { authorization: 'Bearer tok-acme' })).body.error.name,
      'InvalidSessionError',
    );
    // Fixed sessions, private mode: no token.
    assert.equal((await boot(tenant, 'demo-acme')).body.token, undefined);
  });

  test('a load that fails for another reason (an unknown dashboard) does not spend the session', async () => {
    const s = await session(tenant);
    const missing = await get(tenant, `/embed/api/bootstrap?surface=dashboard&publicId=nope&session=${s}`);
    assert.equal(missing.status, 404);
    assert.equal((await boot(tenant, s)).status, 200);
  });

  test('exchangeSeconds: an unused session lapses after it, refused as expired', async () => {
    const s = await session(tenant, { exchangeSeconds: 1 });
    const inTime = await session(tenant, { exchangeSeconds: 300 });
    await sleep(1100);
    const late = await boot(tenant, s);
    assert.equal(late.status, 401);
    assert.equal(late.body.error.name, 'SessionExpiredError');
    assert.equal((await boot(tenant, inTime)).status, 200);
  });

  test('exchangeSeconds must be whole seconds from 1 to 300', async () => {
    for (const exchangeSeconds of [0, 301, 1.5, -1, '10', null, true, [5]]) {
      const res = await mint(tenant, { exchangeSeconds });
      assert.equal(res.status, 400, JSON.stringify(exchangeSeconds));
      const { error } = await res.json();
      assert.match(error.message, /^exchangeSeconds: whole seconds from 1 to 300/);
    }
    for (const exchangeSeconds of [1, 300]) assert.equal((await mint(tenant, { exchangeSeconds })).status, 201);
  });

  test('reusableSessions: true keeps reusable minted sessions; fixed sessions are reusable either way', async () => {
    const s = await session(reusable);
    for (let i = 0; i < 3; i++) assert.equal((await boot(reusable, s)).status, 200, `load ${i + 1}`);
    const q = await get(reusable, `/embed/api/query?publicId=sales-overview&widget=kpi-revenue&session=${s}`);
    assert.equal(q.status, 200);
    for (const fixed of ['demo-acme', 'demo-acme-ttl60']) {
      for (const t of [tenant, reusable]) {
        for (let i = 0; i < 2; i++) assert.equal((await boot(t, fixed)).status, 200, `${fixed}, load ${i + 1}`);
      }
    }
  });

  test('the root page says whether minted sessions are single-use', async () => {
    const strict = await (await fetch(`${tenant.origin}/`)).text();
    assert.match(strict, /single-use/);
    assert.match(strict, /exchangeSeconds/);
    assert.match(await (await fetch(`${reusable.origin}/`)).text(), /reusable sessions/);
  });
});

// ---- in browsers: frames of a host page, and a surface opened on its own

const HOST_PAGE = `<!doctype html>
<meta charset="utf-8"><title>host</title>
<script>
  window.messages = [];
  addEventListener('message', (e) => {
    const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === e.source);
    window.messages.push({ frame: frame ? frame.id : null, type: e.data && e.data.type, payload: e.data && e.data.payload });
  });
  window.frameIt = (id, src) => {
    const f = document.createElement('iframe');
    f.id = id;
    f.src = src;
    f.style.cssText = 'width: 800px; height: 500px';
    document.body.append(f);
  };
</script>`;

for (const engine of enginesFrom('E2E_BROWSERS')) {
  describe(`in ${engine}`, { skip: unavailable(engine) }, () => {
    let tenant;
    let server;
    let hostOrigin;
    let browser;
    before(async () => {
      tenant = await startTenant({ port: 0, latency: false });
      ({ server, hostOrigin } = await serveHostPage(HOST_PAGE));
      browser = await launch(engine);
    });
    after(async () => {
      await browser?.close();
      server?.close();
      await tenant?.close();
    });

    const mintOne = async (ttlSeconds = 120) => {
      const res = await fetch(`${tenant.origin}/api/v1/embed/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
        body: JSON.stringify({ embedTenant: 'acme', ttlSeconds }),
      });
      return (await res.json()).session;
    };
    /** Waits until `predicate(messages)` holds (a true value, or a list that is not empty) in the host page. */
    async function until(page, predicate, what) {
      const deadline = Date.now() + 60_000;
      for (;;) {
        const messages = await page.evaluate(() => window.messages);
        const found = predicate(messages);
        if (Array.isArray(found) ? found.length : found) return found;
        if (Date.now() > deadline) assert.fail(`${what}: not seen in ${JSON.stringify(messages).slice(0, 2000)}`);
        await sleep(100);
      }
    }
    const of = (frame, type) => (messages) => messages.filter((m) => m.frame === frame && m.type === type);
    const post = (page, frame, envelope) =>
      page.evaluate(
        (id, env, origin) => document.getElementById(id).contentWindow.postMessage(env, origin),
        frame,
        envelope,
        tenant.origin,
      );

    test('the frame that exchanged the session keeps working; another frame and a reload are refused', async () => {
      const page = await browser.newPage();
      try {
        await page.goto(`${hostOrigin}/`);
        const session = await mintOne();
        const url = `${tenant.origin}/embed/dashboard/sales-overview?session=${encodeURIComponent(session)}`;
        await page.evaluate((u) => window.frameIt('a', u), url);
        await until(page, (m) => of('a', 'svc:event:ready')(m).length === 1, 'frame a ready');
        await until(page, (m) => of('a', 'svc:event:dashboard-loaded')(m).length === 1, 'frame a loaded');

        // Another frame with the same session: a fatal error that names the session as used.
        await page.evaluate((u) => window.frameIt('b', u), url);
        const [refused] = await until(page, of('b', 'svc:event:error'), 'frame b refused');
        assert.equal(refused.payload.fatal, true);
        assert.match(refused.payload.name, /Session/);
        assert.match(refused.payload.message, /already used/);
        assert.equal(of('b', 'svc:event:ready')(await page.evaluate(() => window.messages)).length, 0);

        // The first frame's own requests still work: a refresh, and a navigation within the embed.
        await post(page, 'a', buildAction('svc:action:refresh', {}));
        await until(page, (m) => of('a', 'svc:event:dashboard-loaded')(m).length === 2, 'frame a refreshed');
        await post(page, 'a', buildAction('svc:action:navigate', { path: '/details' }));
        await until(page, (m) => of('a', 'svc:event:dashboard-loaded')(m).length === 3, 'frame a navigated');
        const errors = of('a', 'svc:event:error')(await page.evaluate(() => window.messages));
        assert.deepEqual(errors, [], 'no error in the frame that exchanged the session');

        // A reload of that same frame presents the spent session: refused the same way.
        await page.evaluate(() => {
          const a = document.getElementById('a');
          // The same URL again: a new document, as a reload.
          a.setAttribute('src', a.getAttribute('src'));
        });
        const [reloaded] = await until(page, of('a', 'svc:event:error'), 'frame a reloaded and refused');
        assert.equal(reloaded.payload.fatal, true);
        assert.match(reloaded.payload.name, /Session/);
        assert.match(reloaded.payload.message, /already used/);
      } finally {
        await page.close();
      }
    });

    test("the document's queries and questions present its token, not the session; the page's reload is refused", async () => {
      const page = await browser.newPage();
      const calls = [];
      page.on('request', (request) => {
        const url = new URL(request.url());
        if (url.pathname === '/embed/api/query' || url.pathname === '/embed/api/ask') {
          calls.push({
            path: url.pathname,
            session: url.searchParams.get('session'),
            auth: request.headers().authorization,
          });
        }
      });
      try {
        // Opened on its own (not framed), a surface shows its content, and its requests can be watched.
        await page.goto(
          `${tenant.origin}/embed/dashboard/sales-overview?session=${encodeURIComponent(await mintOne())}`,
        );
        await page.waitForSelector('#root.surface-dashboard');
        // (waitForSelector, not waitForFunction: puppeteer polls a function with Function(), which the surface's CSP
        // refuses in Firefox ESR 140.)
        await page.waitForSelector('[aria-busy="true"]', { hidden: true });
        const session = await mintOne();
        await page.goto(`${tenant.origin}/embed/chat?session=${encodeURIComponent(session)}`);
        await page.waitForSelector('#root.surface-chat input[name=q]');
        await page.type('input[name=q]', 'revenue by region');
        await page.keyboard.press('Enter');
        await page.waitForSelector('.msg.bot:not(.pending)');
        assert.equal(await page.$('.msg.bot.error'), null, 'the question was answered');
        assert.deepEqual([...new Set(calls.map((c) => c.path))].sort(), ['/embed/api/ask', '/embed/api/query']);
        for (const c of calls) {
          assert.equal(c.session, null, c.path);
          assert.match(c.auth ?? '', /^Bearer tok-acme-exp/, c.path);
        }
        await page.reload();
        await page.waitForSelector('#root.fatal');
        assert.equal(await page.$eval('#root', (r) => r.dataset.error), 'SessionUsedError');
      } finally {
        await page.close();
      }
    });
  });
}
