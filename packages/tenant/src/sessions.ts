// The embed session rules of the simulated tenant (documented in docs/tenant.md, "Sessions"):
//   absent                          private mode
//   expired                         expired
//   demo-<tenant>-exp<T>-x<X>-<n>-<mac>
//                                   minted by this tenant (mint, POST /api/v1/embed/sessions): signed for <tenant>
//                                   until <T>, to be exchanged before <X> (Unix times in ms); the MAC, with a key made
//                                   at start-up, proves all of it. Single-use unless the tenant runs with
//                                   reusableSessions: the embed's bootstrap exchanges it for a token (see check),
//                                   and any later load that presents it is refused as used
//   demo-<tenant>-ttl<N>[-<rest>]   signed for <tenant>, valid N seconds from the first time the tenant sees it
//   demo-<tenant>[-<rest>]          signed for <tenant>
//   anything else, or repeated      invalid
// An expired session stays refused whatever else happens: a minted one carries its own end, and the clock of a
// ttl session is never forgotten (past MAX_TRACKED of them, new ttl sessions are refused instead). A used minted
// session is remembered until its end; forgetting it then cannot revive it, since the tenant's clock never goes
// back and the end it carries has passed.

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sessionProblem } from '@svc-embed/protocol';

/** A session the rules accept: private (no session), or signed for an embed tenant. */
export interface ValidSession {
  readonly ok: true;
  readonly mode: 'private' | 'signed';
  readonly embedTenant: string | null;
  /** A ttl session's lifetime, from the first time the tenant sees it. */
  readonly ttlMs?: number;
  /** What is left of a session that ends. */
  readonly expiresInMs?: number;
  /**
   * Set by `check` for a minted session: what the embed's document presents on its later API calls (an
   * `Authorization: Bearer` header) in place of the session, until the session's end.
   */
  readonly token?: string;
}

/** A session the rules refuse, with the error name and message the embed API answers with. */
export interface RefusedSession {
  readonly ok: false;
  readonly name: 'SessionExpiredError' | 'InvalidSessionError' | 'SessionUsedError';
  readonly message: string;
}

/** What the session rules make of the session values of a request. */
export type SessionResult = ValidSession | RefusedSession;

/** One tenant's sessions (see {@link createSessions}). */
export interface Sessions {
  /**
   * The rules for an embed load (the bootstrap). A minted session is exchanged: the first load within its exchange
   * window gets a token, and, unless sessions are reusable, any later load is refused as used. With
   * `commit: false`, the outcome is only told, and nothing is spent.
   */
  check(raw: readonly string[], options?: { commit?: boolean }): SessionResult;
  /**
   * The rules for an API call that presents a session in its URL (a query, a question). A minted single-use session
   * is refused there: the embed's document presents the token its exchange gave.
   */
  checkCall(raw: readonly string[]): SessionResult;
  /** The rules for a token that the exchange of a minted session gave. */
  checkToken(token: string): SessionResult;
  /**
   * A session for `embedTenant` that ends `ttlSeconds` from now, whatever happens meanwhile, and that must be
   * exchanged within `exchangeSeconds` (default {@link DEFAULT_EXCHANGE_SECONDS}) from now.
   */
  mint(
    embedTenant: string,
    ttlSeconds: number,
    exchangeSeconds?: number,
  ): { session: string; expiresAt: number; exchangeBy: number };
  /** How many used minted sessions the tenant remembers now (each until its end). */
  readonly usedCount: number;
}

