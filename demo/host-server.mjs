// The demo host: a customer's web page that embeds the simulated tenant with <svc-embed>. It serves
// its pages, the built CDN bundle and the compiled protocol module, each from its own directory, the
// tenant origins (/config.json) and fresh demo sessions (/session), and nothing else of the repo.
import { randomBytes } from 'node:crypto';
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
};
const TENANT = /^[A-Za-z0-9]{1,32}$/;

/** `GET /session?tenant=acme[&ttl=20]`: a fresh signed session, as a customer's backend would mint one. */
function mintSession(ctx) {
  ctx.set('cache-control', 'no-store');
  const fail = (message) => {
    ctx.status = 400;
    ctx.body = { error: { message } };
  };
  const { tenant = 'acme', ttl } = ctx.query;
  if (Array.isArray(tenant) || Array.isArray(ttl)) return fail('tenant and ttl: at most once each');
  if (!TENANT.test(tenant)) return fail('tenant: 1 to 32 letters or digits');
  if (ttl !== undefined && !(/^[0-9]{1,5}$/.test(ttl) && Number(ttl) >= 1 && Number(ttl) <= MAX_TTL_SECONDS)) {
    return fail(`ttl: whole seconds from 1 to ${MAX_TTL_SECONDS}`);
  }
  const random = randomBytes(9).toString('base64url');
  const session = `demo-${tenant.toLowerCase()}${ttl === undefined ? '' : `-ttl${Number(ttl)}`}-${random}`;
  ctx.body = { session, ...(ttl === undefined ? {} : { ttlSeconds: Number(ttl) }) };
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
  router.get('/session', mintSession);
  router.get('/favicon.ico', (ctx) => {
    ctx.status = 204;
  });

  const app = createApp('demo host');
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
