// The embed session rules of the simulated tenant (documented in the README's session table):
//   absent                          private mode
//   expired                         expired
//   demo-<tenant>-ttl<N>[-<rest>]   signed for <tenant>, valid N seconds from the first time the tenant sees it
//   demo-<tenant>[-<rest>]          signed for <tenant>
//   anything else, or repeated      invalid

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
}

const EXPIRED: RefusedSession = {
  ok: false,
  name: 'SessionExpiredError',
  message: 'The embed session has expired. Ask the host application for a new session.',
};
const INVALID: RefusedSession = { ok: false, name: 'InvalidSessionError', message: 'The embed session is not valid.' };
const TTL = /^demo-([A-Za-z0-9]{1,32})-ttl([0-9]{1,5})(?:-[A-Za-z0-9_-]{1,40})?$/;
const PLAIN = /^demo-([A-Za-z0-9]{1,32})(?:[-_][A-Za-z0-9_-]{0,40})?$/;
/** A day: longer than any demo needs, and a bound on what a session id can ask for. */
export const MAX_TTL_SECONDS = 86400;
// The clock of each ttl session lives in memory; old entries go first beyond this many.
const MAX_TRACKED = 10000;

/** Parses a session id into its rules (no clock involved). `raw` is the list of values the URL gave. */
export function parseSession(raw: readonly string[]): SessionResult {
  if (raw.length === 0) return { ok: true, mode: 'private', embedTenant: null };
  if (raw.length > 1) return { ...INVALID, message: 'The embed session is not valid: it was given more than once.' };
  const [value] = raw;
  // A session the element refuses (a control character, a lone surrogate) is refused here too.
  if (sessionProblem(value)) return INVALID;
  if (value === 'expired') return EXPIRED;
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
 * One tenant's sessions: `check(raw)` applies the rules and, for a ttl session, starts its clock on
 * first sight (the embed's bootstrap) and refuses it once the time is up, on every endpoint.
 * A valid ttl session also carries `expiresInMs`, what is left of it.
 */
export function createSessions({ now = () => Date.now() }: { now?: () => number } = {}): Sessions {
  const firstSeen = new Map<string, number>();
  return {
    check(raw) {
      const s = parseSession(raw);
      if (!s.ok || s.ttlMs === undefined) return s;
      const id = raw[0];
      let start = firstSeen.get(id);
      if (start === undefined) {
        start = now();
        firstSeen.set(id, start);
        if (firstSeen.size > MAX_TRACKED) firstSeen.delete(firstSeen.keys().next().value!);
      }
      const left = start + s.ttlMs - now();
      return left > 0 ? { ...s, expiresInMs: left } : EXPIRED;
    },
  };
}
