// The simulated tenant: embed surfaces (dashboard, app, chat), their data API, and the REST and SCIM
// endpoints, on one loopback origin. Built on @web/dev-server's Node API in middleware mode, so the
// listening socket (host, port 0 for tests) stays under our control.
import { serve } from '../demo/serve.mjs';
import { restMiddleware } from './rest.js';
import { embedMiddleware } from './embed.js';

function originList(value) {
  const list = Array.isArray(value) ? value : [value];
  return list.map((o) => {
    const origin = new URL(o).origin;
    if (origin === 'null') throw new TypeError(`hostOrigins: ${o} has no origin`);
    return origin;
  });
}

/**
 * Starts the simulated tenant. `hostOrigins` are the host page origins allowed to frame the embed and
 * send it actions (default: http://localhost:<HOST_PORT or 8000>).
 * @returns {Promise<{origin: string, hostOrigins: string[], close: () => Promise<void>}>}
 */
export async function startTenant({ port = 0, host = '127.0.0.1', hostOrigins } = {}) {
  const allowed = originList(hostOrigins ?? `http://localhost:${process.env.HOST_PORT || 8000}`);
  const middleware = [restMiddleware(), await embedMiddleware({ hostOrigins: allowed })];
  const served = await serve({ middleware, allowedPrefixes: ['/tenant/public/', '/dist/protocol/'], port, host });
  return { ...served, hostOrigins: allowed };
}
