// The browser suites' two origins: the host page on http://127.0.0.1:<port> and the embed on
// http://127.0.0.2:<port>, different sites, so with site isolation the embed frame runs in a renderer
// of its own and every message crosses processes. Each serves only the bench pages, the built CDN
// bundles and the built protocol module, by exact name, and pages a suite routes at run time
// (`route`), and listens on loopback only. `?delay=<ms>` on any of them holds the answer that long
// (up to 10 s), as a CDN miss would.
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

const MAX_DELAY_MS = 10_000;

function listen(host, served, routes) {
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://x');
    const route = routes.get(url.pathname);
    const file = route ? await route(url) : served.get(url.pathname);
    const delay = url.searchParams.get('delay');
    if (req.method !== 'GET' || !file || (delay !== null && !(/^\d{1,5}$/.test(delay) && delay <= MAX_DELAY_MS))) {
      res.writeHead(404).end();
      return;
    }
    if (Number(delay) > 0) await new Promise((r) => setTimeout(r, Number(delay)));
    const body = file.code ?? (await readFile(file.path));
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(body);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve(server));
  });
}

/**
 * Starts both origins; resolves with `{ hostOrigin, embedOrigin, route, close }`. `scripts` maps more paths to
 * JavaScript made at bench time (such as `/lit-floor.js`). `route(path, answer)` serves `path` on both
 * origins by `answer(url)`, which returns (or resolves with) `{ code, type }` or undefined for a 404, until
 * the function it returns is called.
 */
export async function startPages(scripts = {}) {
  const served = await files();
  for (const [path, code] of Object.entries(scripts)) served.set(path, { code, type: TYPES['.js'] });
  const routes = new Map();
  const servers = [];
  try {
    for (const host of ['127.0.0.1', '127.0.0.2']) servers.push(await listen(host, served, routes));
  } catch (err) {
    for (const s of servers) s.close();
    throw err;
  }
  const origin = (s) => `http://${s.address().address}:${s.address().port}`;
  return {
    hostOrigin: origin(servers[0]),
    embedOrigin: origin(servers[1]),
    route(path, answer) {
      routes.set(path, answer);
      return () => routes.get(path) === answer && routes.delete(path);
    },
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
