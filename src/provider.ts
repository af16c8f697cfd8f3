import { sessionProblem } from '@svc-embed/protocol';
import type { SvcSessionProvider, SvcSessionReason } from './events.js';

/** The element's name in every message it writes. */
export const tag = '<svc-embed>';

/**
 * An expiry as epoch milliseconds, from epoch milliseconds, a `Date` or a date-time string (ISO 8601; the attribute's
 * text may also be epoch milliseconds). `undefined` when there is none, or when it is not one: then `what` is warned
 * of (unless it is `false`), and the expiry counts as unknown.
 */
export function expiryOf(value: unknown, what: string | false): number | undefined {
  if (value == null || value === '') return;
  // Other types read as whatever Date makes of them: NaN, or a time long past (which schedules nothing).
  const at = +new Date(typeof value == 'string' && /^\d+$/.test(value) ? +value : (value as string));
  if (at === at) return at;
  if (what) console.warn(`${tag}: ignoring ${what}: must be epoch milliseconds, an ISO 8601 date-time or a Date`);
}

/** A provider's answer, checked: a well-formed session and its expiry (`undefined` when unknown), or undefined. */
export type Answer = { session: string; expiresAt?: number } | undefined;

/** Asks the provider (at once; a throw is a rejection), and checks its answer. */
export function provide(provider: SvcSessionProvider, reason: SvcSessionReason): Promise<Answer> {
  return new Promise((resolve) => resolve(provider({ reason }))).then((given) => {
    // A string is the session itself (it has no `session` of its own); anything else answers `{ session, expiresAt }`.
    const { session = given, expiresAt } = Object(given) as Record<string, unknown>;
    if (!sessionProblem(session))
      return { session: session as string, expiresAt: expiryOf(expiresAt, "the provider's expiresAt") };
  });
}

/**
 * The session values that a frame of the document has loaded. The service's sessions are single-use: the first load
 * spends one, so no frame is given one of these while a provider can give a new one. Kept on the document under a
 * registered symbol, so that two copies of the element on one page know what the other spent.
 */
const SPENT = Symbol.for('svc-embed.spent');
export const spentIn = (doc: Document) => ((doc as unknown as Record<symbol, Set<string>>)[SPENT] ??= new Set());
