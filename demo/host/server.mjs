// The demo host: a customer's web page that embeds the simulated tenant with <svc-embed>. It serves
// the demo pages, the built CDN bundle and the compiled protocol module, and nothing else of the repo.
import { serve } from '../serve.mjs';

const PAGES = { '/': '/demo/host/index.html', '/index.html': '/demo/host/index.html', '/compare': '/demo/host/compare.html', '/compare.html': '/demo/host/compare.html' };

/**
 * Starts the demo host. `tenantOrigin` is a string, or a function returning it (so a test can start
 * the host before the tenant, whose allowed host origin depends on the host's port).
 * @returns {Promise<{origin: string, close: () => Promise<void>}>}
 */
export async function startHost({ port = 0, host = 'localhost', tenantOrigin = `http://127.0.0.1:${process.env.TENANT_PORT || 8001}` } = {}) {
  const resolveTenant = typeof tenantOrigin === 'function' ? tenantOrigin : () => tenantOrigin;
  const pages = async (ctx, next) => {
    if (ctx.path === '/config.json') {
      ctx.set('cache-control', 'no-store');
      ctx.body = { tenantOrigin: new URL(resolveTenant()).origin };
      return;
    }
    if (ctx.path === '/favicon.ico') {
      ctx.status = 204;
      return;
    }
    if (Object.hasOwn(PAGES, ctx.path)) ctx.url = PAGES[ctx.path];
    ctx.set('cache-control', 'no-cache');
    await next();
  };
  return serve({ middleware: [pages], allowedPrefixes: ['/demo/host/', '/cdn/', '/dist/'], port, host });
}
