// The simulated tenant: embed surfaces (dashboard, app, chat), their data API, and the REST and SCIM
// endpoints, on one loopback origin. Built on @web/dev-server's Node API in middleware mode, so the
// listening socket (host, port 0 for tests) stays under our control.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startDevServer } from '@web/dev-server';
import { restMiddleware } from './rest.js';
import { embedMiddleware } from './embed.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Listens on host:port and resolves with the origin the browser will use. */
export function listen(server, port, host) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const { port: actual } = server.address();
      const name = host.includes(':') ? `[${host}]` : host;
      resolve(`http://${name}:${actual}`);
    });
  });
}

/** Closes a server and the keep-alive sockets that would otherwise hold Ctrl-C for seconds. */
export function closeServer(server) {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * A @web/dev-server in middleware mode over the repository root. `middleware` must answer or rewrite
 * every request it wants served: the last one here refuses everything else, so the repository
 * (package.json, node_modules, sources) is never exposed.
 */
export async function devServer(middleware, allowedPrefixes) {
  const guard = async (ctx, next) => {
    if (allowedPrefixes.some((p) => ctx.path.startsWith(p)) && !ctx.path.includes('..')) return next();
    ctx.status = 404;
    ctx.type = 'text/plain';
    ctx.body = 'Not found';
  };
  const dev = await startDevServer({
    config: {
      rootDir: root,
      port: 0,
      hostname: '127.0.0.1',
      middlewareMode: true,
      injectWebSocket: false,
      disableFileWatcher: true,
      middleware: [...middleware, guard],
    },
    readCliArgs: false,
    readFileConfig: false,
    autoExitProcess: false,
    logStartMessage: false,
  });
  return dev;
}

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
  const dev = await devServer([restMiddleware(), await embedMiddleware({ hostOrigins: allowed })], ['/demo/tenant/public/', '/dist/protocol/']);
  const server = createServer(dev.koaApp.callback());
  let origin;
  try {
    origin = await listen(server, port, host);
  } catch (error) {
    await dev.stop();
    throw error;
  }
  return {
    origin,
    hostOrigins: allowed,
    async close() {
      await Promise.all([closeServer(server), dev.stop()]);
    },
  };
}
