// The demo host: a customer's web page that embeds the simulated tenant with <svc-embed>. It serves
// its pages, the built CDN bundle and the compiled protocol module, each from its own directory, the
// tenant origins (/config.json) and fresh minted sessions (/session), and nothing else of the repo.
// One page (/ssr) is rendered at each request, with its frame in the HTML (svc-embed/ssr).
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import mount from 'koa-mount';
import Router from '@koa/router';
import { chain, createApp, listen, serveDir } from '../packages/tenant/dist/http.js';
import { MAX_TTL_SECONDS } from '../packages/tenant/dist/sessions.js';
import { EARLY_SCRIPT_HASH, STYLE_HASH, renderEmbed } from '../dist/ssr.js';

const dir = (p) => fileURLToPath(new URL(p, new URL('./host/', import.meta.url)));
const PAGES = {
  '/': 'index.html',
  '/index.html': 'index.html',
  '/compare': 'compare.html',
  '/compare.html': 'compare.html',
  '/sessions': 'sessions.html',
  '/sessions.html': 'sessions.html',
  '/routes': 'routes.html',
  '/routes.html': 'routes.html',
  '/history': 'history.html',
  '/history.html': 'history.html',
};
const TENANT = /^[A-Za-z0-9]{1,32}$/;

/**
 * A fresh signed session from the tenant's session-generation API (`POST /api/v1/embed/sessions`, with the demo admin
 * key, server to server), as a customer's backend gets one: `{ session, expiresAt }`. It lasts `ttlSeconds`.
 * Rejects with an Error whose message says why, for a 502.
 */
async function requestSession(tenantOrigin, tenant, ttlSeconds) {
  let res;
  try {
    res = await fetch(`${tenantOrigin}/api/v1/embed/sessions`, {
      method: 'POST',
      headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
      body: JSON.stringify({ embedTenant: tenant, ttlSeconds }),
      signal: AbortSignal.timeout(10_000),
      redirect: 'error',
    });
  } catch {
    throw new Error('the tenant did not answer the session request');
  }
  const body = await res.json().catch(() => undefined);
  if (res.status !== 201 || typeof body?.session !== 'string') {
    throw new Error(`the tenant refused the session request (HTTP ${res.status})`);
  }
  return { session: body.session, expiresAt: body.expiresAt };
}

/**
 * `GET /session?tenant=acme[&ttl=20]`: a fresh signed session, as a customer's backend would get one. Each is
 * single-use: one session per frame, so a page asks for one per load. It carries its end (`ttl` seconds, or a day
 * without), so that no reload and no other traffic can bring it back once it has expired.
 */
function mintSession(tenantOrigin) {
  return async (ctx) => {
    ctx.set('cache-control', 'no-store');
    const fail = (status, message) => {
      ctx.status = status;
      ctx.body = { error: { message } };
    };
    const { tenant = 'acme', ttl } = ctx.query;
    if (Array.isArray(tenant) || Array.isArray(ttl)) return fail(400, 'tenant and ttl: at most once each');
    if (!TENANT.test(tenant)) return fail(400, 'tenant: 1 to 32 letters or digits');
    if (ttl !== undefined && !(/^[0-9]{1,5}$/.test(ttl) && Number(ttl) >= 1 && Number(ttl) <= MAX_TTL_SECONDS)) {
      return fail(400, `ttl: whole seconds from 1 to ${MAX_TTL_SECONDS}`);
    }
    let answer;
    try {
      answer = await requestSession(tenantOrigin(), tenant, ttl === undefined ? MAX_TTL_SECONDS : Number(ttl));
    } catch (error) {
      return fail(502, error.message);
    }
    ctx.body = {
      session: answer.session,
      ...(ttl === undefined ? {} : { ttlSeconds: Number(ttl) }),
      expiresAt: answer.expiresAt,
    };
  };
}

// Where the server-rendered page puts the element.
const SSR_SLOT = '<!-- svc-embed: rendered at each request -->';

