// Loopback addresses and ports for the test servers, so a test run never takes a well-known port
// (a running `npm start` keeps 8000 and 8001) and is never reachable from another machine.
import { once } from 'node:events';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';

// The test page's own address. @web/dev-server-core listens on every interface when its hostname is
// `localhost` or `127.0.0.1`, and on exactly the given address otherwise. Linux routes all of
// 127.0.0.0/8 to the loopback interface, and browsers count it as loopback, so the page gets an
// origin and a site of its own, apart from the peers' `http://127.0.0.1:<port>`.
export const PAGE_HOST = '127.0.0.2';

/** A port that is free on `host` now, chosen by the OS. */
export function freePort(host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

const isLoopback = (address) => address === '::1' || /^127\./.test(address) || /^::ffff:127\./.test(address);

/** A test-runner plugin that stops the run if the test server listens anywhere but on loopback. */
export function loopbackOnlyPlugin() {
  return {
    name: 'svc-embed-loopback-only',
    serverStart({ server }) {
      const { address } = server.address();
      if (!isLoopback(address)) throw new Error(`the test server listens on ${address}, not on a loopback address`);
    },
  };
}

/**
 * Serves `html` at every path on 127.0.0.1, and resolves with the server and its origin as `http://localhost:<port>`:
 * another origin than a tenant's 127.0.0.1, and one the tenant allows by default.
 */
export async function serveHostPage(html) {
  const server = createHttpServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(html);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, hostOrigin: `http://localhost:${server.address().port}` };
}