const EXPIRED: RefusedSession = {
  ok: false,
  name: 'SessionExpiredError',
  message: 'The embed session has expired. Ask the host application for a new session.',
};
const LAPSED: RefusedSession = {
  ...EXPIRED,
  message:
    'The embed session has expired: it was not used within its exchange window. Ask the host application for a new session.',
};
const USED: RefusedSession = {
  ok: false,
  name: 'SessionUsedError',
  message:
    'The embed session was already used: a session is single-use, and another embed load exchanged it. Ask the host application for a new session for each embed.',
};
const INVALID: RefusedSession = { ok: false, name: 'InvalidSessionError', message: 'The embed session is not valid.' };
const NOT_EXCHANGED: RefusedSession = {
  ...INVALID,
  message:
    "The embed session is not valid here: a minted session is exchanged by the embed's bootstrap, and the API takes the token it gives.",
};
const TTL = /^demo-([A-Za-z0-9]{1,32})-ttl([0-9]{1,5})(?:-[A-Za-z0-9_-]{1,40})?$/;
const MINTED = /^demo-([a-z0-9]{1,32})-exp([0-9]{13})-x([0-9]{13})-([0-9a-f]{12})-([A-Za-z0-9_-]{32})$/;
const TOKEN = /^tok-([a-z0-9]{1,32})-exp([0-9]{13})-([0-9a-f]{12})-([A-Za-z0-9_-]{32})$/;
/** An embed tenant's name in a session: letters and digits. */
export const EMBED_TENANT = /^[A-Za-z0-9]{1,32}$/;
const PLAIN = /^demo-([A-Za-z0-9]{1,32})(?:[-_][A-Za-z0-9_-]{0,40})?$/;
/** A day: longer than any demo needs, and a bound on what a session id can ask for. */
export const MAX_TTL_SECONDS = 86400;
/** The longest exchange window of a minted session, and its default: 5 minutes, as the service's. */
export const MAX_EXCHANGE_SECONDS = 300;
export const DEFAULT_EXCHANGE_SECONDS = MAX_EXCHANGE_SECONDS;
/**
 * The clock of each ttl session lives in memory, and is never dropped: a dropped clock would start again, and the
 * expired session would come back. Beyond this many, a ttl session the tenant has not seen is refused.
 */
export const MAX_TRACKED = 10000;
/**
 * Used minted sessions are remembered until their end, and never before: a session forgotten early could be loaded
 * again. Beyond this many at once, a minted session that has not been used is refused instead (fail closed).
 */
export const MAX_USED = 100000;
/** Expired used sessions are swept at most this often, unless the memory of used sessions is full. */
const SWEEP_MS = 10_000;

/** Parses a session id into its rules (no clock involved). `raw` is the list of values the URL gave. */
export function parseSession(raw: readonly string[]): SessionResult {
  if (raw.length === 0) return { ok: true, mode: 'private', embedTenant: null };
  if (raw.length > 1) return { ...INVALID, message: 'The embed session is not valid: it was given more than once.' };
  const [value] = raw;
  // A session the element refuses (a control character, a lone surrogate) is refused here too.
  if (sessionProblem(value)) return INVALID;
  if (value === 'expired') return EXPIRED;
  // A minted session is checked against the key of the tenant that made it (Sessions.check); the rules alone
  // cannot tell it from a forgery, and it is not a plain session either.
  if (/^demo-[A-Za-z0-9]{1,32}-exp/.test(value)) return INVALID;
  const ttl = TTL.exec(value);
  if (ttl) {
    const seconds = Number(ttl[2]);
    if (seconds < 1 || seconds > MAX_TTL_SECONDS) return INVALID;
    return { ok: true, mode: 'signed', embedTenant: ttl[1].toLowerCase(), ttlMs: seconds * 1000 };
  }
  // "demo-acme-ttl" with no usable number is not a plain session that never expires.
  if (/^demo-[A-Za-z0-9]{1,32}-ttl/.test(value)) return INVALID;
  const plain = PLAIN.exec(value);
  return plain ? { ok: true, mode: 'signed', embedTenant: plain[1].toLowerCase() } : INVALID;
}

/**
 * One tenant's sessions. A minted session is valid until the end it carries, if its MAC is this tenant's; it is
 * exchanged by the first load within its exchange window (`exchange`), and is single-use unless `reusable`. A ttl
 * session's clock starts on first sight (the embed's bootstrap), and the session is refused once its time is up, on
 * every endpoint. A valid session that ends also carries `expiresInMs`.
 */
