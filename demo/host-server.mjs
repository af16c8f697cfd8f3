// The demo host: a customer's web page that embeds the simulated tenant with <svc-embed>. It serves
// its pages, the built CDN bundle and the compiled protocol module, each from its own directory, the
// tenant origins (/config.json) and fresh minted sessions (/session), and nothing else of the repo.
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import mount from 'koa-mount';
import Router from '@koa/router';
import { chain, createApp, listen, serveDir } from '../packages/tenant/dist/http.js';
import { MAX_TTL_SECONDS } from '../packages/tenant/dist/sessions.js';

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
 * `GET /session?tenant=acme[&ttl=20]`: a fresh signed session, as a customer's backend would get one: from the
 * tenant's session-generation API (`POST /api/v1/embed/sessions`, with the demo admin key, server to server). Each
 * is single-use: one session per frame, so a page asks for one per load. It carries its end (`ttl` seconds, or a day
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
    let res;
    try {
      res = await fetch(`${tenantOrigin()}/api/v1/embed/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
        body: JSON.stringify({ embedTenant: tenant, ttlSeconds: ttl === undefined ? MAX_TTL_SECONDS : Number(ttl) }),
        signal: AbortSignal.timeout(10_000),
        redirect: 'error',
      });
    } catch {
      return fail(502, 'the tenant did not answer the session request');
    }
    const body = await res.json().catch(() => undefined);
    if (res.status !== 201 || typeof body?.session !== 'string') {
      return fail(502, `the tenant refused the session request (HTTP ${res.status})`);
    }
    ctx.body = {
      session: body.session,
      ...(ttl === undefined ? {} : { ttlSeconds: Number(ttl) }),
      expiresAt: body.expiresAt,
    };
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
