/**
 * `@svc-embed/tenant`: the simulated tenant, for local development and for test set-ups (a Playwright
 * `globalSetup`, a web-test-runner plugin). One loopback origin serves the embed surfaces (dashboard,
 * app, chat), their data, and the REST and SCIM endpoints, with seeded data and the demo keys.
 * @packageDocumentation
 */

// @svc-embed/tenant: the simulated tenant, one loopback origin serving the embed surfaces (dashboard,
// app, chat), their data API, and the REST and SCIM endpoints, with the seeded data and demo keys.
// `npm start` and `svc-embed-tenant` both run it through startTenant.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import mount from 'koa-mount';
import { DEFAULT_ALLOW_ORIGINS, isLoopbackHost, parseAllowedOrigin } from '@svc-embed/protocol';
import { createApp, listen, serveDir } from './http.js';
import { embedRoutes } from './embed.js';
import { restApi } from './rest.js';
import { createSessions } from './sessions.js';

/** `['http://localhost:*', 'http://127.0.0.1:*']`: localhost and 127.0.0.1 on any port. */
export { DEFAULT_ALLOW_ORIGINS };

/** Options of {@link startTenant}. Every one is checked; a wrong value throws a `TypeError`. */
export interface TenantOptions {
  /** Port to listen on, 0 to 65535. Default `0`: a free port chosen by the system. */
  port?: number;
  /** Host name or IP address to listen on. Default `'127.0.0.1'`. */
  host?: string;
  /**
   * Host page origins allowed to frame the embed (CSP `frame-ancestors`) and to exchange messages with
   * it. Each is an origin (`'http://localhost:5173'`) or an origin with any port (`'http://localhost:*'`).
   * Default {@link DEFAULT_ALLOW_ORIGINS}: localhost and 127.0.0.1 on any port.
   */
  allowOrigins?: readonly string[];
  /** `false` answers the embed's queries without the simulated delay. Default `true`. */
  latency?: boolean;
  /**
   * `true` lets `host` be an address other machines reach (`0.0.0.0`, a LAN address, a host name that is not
   * loopback). The demo keys and sessions then work for anyone who can reach it. Default `false`: such a `host`
   * throws a `TypeError`.
   */
  expose?: boolean;
  /**
   * `true` lets a minted session (`POST /api/v1/embed/sessions`) be loaded any number of times until it ends, as
   * some backends' sessions can be. Default `false`: minted sessions are single-use, as the service's are. The first
   * embed load that presents one exchanges it, and any other load that presents it is refused with
   * `SessionUsedError`. Either way, an unused session lapses after its exchange window.
   */
  reusableSessions?: boolean;
  /**
   * `true` makes every embed page keep its own history, as a single-page app's router does: each navigation the
   * viewer makes in the embed pushes one entry (which joins the tab's history), a navigation the host asks for
   * (`svc:action:navigate`) replaces the current entry, and the frame's own Back and Forward route to the entry's
   * path (with `svc:event:navigate` and `svc:event:view`). Default `false`: the embed adds no history entry. One
   * frame can ask for it alone with `embedHistory=1` in its embed URL.
   */
  embedHistory?: boolean;
}

/** A running simulated tenant. */
export interface Tenant {
  /** The tenant's origin, e.g. `'http://127.0.0.1:8001'`; embed URLs start with it. */
  readonly origin: string;
  /** The allowed host origins, in canonical form. */
  readonly allowOrigins: readonly string[];
  /**
   * When exposed ({@link TenantOptions.expose}), the origins a browser on another machine would use: one per
   * address of this machine for `0.0.0.0` and `::`, else the host's own. Empty on a loopback host.
   */
  readonly remoteOrigins: readonly string[];
  /** Stops the server and drops its open connections. */
  close(this: void): Promise<void>;
}

/** The options as a caller may pass them from JavaScript: each still to be checked. */
type UncheckedOptions = { readonly [K in keyof TenantOptions]?: unknown };

/** The options once checked, with the defaults filled in. */
interface CheckedOptions {
  readonly port: number;
  readonly host: string;
  readonly allowOrigins: readonly string[];
  readonly latency: boolean;
  readonly expose: boolean;
  readonly reusableSessions: boolean;
  readonly embedHistory: boolean;
}