export function createSessions({
  now = () => Date.now(),
  maxTracked = MAX_TRACKED,
  maxUsed = MAX_USED,
  reusable = false,
}: { now?: () => number; maxTracked?: number; maxUsed?: number; reusable?: boolean } = {}): Sessions {
  const key = randomBytes(32);
  // Sessions and tokens are signed apart, so that neither can pass for the other.
  const mac = (...parts: string[]) =>
    createHmac('sha256', key).update(parts.join('.')).digest('base64url').slice(0, 32);
  const signed = (given: string, expected: string) => timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  // The tenant's clock never goes back, even if the system's does: a used session is forgotten once its end has
  // passed on this clock, and is refused as expired from then on.
  let latest = -Infinity;
  const clock = () => (latest = Math.max(latest, now()));
  const firstSeen = new Map<string, number>();
  /** Used minted sessions (by their MAC), each with its end. */
  const used = new Map<string, number>();
  let earliestEnd = Infinity;
  let lastSweep = -Infinity;

  /** Forgets the used sessions that have ended; cheap to call, since it sweeps only when one can have ended. */
  function sweep(t: number): void {
    if (t < earliestEnd || (t < lastSweep + SWEEP_MS && used.size < maxUsed)) return;
    lastSweep = t;
    earliestEnd = Infinity;
    for (const [id, end] of used) {
      if (end <= t) used.delete(id);
      else earliestEnd = Math.min(earliestEnd, end);
    }
  }

  /** A minted session's signature and end; `undefined` when `raw` is not one. */
  function minted(raw: readonly string[]) {
    const m = raw.length === 1 ? MINTED.exec(raw[0]) : null;
    if (!m) return undefined;
    const [, tenant, exp, by, nonce, given] = m;
    if (!signed(given, mac('session', tenant, exp, by, nonce))) return INVALID;
    const t = clock();
    const left = Number(exp) - t;
    if (left <= 0) return EXPIRED;
    return { tenant, nonce, id: given, end: Number(exp), exchangeBy: Number(by), left, t };
  }

  function checkCall(raw: readonly string[]): SessionResult {
    const m = minted(raw);
    if (m && !('id' in m)) return m;
    if (m) {
      if (!reusable) return used.has(m.id) ? USED : NOT_EXCHANGED;
      return { ok: true, mode: 'signed', embedTenant: m.tenant, expiresInMs: m.left };
    }
    const s = parseSession(raw);
    if (!s.ok || s.ttlMs === undefined) return s;
    const id = raw[0];
    let start = firstSeen.get(id);
    if (start === undefined) {
      if (firstSeen.size >= maxTracked) {
        return {
          ...INVALID,
          message: `The embed session is not valid: the tenant keeps the clocks of ${maxTracked} ttl sessions, and has no room for another. Use a minted session (POST /api/v1/embed/sessions), or restart the tenant.`,
        };
      }
      start = clock();
      firstSeen.set(id, start);
    }
    const left = start + s.ttlMs - clock();
    return left > 0 ? { ...s, expiresInMs: left } : EXPIRED;
  }

  return {
    checkCall,
    check(raw, { commit = true } = {}) {
      const m = minted(raw);
      if (!m) return checkCall(raw);
      if (!('id' in m)) return m;
      const valid = {
        ok: true,
        mode: 'signed',
        embedTenant: m.tenant,
        expiresInMs: m.left,
        token: `tok-${m.tenant}-exp${String(m.end).padStart(13, '0')}-${m.nonce}-${mac('token', m.tenant, String(m.end), m.nonce)}`,
      } as const;
      if (used.has(m.id)) return reusable ? valid : USED;
      if (m.t >= m.exchangeBy) return LAPSED;
      sweep(m.t);
      if (used.size >= maxUsed) {
        return {
          ...INVALID,
          message: `The embed session is not valid: the tenant remembers ${maxUsed} used sessions until they end, and has no room for another. Try again once some have ended, or restart the tenant.`,
        };
      }
      if (commit) {
        used.set(m.id, m.end);
        earliestEnd = Math.min(earliestEnd, m.end);
      }
      return valid;
    },
    checkToken(token) {
      const m = TOKEN.exec(token);
      if (!m) return INVALID;
      const [, tenant, exp, nonce, given] = m;
      if (!signed(given, mac('token', tenant, String(Number(exp)), nonce))) return INVALID;
      const left = Number(exp) - clock();
      return left > 0 ? { ok: true, mode: 'signed', embedTenant: tenant, expiresInMs: left } : EXPIRED;
    },
    mint(embedTenant, ttlSeconds, exchangeSeconds = DEFAULT_EXCHANGE_SECONDS) {
      const tenant = embedTenant.toLowerCase();
      const t = Math.floor(clock());
      const exp = String(t + ttlSeconds * 1000).padStart(13, '0');
      const by = String(t + exchangeSeconds * 1000).padStart(13, '0');
      // A random part of its own: two sessions minted in the same millisecond are two sessions.
      const nonce = randomBytes(6).toString('hex');
      return {
        session: `demo-${tenant}-exp${exp}-x${by}-${nonce}-${mac('session', tenant, exp, by, nonce)}`,
        expiresAt: Number(exp),
        exchangeBy: Number(by),
      };
    },
    get usedCount() {
      return used.size;
    },
  };
}
