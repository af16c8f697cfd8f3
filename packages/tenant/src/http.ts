// The HTTP ground rules of the simulated tenant and of the demo host, in one place:
// - only loopback Host names are answered (a DNS-rebinding page names its own host, so it gets a 403);
// - every response says nosniff, error responses included;
// - a hostile request costs at most one line of stderr, and only when the server itself failed;
// - files are served only from directories mounted one per public prefix, so a path can name nothing else.
import { createServer, STATUS_CODES } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { realpath } from 'node:fs/promises';
import { join, sep } from 'node:path';
import Koa from 'koa';
import { send } from '@koa/send';
import { isLoopbackHost, replaceUnsafe } from '@svc-embed/protocol';

// Browsers and common tools send far less; beyond this a URL is a probe, not a page.
const MAX_URL_LENGTH = 8192;
const TEXT = 'text/plain; charset=utf-8';
// A client that went away mid-response, or a connection dropped by close(): nothing the server did wrong.
const GONE: readonly unknown[] = ['ECONNRESET', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE'];

/** Response headers, as `ctx.set` takes them. */
export type Headers = Record<string, string | string[]>;

/**
 * The fields an error boundary reads from a thrown value. Anything can be thrown, so each is unknown
 * until checked; a thrown primitive has none of them.
 */
export type Thrown =
  | {
      readonly status?: unknown;
      readonly expose?: unknown;
      readonly message?: unknown;
      readonly headers?: unknown;
      readonly code?: unknown;
    }
  | null
  | undefined;

/** The error {@link httpError} makes: its status, its one-line text (exposed to the client) and extra headers. */
export interface StatusError extends Error {
  status: number;
  expose: boolean;
  headers: Headers;
}

/** Control, bidirectional and separator characters shown as `?`, so a logged path cannot forge lines. */
export function printable(value: unknown, max = 200): string {
  const s = replaceUnsafe(String(value), '?');
  return s.length > max ? `${s.slice(0, max)}\u2026` : s;
}

/** An error that carries the status and one-line text the client gets. */
export function httpError(
  status: number,
  message: string | undefined = STATUS_CODES[status],
  headers: Headers = {},
): StatusError {
  return Object.assign(new Error(message), { status, expose: true, headers });
}

/**
 * The host names a request may name: the loopback names, the literal address the connection came in on
 * (an IP literal cannot be rebound, and a server bound to a LAN address must answer to it), and `names`
 * (the host name a tenant was exposed on).
 */
function hostAllowed(req: IncomingMessage, names: readonly string[]): boolean | string {
  const values = req.headersDistinct.host;
  if (!values || values.length !== 1) return 'one Host header is required';
  const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):([0-9]{1,5})$/.exec(values[0].toLowerCase());
  if (!m || m[2] !== String(req.socket.localPort)) return false;
  if (isLoopbackHost(m[1]) || names.includes(m[1])) return true;
  const local = (req.socket.localAddress ?? '').replace(/^::ffff:(?=\d+\.)/, '');
  return isIP(local) !== 0 && m[1] === (isIP(local) === 6 ? `[${local}]` : local);
}

function respondText(ctx: Koa.Context, status: number, message: string, headers: Headers = {}): void {
  // Whatever a failed middleware had set (a file's length and type, say) does not describe this body; the app's
  // own headers for every answer (the guard's) do.
  const always = (ctx.state as { alwaysHeaders?: Headers }).alwaysHeaders ?? {};
  for (const name of ctx.res.getHeaderNames()) ctx.res.removeHeader(name);
  ctx.set('x-content-type-options', 'nosniff');
  ctx.set(always);
  ctx.set(headers);
  ctx.status = status;
  ctx.type = TEXT;
  ctx.body = `${message}\n`;
}

/** The first middleware of every app: request shape and Host checks, nosniff, and the error boundary. */
function guard(name: string, names: readonly string[], always: Headers): Koa.Middleware {
  return async (ctx, next) => {
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set(always);
    (ctx.state as { alwaysHeaders?: Headers }).alwaysHeaders = always;
    try {
      const allowed = hostAllowed(ctx.req, names);
      if (typeof allowed === 'string') throw httpError(400, `Bad request: ${allowed}.`);
      if (!allowed) {
        throw httpError(
          403,
          `Forbidden: this ${name} answers only to localhost, 127.0.0.1 and [::1] on port ${ctx.req.socket.localPort}.`,
        );
      }
      // Only origin-form targets: an absolute-form target names a host of its own, past the Host check.
      if (!ctx.url.startsWith('/')) throw httpError(400, 'Bad request: the request target must be a path.');
      if (ctx.url.length > MAX_URL_LENGTH) throw httpError(414);
      await next();
      if (ctx.status === 404 && ctx.body == null) respondText(ctx, 404, 'Not found');
    } catch (caught) {
      const error = caught as Thrown;
      const code = error?.status;
      const status = typeof code === 'number' && Number.isInteger(code) && code >= 400 && code < 600 ? code : 500;
      if (status >= 500)
        console.error(
          `[${name}] ${status} ${ctx.method} ${printable(ctx.path)}: ${printable(error?.message ?? error)}`,
        );
      const message = status < 500 && error?.expose ? error.message : STATUS_CODES[status];
      respondText(ctx, status, printable(message), (error?.headers ?? {}) as Headers);
    }
  };
}

