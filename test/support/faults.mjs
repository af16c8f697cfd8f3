// Test fixtures for the fault tests of the REST and SCIM client and the svc-embed command: a loopback server, plain or
// TLS, that answers what each test hands it; a CONNECT proxy of the simplest kind, which records what it was asked and
// every byte it relayed; and a self-signed certificate made with openssl for the occasion. Loopback only, always.
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether this machine has openssl to make a certificate with. */
export function haveOpenssl() {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * A self-signed certificate for `127.0.0.1` only (no name: a request to `localhost` then fails the host name check),
 * in a temporary directory: `{ dir, certFile, cert, key, remove() }`.
 */
export function selfSignedCert() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-embed-cert-'));
  const keyFile = join(dir, 'key.pem');
  const certFile = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '2',
      '-subj',
      '/CN=svc-embed test',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  return {
    dir,
    certFile,
    cert: readFileSync(certFile),
    key: readFileSync(keyFile),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A loopback server that calls `handle(req, res, n)` for its n-th request (1-based), over TLS when `tls` holds a
 * certificate and key. `requests` lists the URLs asked for, and `headers` their headers.
 */
export async function faultServer(handle, tls) {
  const srv = { requests: [], headers: [] };
  const listener = (req, res) => {
    srv.requests.push(req.url);
    srv.headers.push(req.headers);
    handle(req, res, srv.requests.length);
  };
  const server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }, listener) : createServer(listener);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  srv.port = server.address().port;
  srv.origin = `${tls ? 'https' : 'http'}://127.0.0.1:${srv.port}`;
  srv.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return srv;
}

/**
 * An HTTP proxy that serves CONNECT only: it records each `CONNECT host:port`, refuses any target that is not on
 * loopback, and relays the tunnel's bytes both ways, keeping a copy of what the client sent through it (`relayed`).
 * A plain proxied request (`GET http://…`) is recorded in `plain` and refused with 405.
 */
export async function connectProxy() {
  const proxy = { connects: [], plain: [], relayed: [] };
  const server = createServer((req, res) => {
    proxy.plain.push({ url: req.url, headers: req.headers });
    res.writeHead(405, { 'content-type': 'text/plain' });
    res.end('this test proxy serves CONNECT only');
  });
  server.on('connect', (req, socket, head) => {
    proxy.connects.push({ target: req.url, headers: req.headers });
    const [host, port] = [
      req.url.slice(0, req.url.lastIndexOf(':')),
      Number(req.url.slice(req.url.lastIndexOf(':') + 1)),
    ];
    if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]') {
      socket.end('HTTP/1.1 403 Forbidden\r\n\r\n');
      return;
    }
    const upstream = connect(port, host === '[::1]' ? '::1' : host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) {
        proxy.relayed.push(Buffer.from(head));
        upstream.write(head);
      }
      socket.on('data', (chunk) => proxy.relayed.push(Buffer.from(chunk)));
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    const end = () => {
      socket.destroy();
      upstream.destroy();
    };
    upstream.on('error', end);
    socket.on('error', end);
    socket.on('close', end);
    upstream.on('close', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  proxy.url = `http://127.0.0.1:${server.address().port}`;
  proxy.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return proxy;
}

export const jsonRes = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

/** A SCIM user of index `i`. */
export const scimUser = (i) => ({
  schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
  id: `id-${i}`,
  userName: `user${i}@example.com`,
  active: true,
});

/** A SCIM ListResponse. */
export const scimList = (users, totalResults, extra = {}) => ({
  schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
  totalResults,
  ...(users === undefined ? {} : { Resources: users }),
  ...extra,
});
