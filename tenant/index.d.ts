/**
 * `svc-embed/tenant`: the simulated tenant, for local development and for test set-ups (a Playwright
 * `globalSetup`, a web-test-runner plugin). One loopback origin serves the embed surfaces (dashboard,
 * app, chat), their data, and the REST and SCIM endpoints, with seeded data and the demo keys.
 */

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
}

/** A running simulated tenant. */
export interface Tenant {
  /** The tenant's origin, e.g. `'http://127.0.0.1:8001'`; embed URLs start with it. */
  readonly origin: string;
  /** The allowed host origins, in canonical form. */
  readonly allowOrigins: readonly string[];
  /** Stops the server and drops its open connections. */
  close(): Promise<void>;
}

/** `['http://localhost:*', 'http://127.0.0.1:*']`. */
export const DEFAULT_ALLOW_ORIGINS: readonly string[];

/**
 * Starts the simulated tenant and resolves once it listens. Rejects with the system error when the
 * port is taken (`code: 'EADDRINUSE'`).
 * @throws {TypeError} for an unknown option or a value out of its domain
 */
export function startTenant(options?: TenantOptions): Promise<Tenant>;

/** The text to print once the tenant is up: its origin, an example `<svc-embed>` tag, the sessions and keys. */
export function describeTenant(tenant: Pick<Tenant, 'origin' | 'allowOrigins'>): string;
