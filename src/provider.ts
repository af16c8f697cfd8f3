import { sessionProblem } from '@svc-embed/protocol';
import type { SvcSessionProvider, SvcSessionReason, SvcSessionRequest } from './events.js';

/** The element's name in every message it writes. */
export const tag = '<svc-embed>';

const HOUR = 3600000;

/**
 * An expiry as epoch milliseconds: from epoch milliseconds, a `Date` or a date-time string (ISO 8601; the attribute's
 * text may also be epoch milliseconds), or with `seconds`, from a number of seconds from now (`expiresIn`). `undefined`
 * when there is none, or when it is not one. Unless `what` is `false`, what is wrong is warned of, naming `what`: not a
 * time (then the expiry counts as unknown), a number that reads as Unix seconds, a time already past or more than 48 h
 * away by this device's clock (a clock that is off: `expiresIn` is right whatever it says).
 */
export function expiryOf(value: unknown, what: string | false, seconds?: boolean): number | undefined {
  if (value == null || value === '') return;
  const now = Date.now();
  const number = typeof value == 'string' && /^\d+$/.test(value) ? +value : value;
  // Other types read as whatever Date makes of them: NaN, or a time long past (which schedules nothing).
  const at = seconds
    ? typeof value == 'number' && value >= 0
      ? now + value * 1000
      : NaN
    : +new Date(number as string);
  const warn = (problem: string) => what && console.warn(`${tag}: ${what} ${problem}`);
  if (at !== at)
    return void warn(
      seconds
        ? 'ignored: must be a number of seconds from now'
        : 'ignored: must be epoch milliseconds, an ISO 8601 date-time or a Date',
    );
  if (!seconds && typeof number == 'number' && number < 1e11)
    warn(`${number} reads as Unix seconds: it takes epoch milliseconds`);
  else if (at <= now || at > now + 48 * HOUR)
    warn(`is ${at <= now ? 'already past' : 'over 48 h away'} by this device's clock: use expiresIn (seconds)`);
  return at;
}

/** A provider's answer, checked: a well-formed session and its expiry (`undefined` when unknown), or undefined. */
export type Answer = { session: string; expiresAt?: number } | undefined;

/** What a provider call is for: the origin its answer may be loaded on, the surface and the dashboard. */
export type Target = Omit<SvcSessionRequest, 'reason'>;

/** The target of an embed URL (one `resolveEmbedUrl` accepted): `/embed/{surface}/{publicId}`. */
export function target(url: string): Target {
  const { origin, pathname } = new URL(url);
  const [, , surface = '', publicId] = pathname.split('/').map(decodeURIComponent);
  return surface == 'dashboard' && publicId ? { origin, surface, publicId } : { origin, surface };
}

/** Asks the provider (at once; a throw is a rejection), and checks its answer. */
export function provide(provider: SvcSessionProvider, reason: SvcSessionReason, to: Target): Promise<Answer> {
  return new Promise((resolve) => resolve(provider({ reason, ...to }))).then((given) => {
    // A string is the session itself (it has no `session` of its own); anything else answers `{ session, expiresAt }`.
    const { session = given, expiresAt, expiresIn } = Object(given) as Record<string, unknown>;
    if (!sessionProblem(session))
      return {
        session: session as string,
        expiresAt:
          expiresIn != null
            ? expiryOf(expiresIn, "the provider's expiresIn", true)
            : expiryOf(expiresAt, "the provider's expiresAt"),
      };
  });
}

/** A spent answer: never loaded (the service refuses a session's second load). */
export const SPENT_ANSWER = `${tag}: the provider's session was already loaded (sessions are single-use)`;

/**
 * The sessions that a frame of the app has loaded, by a 32-bit digest of their origin and value (never the value:
 * a spent session is dead on the service, and a digest holds nothing of it), at most 1,000 of them, the oldest
 * forgotten first. The service's sessions are single-use: the first load spends one, so no frame is given one of these
 * while a provider can give a new one. Kept under a registered symbol on the app's topmost same-origin window (through
 * `opener` and `parent`), so that every copy of the element, in every same-origin window of the app (a pop-out, a
 * frame), knows what the others spent.
 */
const SPENT = Symbol.for('svc-embed.spent');
type Registry = Record<symbol, Set<number>>;

function spentIn(view: Window | null): Set<number> {
  let top = view;
  for (let depth = 0; top && depth < 9; depth++) {
    let next: Window | null;
    try {
      next = (top.opener as Window | null) ?? (top.parent !== top ? top.parent : null);
      // Reading a cross-origin window's document throws: the app's windows end there.
      if (!next || next.closed || !next.document) break;
    } catch {
      break;
    }
    top = next;
  }
  return (((top ?? globalThis) as unknown as Registry)[SPENT] ??= new Set());
}

/** FNV-1a over the origin and the session. */
function digest(origin: string, session: string) {
  const text = `${origin} ${session}`;
  let hash = 2166136261;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** Whether `session` was loaded on `origin` by a frame of the app. */
export const spent = (view: Window | null, origin: string, session: string) =>
  spentIn(view).has(digest(origin, session));

/** Records that a frame of the app loads `session` on `origin`. */
export function spend(view: Window | null, origin: string, session: string): void {
  const set = spentIn(view);
  set.add(digest(origin, session));
  if (set.size > 1000) set.delete(set.values().next().value!);
}
