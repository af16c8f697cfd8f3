// A web-test-runner plugin that serves the embed peer (test/support/peer.html) from two extra
// loopback servers. The test page lives on http://127.0.0.2:<port> (see loopback.mjs), so
// http://127.0.0.1:<port> is a genuinely different origin and site: the browser, not the test,
// enforces the same-origin policy.
// `executeServerCommand('peer-origins')` tells the tests both origins.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const page = new URL('./peer.html', import.meta.url);
// SVC_PEER_DELAY_MS: the peer answers every page this late, as a slow tenant or a loaded machine would. A test that
// assumes a quick frame then fails every time, not once in many runs.
const delay = Number(process.env.SVC_PEER_DELAY_MS) || 0;

function serve() {
  const server = createServer((req, res) => {
    const { pathname } = new URL(req.url, 'http://x');
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
    async serverStart() {
      servers = await Promise.all([serve(), serve()]);
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
    executeCommand({ command }) {
      // The model-based lifecycle test: a few runs with a fixed seed, or as many as `npm run fuzz` asks for.
      if (command === 'model-settings')
        return { runs: Number(process.env.MODEL_RUNS) || 6, seed: Number(process.env.MODEL_SEED) || 20261126 };
      if (command !== 'peer-origins') return undefined;
      const [tenant, other] = servers.map((s) => `http://127.0.0.1:${s.address().port}`);
      return { tenant, other };
    },
  };
}
