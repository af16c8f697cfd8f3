// The browser suites' two origins: the host page on http://127.0.0.1:<port> and the embed on
// http://127.0.0.2:<port>, different sites, so with site isolation the embed frame runs in a renderer
// of its own and every message crosses processes. Each serves only the bench pages, the built CDN
// bundles and the built protocol module, by exact name, and listens on loopback only.
import { createServer } from 'node:http';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

async function files() {
  const map = new Map();
  for (const [prefix, dir] of [
    ['/', 'bench/pages'],
    ['/cdn/', 'cdn'],
    ['/protocol/', 'packages/protocol/dist'],
  ]) {
    for (const name of await readdir(join(root, dir)).catch(() => [])) {
      const type = TYPES[name.slice(name.lastIndexOf('.'))];
      if (type) map.set(prefix + name, { path: join(root, dir, name), type });
    }
  }
  return map;
}

function listen(host, served) {
  const server = createServer(async (req, res) => {
    const file = served.get(new URL(req.url, 'http://x').pathname);
    if (req.method !== 'GET' || !file) {
      res.writeHead(404).end();
      return;
    }
    const body = file.code ?? (await readFile(file.path));
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

/**
 * Starts both origins; resolves with `{ hostOrigin, embedOrigin, close }`. `scripts` maps more paths to
 * JavaScript made at bench time (such as `/lit-floor.js`).
 */
export async function startPages(scripts = {}) {
  const served = await files();
  for (const [path, code] of Object.entries(scripts)) served.set(path, { code, type: TYPES['.js'] });
  const servers = [];
  try {
    for (const host of ['127.0.0.1', '127.0.0.2']) servers.push(await listen(host, served));
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  const origin = (s) => `http://${s.address().address}:${s.address().port}`;
  return {
    hostOrigin: origin(servers[0]),
    embedOrigin: origin(servers[1]),
    close: () =>
      Promise.all(
        servers.map(
          (s) =>
            new Promise((r) => {
              s.closeAllConnections();
              s.close(r);
            }),
        ),
      ),
  };
}
