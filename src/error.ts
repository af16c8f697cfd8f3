import type { SvcStatusReason } from './events.js';

/** The brand every copy of the class puts on its errors: a registered symbol is the same in every copy and realm. */
const BRAND = Symbol.for('svc-embed.error');

/**
 * What `whenReady()` and `renewSession()` reject with, and what `svc-status` reports as `reason` and `message`
 * when the element reaches `error`. `reason` is a stable code; the message is for people and never holds the
 * embed URL or a session. `instanceof SvcEmbedError` holds for the errors of every copy of this library on a page
 * (two bundles, or a bundle and the npm build): it checks a brand, not the prototype chain.
 */
export class SvcEmbedError extends Error {
  static override [Symbol.hasInstance](value: unknown): boolean {
    return !!(value as Record<symbol, unknown> | null)?.[BRAND];
  }

  override name = 'SvcEmbedError' as const;
  /** A stable code (see {@link SvcStatusReason}). */
  reason: SvcStatusReason;

  constructor(reason: SvcStatusReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
(SvcEmbedError.prototype as unknown as Record<symbol, boolean>)[BRAND] = true;
