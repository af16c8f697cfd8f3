// The embed session rules of the simulated tenant (documented in docs/tenant.md, "Sessions"):
//   absent                          private mode
//   expired                         expired
//   demo-<tenant>-exp<T>-<n>-<mac> minted by this tenant (mint, POST /api/v1/embed/sessions): signed for <tenant>
//                                   until <T> (Unix time in ms); the MAC, with a key made at start-up, proves both
//   demo-<tenant>-ttl<N>[-<rest>]   signed for <tenant>, valid N seconds from the first time the tenant sees it
//   demo-<tenant>[-<rest>]          signed for <tenant>
//   anything else, or repeated      invalid
// An expired session stays refused whatever else happens: a minted one carries its own end, and the clock of a
// ttl session is never forgotten (past MAX_TRACKED of them, new ttl sessions are refused instead).

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { sessionProblem } from '@svc-embed/protocol';

/** A session the rules accept: private (no session), or signed for an embed tenant. */
export interface ValidSession {
  readonly ok: true;
  readonly mode: 'private' | 'signed';
  readonly embedTenant: string | null;
  /** A ttl session's lifetime, from the first time the tenant sees it. */
  readonly ttlMs?: number;
  /** What is left of a ttl session (set by `check`). */
  readonly expiresInMs?: number;
}

/** A session the rules refuse, with the error name and message the embed API answers with. */
export interface RefusedSession {
  readonly ok: false;
  readonly name: 'SessionExpiredError' | 'InvalidSessionError';
  readonly message: string;
}

/** What the session rules make of the session values of a request. */
export type SessionResult = ValidSession | RefusedSession;

/** One tenant's sessions (see {@link createSessions}). */
export interface Sessions {
  check(raw: readonly string[]): SessionResult;
  /** A session for `embedTenant` that ends `ttlSeconds` from now, whatever happens meanwhile. */
  mint(embedTenant: string, ttlSeconds: number): { session: string; expiresAt: number };
}

const EXPIRED: RefusedSession = {
  ok: false,
  name: 'SessionExpiredError',
  message: 'The embed session has expired. Ask the host application for a new session.',
};
const INVALID: RefusedSession = { ok: false, name: 'InvalidSessionError', message: 'The embed session is not valid.' };
const TTL = /^demo-([A-Za-z0-9]{1,32})-ttl([0-9]{1,5})(?:-[A-Za-z0-9_-]{1,40})?$/;
const MINTED = /^demo-([a-z0-9]{1,32})-exp([0-9]{13})-([0-9a-f]{12})-([A-Za-z0-9_-]{32})$/;
/** An embed tenant's name in a session: letters and digits. */
export const EMBED_TENANT = /^[A-Za-z0-9]{1,32}$/;
const PLAIN = /^demo-([A-Za-z0-9]{1,32})(?:[-_][A-Za-z0-9_-]{0,40})?$/;
/** A day: longer than any demo needs, and a bound on what a session id can ask for. */
export const MAX_TTL_SECONDS = 86400;
/**
 * The clock of each ttl session lives in memory, and is never dropped: a dropped clock would start again, and the
 * expired session would come back. Beyond this many, a ttl session the tenant has not seen is refused.
 */
export const MAX_TRACKED = 10000;

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
 * One tenant's sessions: `check(raw)` applies the rules. A minted session is valid until the end it carries, if its
 * MAC is this tenant's. A ttl session's clock starts on first sight (the embed's bootstrap), and the session is
 * refused once its time is up, on every endpoint. A valid session that ends also carries `expiresInMs`.
 */
export function createSessions({
  now = () => Date.now(),
  maxTracked = MAX_TRACKED,
}: { now?: () => number; maxTracked?: number } = {}): Sessions {
  const key = randomBytes(32);
  const mac = (tenant: string, exp: string, nonce: string) =>
    createHmac('sha256', key).update(`${tenant}.${exp}.${nonce}`).digest('base64url').slice(0, 32);
  const firstSeen = new Map<string, number>();
  return {
    check(raw) {
      const minted = raw.length === 1 ? MINTED.exec(raw[0]) : null;
      if (minted) {
        const [, tenant, exp, nonce, given] = minted;
        const expected = Buffer.from(mac(tenant, exp, nonce));
        if (!timingSafeEqual(Buffer.from(given), expected)) return INVALID;
        const left = Number(exp) - now();
        return left > 0 ? { ok: true, mode: 'signed', embedTenant: tenant, expiresInMs: left } : EXPIRED;
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
        start = now();
        firstSeen.set(id, start);
      }
      const left = start + s.ttlMs - now();
      return left > 0 ? { ...s, expiresInMs: left } : EXPIRED;
    },
    mint(embedTenant, ttlSeconds) {
      const tenant = embedTenant.toLowerCase();
      const exp = String(Math.floor(now()) + ttlSeconds * 1000).padStart(13, '0');
      // A random part of its own: two sessions minted in the same second are two sessions.
      const nonce = randomBytes(6).toString('hex');
      return { session: `demo-${tenant}-exp${exp}-${nonce}-${mac(tenant, exp, nonce)}`, expiresAt: Number(exp) };
    },
  };
}