const PUBLIC_DIR = fileURLToPath(new URL('../public/', import.meta.url));
// The protocol package's compiled module, which the embed's scripts import.
const PROTOCOL_DIR = dirname(fileURLToPath(import.meta.resolve('@svc-embed/protocol')));
const OPTIONS: readonly string[] = [
  'port',
  'host',
  'allowOrigins',
  'latency',
  'expose',
  'reusableSessions',
  'embedHistory',
] satisfies readonly (keyof TenantOptions)[];
const HOST_NAME =
  /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

const shown = (v: unknown): string =>
  typeof v === 'string' ? JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}\u2026` : v) : String(v);
const isList = (v: unknown): v is readonly unknown[] => Array.isArray(v);

/** Checks the options of startTenant and fills in the defaults; a TypeError names the first problem. */
function checkOptions(options: unknown): CheckedOptions {
  if (options === undefined) options = {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError('startTenant: options must be an object');
  }
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key))
      throw new TypeError(`startTenant: unknown option ${shown(key)} (known: ${OPTIONS.join(', ')})`);
  }
  const {
    port = 0,
    host = '127.0.0.1',
    allowOrigins = DEFAULT_ALLOW_ORIGINS,
    latency = true,
    expose = false,
    reusableSessions = false,
    embedHistory = false,
  }: UncheckedOptions = options;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new TypeError(
      `startTenant: port must be an integer from 0 to 65535 (0 picks a free port), not ${shown(port)}`,
    );
  }
  const bare = typeof host === 'string' ? host.replace(/^\[(.*)\]$/, '$1') : host;
  if (typeof bare !== 'string' || !(isIP(bare) || HOST_NAME.test(bare))) {
    throw new TypeError(`startTenant: host must be a host name or an IP address to listen on, not ${shown(host)}`);
  }
  if (!isList(allowOrigins) || allowOrigins.length === 0) {
    throw new TypeError('startTenant: allowOrigins must be a non-empty array of origins, e.g. ["http://localhost:*"]');
  }
  // parseAllowedOrigin throws a TypeError that names the entry and the rule it breaks.
  const origins = [...new Set(allowOrigins.map((o) => parseAllowedOrigin(o).origin))];
  if (typeof latency !== 'boolean')
    throw new TypeError(`startTenant: latency must be true or false, not ${shown(latency)}`);
  if (typeof expose !== 'boolean')
    throw new TypeError(`startTenant: expose must be true or false, not ${shown(expose)}`);
  if (typeof reusableSessions !== 'boolean')
    throw new TypeError(`startTenant: reusableSessions must be true or false, not ${shown(reusableSessions)}`);
  if (typeof embedHistory !== 'boolean')
    throw new TypeError(`startTenant: embedHistory must be true or false, not ${shown(embedHistory)}`);
  if (!expose && !isLoopbackName(bare)) {
    throw new TypeError(
      `startTenant: host ${shown(host)} is not a loopback address: other machines could use the demo keys and ` +
        'sessions. Listen on 127.0.0.1 (the default), or pass expose: true to allow it',
    );
  }
  return { port, host: bare, allowOrigins: origins, latency, expose, reusableSessions, embedHistory };
}

/** A host to listen on that only this machine reaches: localhost, 127.0.0.0/8 or ::1. */
const isLoopbackName = (host: string): boolean =>
  isLoopbackHost(host.toLowerCase()) || (isIP(host) === 6 && /^(0{0,4}:){2,7}0{0,3}1$|^::1$/.test(host));

/** The origins another machine would use for a tenant on `host`:`port` (bare host, not loopback). */
function remoteOriginsOf(host: string, port: number): string[] {
  const literal = (address: string) => `http://${isIP(address) === 6 ? `[${address}]` : address}:${port}`;
  if (host !== '0.0.0.0' && host !== '::') return [literal(host)];
  const addresses = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal && (host === '::' || a.family === 'IPv4'))
    // A link-local IPv6 address needs a zone, which no URL can carry.
    .filter((a) => !(a!.family === 'IPv6' && /^fe80:/i.test(a!.address)));
  // No address found (a machine without a network yet): its name is what another machine would try.
  return addresses.length ? addresses.map((a) => literal(a!.address)) : [`http://${hostname()}:${port}`];
}

