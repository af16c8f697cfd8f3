import type { SvcStatusReason } from './events.js';

/**
 * What `whenReady()` and `renewSession()` reject with, and what `svc-status` reports as `reason` and `message`
 * when the element reaches `error`. `reason` is a stable code; the message is for people and never holds the
 * embed URL or a session.
 */
export class SvcEmbedError extends Error {
  override name = 'SvcEmbedError' as const;
  /** A stable code (see {@link SvcStatusReason}). */
  reason: SvcStatusReason;

  constructor(reason: SvcStatusReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
