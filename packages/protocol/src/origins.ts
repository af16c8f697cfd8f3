// Allowed host origins, shared by the simulated tenant's server (which validates them and writes the CSP
// frame-ancestors) and its embed's bridge (which matches event.origin and picks post targets).
// An entry is an origin (`http://localhost:8000`) or an origin with any port (`http://localhost:*`).
// Matching compares the parts the URL parser gives, scheme, host and port, by equality, never by
// substring or by a regular expression built from the entry.

/** Where any local dev server lives: the two loopback names, on any port. */
export const DEFAULT_ALLOW_ORIGINS: readonly string[] = Object.freeze(['http://localhost:*', 'http://127.0.0.1:*']);

/** An allowed host origin in canonical form: `port` is `'*'` for any port, `''` for the scheme's default. */
export interface AllowedOrigin {
  readonly origin: string;
  readonly scheme: string;
  readonly host: string;
  readonly port: string;
}

/** What {@link allowedOrigins} makes of a list of entries. */
export interface AllowedOrigins {
  /** Every entry, canonical. */
  readonly list: readonly string[];
  /** The entries without a wildcard port. */
  readonly exact: readonly string[];
  /** Whether `origin` (as a browser serialises it, `event.origin`) is allowed. */
  matches(origin: unknown): boolean;
}

/** The URL of an http(s) origin-like string; 'not a URL' or 'scheme' names what is wrong otherwise. */
function parts(text: string): URL | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'not a URL';
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? url : 'scheme must be http: or https:';
}

/**
 * Validates one entry and returns it in canonical form (`{origin, scheme, host, port}`, where `port`
 * is `'*'`, or `''` for the scheme's default port). Throws a TypeError naming the rule otherwise.
 */
export function parseAllowedOrigin(entry: unknown): AllowedOrigin {
  const shown =
    typeof entry === 'string'
      ? JSON.stringify(entry.length > 80 ? `${entry.slice(0, 80)}\u2026` : entry)
      : typeof entry;
  const fail = (why: string): never => {
    throw new TypeError(
      `allowOrigins: ${shown} is not an origin (${why}); use e.g. "http://localhost:5173" or "http://localhost:*"`,
    );
  };
  if (typeof entry !== 'string' || entry === '') return fail('a non-empty string is required');
  const wildcard = entry.endsWith(':*');
  const base = wildcard ? entry.slice(0, -2) : entry.replace(/\/$/, '');
  if (/[?#@\s]/.test(base)) fail('no query, fragment, credentials or spaces');
  const url = parts(base);
  if (typeof url === 'string') return fail(url);
  if (url.pathname !== '/' || base.slice(url.protocol.length + 2).includes('/')) fail('no path');
  if (url.hostname.includes('*')) fail('only the port may be a wildcard');
  // With a wildcard the base must already be canonical: "http://localhost:80:*" is not "any port".
  if (wildcard && url.origin !== base.toLowerCase()) fail('write the wildcard as scheme://host:*');
  return {
    origin: wildcard ? `${url.origin}:*` : url.origin,
    scheme: url.protocol,
    host: url.hostname,
    port: wildcard ? '*' : url.port,
  };
}

/**
 * A matcher over entries already validated by parseAllowedOrigin (the server writes only those into
 * the page). `matches(origin)` takes an origin as the browser serialises it (`event.origin`).
 * `exact` lists the entries without a wildcard: the only ones a message can be addressed to when the
 * parent's origin is unknown.
 */
export function allowedOrigins(entries: readonly unknown[]): AllowedOrigins {
  const list = entries.map(parseAllowedOrigin);
  return {
    list: list.map((e) => e.origin),
    exact: list.filter((e) => e.port !== '*').map((e) => e.origin),
    matches(origin: unknown) {
      if (typeof origin !== 'string') return false;
      const url = parts(origin);
      // "null" (opaque origins) and anything that is not already a serialised origin never match.
      if (typeof url === 'string' || url.origin !== origin) return false;
      return list.some(
        (e) => e.scheme === url.protocol && e.host === url.hostname && (e.port === '*' || e.port === url.port),
      );
    },
  };
}

/**
 * Where the embed posts its events: to the parent's origin when the browser tells it and it is
 * allowed; when it is unknown, to each exact allowed origin (the browser delivers only to the one the
 * parent really has). A wildcard is never a target: postMessage takes one origin, not a pattern.
 */
export function postTargets(parentOrigin: string | undefined, allowed: AllowedOrigins): readonly string[] {
  if (parentOrigin !== undefined) return allowed.matches(parentOrigin) ? [parentOrigin] : [];
  return allowed.exact;
}
