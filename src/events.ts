import type { ActionPayloadMap, ActionType, EventDetail, EventRejection, EventType } from '@svc-embed/protocol';
import type { ConfigErrorReason } from './embed-url.js';

/** The `detail` of every re-dispatched embed event: the validated envelope, with a fresh payload. */
export interface SvcEventDetail<T extends EventType = EventType> extends EventDetail<T> {}

/** A DOM event re-dispatched by `<svc-embed>` for a validated embed event. */
export type SvcEvent<T extends EventType = EventType> = CustomEvent<SvcEventDetail<T>>;

/** Detail of `svc-message-rejected`: a message from the embed that failed validation and was not dispatched. */
export interface SvcMessageRejectedDetail extends EventRejection {}

/** Detail of `svc-config-error`: the embed URL was refused and no iframe was created. */
export interface SvcConfigErrorDetail {
  /** A stable code. */
  reason: ConfigErrorReason;
  /** A human-readable explanation (it never repeats the URL or the session). */
  message: string;
}

/** The element's `status`. */
export type SvcEmbedStatus = 'idle' | 'loading' | 'ready' | 'error';

/**
 * Why `status` changed, where a reason is given: on every change to `error`, and on the change to
 * `loading` that a session renewal makes. Codes are API; messages are not.
 */
export type SvcStatusReason =
  'config-error' | 'ready-timeout' | 'embed-fatal-error' | 'session-renewal' | 'session-renewal-failed' | 'setup-error';

/** Detail of `svc-status`. */
export interface SvcStatusDetail {
  status: SvcEmbedStatus;
  previous: SvcEmbedStatus;
  /** A stable code (see {@link SvcStatusReason}). */
  reason?: SvcStatusReason;
  /** A human-readable explanation. It never contains the URL or the session. */
  message?: string;
  /** With `ready-timeout`: whether the frame's `load` event fired. */
  frameLoaded?: boolean;
  /** With `ready-timeout`: how long the element waited. */
  elapsedMs?: number;
}

/** Detail of `svc-action`: the envelope that was posted to the embed, without `source` and `direction`. */
export type SvcActionDetail = {
  [T in ActionType]: { type: T; payload: ActionPayloadMap[T]; timestamp: number };
}[ActionType];

/** What a `sessionProvider` may answer besides the session id itself: the session with its expiry. */
export interface SvcSessionAnswer {
  session: string;
  /** When it expires: epoch milliseconds, an ISO 8601 date-time or a `Date`. */
  expiresAt?: number | string | Date;
  /**
   * When it expires, in seconds from now: unlike `expiresAt`, right whatever the viewer's clock says. Recommended;
   * with both, `expiresIn` wins.
   */
  expiresIn?: number;
}

/**
 * Why the element asks its `sessionProvider` for a session: `load`, a frame is about to load and no unused session is
 * at hand; `ahead`, a renewal ahead of expiry; `refused`, the embed reported a fatal session error; `manual`,
 * `renewSession()` without a session.
 */
export type SvcSessionReason = 'load' | 'ahead' | 'refused' | 'manual';

/** The one argument of a `sessionProvider` call: why, and for which embed (a host of several tenants answers for it). */
export interface SvcSessionRequest {
  reason: SvcSessionReason;
  /** The tenant origin the session will be loaded on; an answer is only ever loaded there. */
  origin: string;
  /** The surface of the embed URL: `dashboard`, `app` or `chat` (or the URL's first path segment after `/embed/`). */
  surface: string;
  /** The dashboard's public id, on the `dashboard` surface. */
  publicId?: string;
}

/**
 * Returns a fresh session from your backend, one per call: the session id, or `{ session, expiresAt }`. Each frame
 * loads a session of its own (the service's sessions are single-use).
 */
export type SvcSessionProvider = (request: SvcSessionRequest) => Promise<string | SvcSessionAnswer>;

/** Why a renewal ahead of expiry failed. Codes are API. */
export type SvcRenewalFailedReason =
  'provider-error' | 'provider-timeout' | 'invalid-session' | 'ready-timeout' | 'embed-error' | 'embed-fatal-error';

/** Detail of `svc-session-renewal-failed`: one failed attempt of a renewal ahead of expiry. It never holds a session. */
export interface SvcSessionRenewalFailedDetail {
  /** 1 for the first failure of this session's renewal, then 2, 3 … */
  attempt: number;
  reason: SvcRenewalFailedReason;
  /** The current session's expiry, in epoch milliseconds. */
  expiresAt: number;
  /** What was wrong, when there is more to say than the reason: a spent session's answer says it was already loaded. */
  message?: string;
}

/** Every DOM event `<svc-embed>` dispatches, by name. All bubble and are composed. */
export interface SvcEmbedEventMap {
  'svc-ready': SvcEvent<'svc:event:ready'>;
  'svc-view': SvcEvent<'svc:event:view'>;
  'svc-navigate': SvcEvent<'svc:event:navigate'>;
  'svc-dashboard-loaded': SvcEvent<'svc:event:dashboard-loaded'>;
  'svc-download': SvcEvent<'svc:event:download'>;
  'svc-drilldown': SvcEvent<'svc:event:drilldown'>;
  'svc-ai-query': SvcEvent<'svc:event:ai-query'>;
  'svc-error': SvcEvent<'svc:event:error'>;
  'svc-message-rejected': CustomEvent<SvcMessageRejectedDetail>;
  'svc-config-error': CustomEvent<SvcConfigErrorDetail>;
  'svc-status': CustomEvent<SvcStatusDetail>;
  'svc-action': CustomEvent<SvcActionDetail>;
  'svc-session-renewal-failed': CustomEvent<SvcSessionRenewalFailedDetail>;
}

declare global {
  // Typed listeners on elements, document and window: e.detail.payload.format needs no cast.
  interface GlobalEventHandlersEventMap extends SvcEmbedEventMap {}
}