/**
 * Starts the simulated tenant and resolves once it listens. Rejects with the system error when the
 * port is taken (`code: 'EADDRINUSE'`).
 * @param options port (default 0: a free port), host to listen on (default 127.0.0.1), allowOrigins: the host page
 *   origins that may frame the embed and exchange messages with it, each an origin or an origin with
 *   any port (`http://localhost:*`; default: localhost and 127.0.0.1 on any port), latency: false
 *   answers queries without the simulated delay, reusableSessions: true lets a minted session be loaded more than
 *   once (default: single-use), embedHistory: true makes the embed pages keep their own history as a router does
 *   (default: they add no entry; a frame's URL can ask with embedHistory=1).
 * @throws {TypeError} for an unknown option or a value out of its domain
 */
export async function startTenant(options?: TenantOptions): Promise<Tenant> {
  const { port, host, allowOrigins, latency, expose, reusableSessions, embedHistory } = checkOptions(options);
  // One set of sessions: what the session-generation API mints, the embed accepts.
  const sessions = createSessions({ reusable: reusableSessions });
  const embed = await embedRoutes({ allowOrigins, latency, sessions, reusableSessions, embedHistory });
  // Exposed on a host name, the tenant answers to that name too (an IP literal it answers to already).
  const app = createApp('tenant', { hostNames: expose && !isIP(host) ? [host] : [] });
  app.use(mount('/embed/static', serveDir(PUBLIC_DIR, { extensions: ['.js', '.css'] })));
  app.use(mount('/embed/protocol', serveDir(PROTOCOL_DIR, { extensions: ['.js'] })));
  app.use(mount('/embed/api', embed.api));
  app.use(mount('/api', restApi(sessions)));
  app.use(embed.pages);
  const listening = await listen(app, { port, host });
  const remoteOrigins =
    expose && !isLoopbackName(host) ? remoteOriginsOf(host, Number(new URL(listening.origin).port)) : [];
  return { origin: listening.origin, allowOrigins: [...allowOrigins], remoteOrigins, close: listening.close };
}

/**
 * What to print once the tenant is up (the same for `npm start` and `svc-embed-tenant`): its origin,
 * an example `<svc-embed>` tag, the sessions and keys, the base URL to set, and where its root page is.
 */
export function describeTenant({
  origin,
  allowOrigins,
  remoteOrigins = [],
}: Pick<Tenant, 'origin' | 'allowOrigins'> & Partial<Pick<Tenant, 'remoteOrigins'>>): string {
  const exposed = remoteOrigins.length
    ? [
        '',
        '  WARNING   exposed to the network: anyone who can reach this machine can use the demo keys and sessions',
        `            below, and read all of the demo data. Other machines use ${remoteOrigins.join('  ')}`,
      ]
    : [];
  return [
    `Simulated tenant  ${origin}`,
    `  framed by       ${allowOrigins.join('  ')}`,
    '',
    `  <svc-embed src="${origin}/embed/dashboard/sales-overview?session=demo-acme" style="height: 640px"></svc-embed>`,
    '',
    '  Surfaces  /embed/dashboard/sales-overview  /embed/dashboard/support-ops  /embed/app  /embed/chat',
    '  Sessions  demo-acme, demo-globex (signed) \u00b7 none (private) \u00b7 demo-acme-ttl20 (ends 20 s after load) \u00b7 expired',
    `  REST      ${origin}/api/v1/deployments/1/notifications/1/recipients`,
    '            Authorization: Bearer demo-admin-key   (demo-scoped-key: deployment 1 only; demo-viewer-key: not an admin)',
    `  SCIM      ${origin}/api/scim/v2/Users`,
    '            Authorization: Bearer demo-scim-token',
    `  Base URL  SVC_BASE_URL=${origin}/api   (for the svc-embed command; the baseUrl of SvcClient)`,
    '',
    `  All of this, and how to mint a session, on one page: ${origin}/`,
    ...exposed,
  ].join('\n');
}