/**
 * `GET /ssr`: a page whose HTML holds the dashboard's frame (svc-embed/ssr), with a single-use session minted for this
 * request. So it is sent with `Cache-Control: no-store`: a copy of it from a cache would hold a spent session. Its
 * policy allows the early-message script and the shadow root's style by their hashes, and no other inline code.
 */
function serverRendered(tenantOrigin) {
  return async (ctx) => {
    ctx.set('cache-control', 'no-store');
    const origin = tenantOrigin();
    const page = await readFile(dir('ssr.html'), 'utf8');
    let embed;
    try {
      const { session } = await requestSession(origin, 'acme', MAX_TTL_SECONDS);
      embed = renderEmbed({
        id: 'sales',
        src: `${origin}/embed/dashboard/sales-overview?session=${encodeURIComponent(session)}`,
        title: 'Sales overview',
      });
    } catch (error) {
      ctx.status = 502;
      embed = `<p class="banner" role="alert">No dashboard: ${error.message.replace(/[&<>"']/g, '')}.</p>`;
    }
    ctx.set(
      'content-security-policy',
      `frame-ancestors 'self'; default-src 'self'; script-src 'self' ${EARLY_SCRIPT_HASH}; ` +
        `style-src 'self' ${STYLE_HASH}; frame-src ${origin}`,
    );
    ctx.type = 'html';
    ctx.body = page.replace(SSR_SLOT, () => embed);
  };
}

/**
 * Starts the demo host. `tenantOrigin` is a string, or a function returning it (so a test can start
 * the host before the tenant). `refusingTenantOrigin`, optional and given the same way, is a tenant
 * whose allowed host origins leave this page out: the playground's "Wrong host origin" scenario.
 * @returns {Promise<{origin: string, close: () => Promise<void>}>}
 */
export async function startHost({
  port = 0,
  host = 'localhost',
  tenantOrigin = `http://127.0.0.1:${process.env.TENANT_PORT || 8001}`,
  refusingTenantOrigin,
} = {}) {
  const resolve = (value) => (typeof value === 'function' ? value() : value);
  const router = new Router({ sensitive: true, strict: true });
  for (const [path, file] of Object.entries(PAGES)) {
    router.get(path, async (ctx) => {
      ctx.set('cache-control', 'no-cache');
      ctx.type = 'html';
      ctx.body = await readFile(dir(file), 'utf8');
    });
  }
  router.get('/config.json', (ctx) => {
    ctx.set('cache-control', 'no-store');
    const refusing = resolve(refusingTenantOrigin);
    ctx.body = {
      tenantOrigin: new URL(resolve(tenantOrigin)).origin,
      ...(refusing ? { refusingTenantOrigin: new URL(refusing).origin } : {}),
    };
  });
  router.get(
    '/session',
    mintSession(() => new URL(resolve(tenantOrigin)).origin),
  );
  for (const path of ['/ssr', '/ssr.html'])
    router.get(
      path,
      serverRendered(() => new URL(resolve(tenantOrigin)).origin),
    );
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
  });

  // The host's pages may be framed by the host alone (clickjacking): on every answer, refusals and 404s included,
  // beside the guard's nosniff.
  const app = createApp('demo host', { headers: { 'content-security-policy': "frame-ancestors 'self'" } });
  app.use(mount('/demo/host', serveDir(dir('./'), { extensions: ['.js', '.css', '.html'] })));
  app.use(mount('/cdn', serveDir(dir('../../cdn/'), { extensions: ['.js', '.js.map'] })));
  // The protocol package's compiled module, for the page's own imports (filterParam).
  app.use(
    mount(
      '/dist/protocol',
      serveDir(dirname(fileURLToPath(import.meta.resolve('@svc-embed/protocol'))), { extensions: ['.js'] }),
    ),
  );
  app.use(chain(router.routes(), router.allowedMethods()));
  return listen(app, { port, host });
}