/** Runs middleware in order as one (what koa-compose does, without one more dependency to name). */
export function chain(...middleware: Koa.Middleware[]): Koa.Middleware {
  return (ctx, next) =>
    middleware.reduceRight<Koa.Next>((down, mw) => () => Promise.resolve(mw(ctx, down) as unknown), next)();
}

/**
 * A Koa app whose first middleware is the guard; `name` ("tenant", "demo host") labels its log lines. `hostNames`
 * are names it answers to beside the loopback ones; `headers` go on every answer, refusals and errors included.
 */
export function createApp(
  name: string,
  { hostNames = [], headers = {} }: { hostNames?: readonly string[]; headers?: Headers } = {},
): Koa {
  const app = new Koa();
  app.use(
    guard(
      name,
      hostNames.map((h) => h.toLowerCase()),
      headers,
    ),
  );
  // Reached only for failures after the response has started: one line, unless the client merely went away.
  app.on('error', (caught: unknown) => {
    const error = caught as Thrown;
    if (!GONE.includes(error?.code)) console.error(`[${name}] ${printable(error?.message ?? error)}`);
  });
  return app;
}

function isNotFound(error: unknown): boolean {
  return (['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP'] as readonly unknown[]).includes((error as Thrown)?.code);
}

/**
 * Middleware serving the files under `root` whose names end with one of `extensions` (mount it at its
 * prefix with koa-mount). Refused before the file system is asked: dot segments and dotfiles, empty
 * segments, backslashes and NUL, after one percent-decoding; a symbolic link that leads out of `root`
 * is refused after it.
 */
export function serveDir(
  root: string,
  { extensions, cacheControl = 'no-cache' }: { extensions: readonly string[]; cacheControl?: string },
): Koa.Middleware {
  let realRoot: string | undefined;
  return async (ctx) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD')
      throw httpError(405, 'Method not allowed', { allow: 'GET, HEAD' });
    let rel: string;
    try {
      rel = decodeURIComponent(ctx.path);
    } catch {
      throw httpError(400, 'Bad request: malformed percent-encoding.');
    }
    if (rel.includes('\0')) throw httpError(400, 'Bad request: NUL in the path.');
    const segments = rel.split('/').slice(1);
    if (segments.some((s) => s === '' || s.startsWith('.') || s.includes('\\'))) return;
    if (!extensions.some((ext) => rel.endsWith(ext))) return;
    realRoot ??= await realpath(root).catch(() => undefined);
    if (!realRoot) return;
    let real: string;
    try {
      real = await realpath(join(realRoot, ...segments));
    } catch (error) {
      if (isNotFound(error)) return;
      throw error;
    }
    if (!real.startsWith(realRoot + sep)) return;
    ctx.set('cache-control', cacheControl);
    try {
      // The path as received: send() decodes it once, as we did above.
      await send(ctx, ctx.path, {
        root: realRoot,
        index: false,
        format: false,
        hidden: false,
        brotli: false,
        gzip: false,
      });
    } catch (error) {
      if ((error as Thrown)?.status === 404 || isNotFound(error)) return;
      throw error;
    }
  };
}

/** How a browser reaches a server listening on `host`: an unspecified address is reached on loopback. */
function originOf(host: string, port: number): string {
  if (host === '0.0.0.0') return `http://127.0.0.1:${port}`;
  if (host === '::') return `http://[::1]:${port}`;
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** Node answers malformed requests itself; this gives those answers nosniff and a one-line body too. */
function onClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error?.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const status = error?.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const body = `${STATUS_CODES[status]}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${TEXT}\r\nX-Content-Type-Options: nosniff\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** A listening server: the origin a browser reaches it on, and how to stop it. */
export interface Listening {
  readonly origin: string;
  close(this: void): Promise<void>;
}

/** Serves `app` on host:port (0 picks a free port). */
export async function listen(app: Koa, { port, host }: { port: number; host: string }): Promise<Listening> {
  // Without a Host header Node would answer 400 itself, bare; the guard answers it like any refusal.
  const handle = app.callback();
  // Koa's handler settles its own promise: every failure becomes a response or an 'error' event.
  const server = createServer({ requireHostHeader: false }, (req, res) => void handle(req, res));
  server.on('clientError', onClientError);
  // "localhost" is bound on 127.0.0.1: resolving it could give ::1 alone, and then a page opened on
  // http://127.0.0.1:<port> would not connect. Browsers try 127.0.0.1 for localhost too.
  const bindTo = host === 'localhost' ? '127.0.0.1' : host;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, bindTo, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    // A server listening on a host and port has an address with a port.
    origin: originOf(host, (server.address() as AddressInfo).port),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Keep-alive sockets would otherwise hold Ctrl-C for seconds.
        server.closeAllConnections();
      }),
  };
}
