// A web-test-runner plugin that serves the embed peer (test/support/peer.html) from two extra
// loopback servers. The test page lives on http://127.0.0.2:<port> (see loopback.mjs), so
// http://127.0.0.1:<port> is a genuinely different origin and site: the browser, not the test,
// enforces the same-origin policy.
// `executeServerCommand('peer-origins')` tells the tests both origins.
// Each also serves the built CDN bundles (cdn/, as rollup.config.mjs lists them) at /cdn/<name>, with CORS for the
// test page's origin alone, as a CDN would: test/browser/sri.test.ts loads them with Subresource Integrity.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import bundles from '../../rollup.config.mjs';

const page = new URL('./peer.html', import.meta.url);
const root = new URL('../../', import.meta.url);
// Exact paths, each to its file: no other path of /cdn/ names anything.
const cdn = new Map(bundles.map(({ output }) => [`/cdn/${basename(output.file)}`, new URL(output.file, root)]));
// SVC_PEER_DELAY_MS: the peer answers every page this late, as a slow tenant or a loaded machine would. A test that
// assumes a quick frame then fails every time, not once in many runs.
const delay = Number(process.env.SVC_PEER_DELAY_MS) || 0;

// Every embed page requested, as its path and query: `executeServerCommand('peer-requests', { contains })` counts the
// ones that contain a text (a session made for one test), so a test can see how often its frame was requested.
const requests = [];

/** A peer server; `pageOrigin` is the test page's origin, the one origin its bundles are shared with. */
function serve(pageOrigin) {
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://x');
    if (pathname.startsWith('/embed/') && requests.push(req.url) > 10000) requests.splice(0, 5000);
    const bundle = cdn.get(pathname);
    if (bundle && req.method === 'GET') {
      // Read at each request, so a rebuild is served at once; a bundle not built yet is a 404.
      let code;
      try {
        code = readFileSync(bundle);
      } catch {
        res.writeHead(404, { 'content-type': 'text/plain' });
        return res.end('not built: npm run build');
      }
      res.writeHead(200, {
        'content-type': 'text/javascript; charset=utf-8',
        'cache-control': 'no-store',
        'access-control-allow-origin': pageOrigin,
      });
      return res.end(code);
    }
    // A tenant that accepts the connection and never answers: the frame never loads.
    if (pathname.startsWith('/embed/hang')) return;
    if (pathname.startsWith('/embed/')) {
      setTimeout(() => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
        res.end(readFileSync(page));
      }, delay);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

export function peerServerPlugin() {
  let servers = [];
  return {
    name: 'svc-embed-peer',
    async serverStart({ config }) {
      const pageOrigin = `http://${config.hostname}:${config.port}`;
      servers = await Promise.all([serve(pageOrigin), serve(pageOrigin)]);
    },
    async serverStop() {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise((r) => {
              s.close(r);
              s.closeAllConnections();
            }),
        ),
      );
    },
    executeCommand({ command, payload }) {
      // The model-based lifecycle test: a few runs with a fixed seed, or as many as `npm run fuzz` asks for.
      if (command === 'model-settings')
        return { runs: Number(process.env.MODEL_RUNS) || 6, seed: Number(process.env.MODEL_SEED) || 20261126 };
      if (command === 'peer-requests') return requests.filter((url) => url.includes(payload.contains)).length;
      if (command !== 'peer-origins') return undefined;
      const [tenant, other] = servers.map((s) => `http://127.0.0.1:${s.address().port}`);
      return { tenant, other };
    },
  };
}
