// What the demo host and the simulated tenant share: @web/dev-server's Node API in middleware mode
// over the repository root, behind an allow-list, on a listening socket (host, port 0 for tests) of our own.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { startDevServer } from '@web/dev-server';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Listens on host:port and resolves with the origin the browser will use. */
function listen(server, port, host) {
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
function closeServer(server) {
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
async function devServer(middleware, allowedPrefixes) {
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

/**
 * Serves `middleware` (then the allowed files) on host:port.
 * @returns {Promise<{origin: string, close: () => Promise<void>}>}
 */
export async function serve({ middleware, allowedPrefixes, port, host }) {
  const dev = await devServer(middleware, allowedPrefixes);
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
    async close() {
      await Promise.all([closeServer(server), dev.stop()]);
    },
  };
}
