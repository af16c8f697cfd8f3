import { pathProblem } from '@svc-embed/protocol';
import type { AnyEventDetail } from '@svc-embed/protocol';
import { resolveEmbedUrl } from './embed-url.js';
import type { SvcRenewalFailedReason } from './events.js';
import { DEFAULT_TIMEOUT, MAX_TIMEOUT } from './limits.js';
import { provide, spend, spent, SPENT_ANSWER, tag } from './provider.js';
import type { Answer } from './provider.js';
import type { EmbedSession, Ready } from './session.js';

/**
 * The renewal ahead of expiry, beside the load lifecycle (session.ts), over that session's state. It runs beside
 * `ready` and never changes it (no `svc-status`):
 *
 * | ahead | on | to |
 * |---|---|---|
 * | none | `ready` with a provider and a known expiry of more than 5 s: the renewal time (see `schedule`; a retry's, if later) | `asking`: the provider (`ahead`), a call of this element's own |
 * | `asking` | a session | `behind`: its frame loads under the visible one, rendered but covered by it, and inert |
 * | `behind` | that frame says ready | `restoring`: the state, and a navigation to the visible frame's path, are sent to it |
 * | `restoring` | it shows the visible frame's path: it viewed that path (any path, when there is none) and, on the `dashboard` surface, then said `dashboard-loaded`; `app` and `chat` have no such event, and show it at the view (at ready, when there is no path); from the last moment (2 s before expiry), the view is enough | `waiting`: until the viewer is not busy (see `busy`), or the last moment |
 * | `waiting` | the viewer is not busy, or the last moment | `painting`: two animation frames of the host (none while the page is hidden), counted from the latest such event |
 * | `painting` | the frames passed, and it still shows the viewer's path | the swap, in one task: it becomes the visible frame, the old one goes, `svc-ready` fires; none |
 * | `restoring`, `painting` | the visible frame moved on | `restoring`, navigated again |
 * | `asking`, `behind`, `restoring`, `waiting`, `painting` | the provider fails, hangs or gives a bad or spent session; the frame behind does not show the path within the ready timeout (or twice the render time, when longer); it reports any error | none: the frame behind goes, `svc-session-renewal-failed`, a retry in 5 s, 10 s, 20 s … while the session lasts |
 * | any | leaving `ready` (a host change, disconnection, `renewSession()`, a fatal error) | none, with no schedule |
 *
 */

/**
 * A renewal ahead of expiry: its session once there is one (its frame is `behind`), its ready, the path sent to it,
 * the path it last viewed, whether it reported `dashboard-loaded` since, and the swap that waits for a paint.
 */
export interface Ahead {
  answer?: NonNullable<Answer>;
  ready?: Ready;
  path?: string;
  seen?: string;
  loaded?: boolean;
  swap?: () => void;
  /** When its frame was made (`performance.now()`), to measure its render; when its session was asked for (epoch ms). */
  made?: number;
  asked?: number;
}

/** The last moment: past it, the swap waits neither for the viewer nor for the dashboard's widgets. */
const LAST = 2000;

/**
 * Schedules the renewal ahead of expiry, while `ready` and connected, with a provider and a known expiry: at the
 * later of 80 % of the lifetime known at load and 60 s before expiry, never later than 5 s before it, nor later than
 * 10 s plus twice the time the visible frame took to render before it; never sooner than 5 s after the load (a
 * session of 5 s or less is not renewed ahead: it warns once); after a failed attempt, not before its retry's time;
 * and only while that is before expiry. Past expiry, the embed's fatal session error renews as it always did. Derived
 * from the inputs each time: deriving it again changes nothing.
 */
export function schedule(s: EmbedSession): void {
  if (s._ahead || s._state !== 'ready') return;
  clearTimeout(s._timer);
  const host = s._host;
  const expiresAt = s._expiresAt();
  if (!host.isConnected || !s._provider() || !expiresAt) return;
  const loaded = s._loadedAt;
  if (expiresAt - loaded <= 5000) {
    // (One that had expired when it loaded is no short session: the embed's fatal session error renews it.)
    if (!s._short && expiresAt > loaded) console.warn(`${tag}: a session of 5 s or less is not renewed ahead`);
    return void (s._short ||= expiresAt > loaded);
  }
  const at = Math.max(
    s._retryAt,
    loaded + 5000,
    Math.min(
      Math.max(loaded + 0.8 * (expiresAt - loaded), expiresAt - 60000),
      expiresAt - 5000,
      expiresAt - 10000 - 2 * s._rendered,
    ),
  );
  // Past expiry (or an expiry in seconds read as milliseconds, in 1970), the embed's fatal session error renews.
  if (Math.max(at, Date.now()) >= expiresAt) return;
  // A timer fires at once past 2^31 - 1 ms: a longer wait is done in steps.
  s._timer = setTimeout(() => (Date.now() < at ? schedule(s) : renewAhead(s)), Math.min(at - Date.now(), MAX_TIMEOUT));
}

/**
 * Asks for the next session ahead of expiry; each wait (the provider's, the frame's) is bounded by `bound()`, the
 * frame's by twice the visible frame's render time when that is longer. A spent answer is never loaded.
 */
function renewAhead(s: EmbedSession) {
  // The new session's life begins when it is asked for: its lifetime and the 5 s floor count from then.
  const ahead: Ahead = (s._ahead = { asked: Date.now() });
  const fail = (reason: SvcRenewalFailedReason, message?: string) => () =>
    s._ahead === ahead && failed(s, reason, message);
  const bounded = (reason: SvcRenewalFailedReason, ms: number) => (s._timer = setTimeout(fail(reason), ms));
  bounded('provider-timeout', bound(s));
  const view = s._host.ownerDocument.defaultView;
  const to = s._target();
  provide(s._provider()!, 'ahead', to).then((answer) => {
    if (s._ahead !== ahead) return;
    // A session of another origin, or one a frame of the app loaded already, is never loaded.
    if (!answer || to.origin !== s.origin) return fail('invalid-session')();
    if (spent(view, to.origin, answer.session)) return fail('invalid-session', SPENT_ANSWER)();
    ahead.answer = answer;
    // The host's URL, which is valid while ready, with the new session: same origin.
    const frame = (s.behind = s._make((resolveEmbedUrl(s._host, answer.session) as { url: string }).url));
    // Under the visible frame, at its size (the element's style sheet places an inert frame), and inert: out of
    // the focus order and the accessibility tree. Never hidden: a frame that is not rendered is not painted (and
    // browsers throttle it), so at the swap the viewer would see its first paint.
    frame.inert = true;
    ahead.made = performance.now();
    s._host.renderRoot.append(frame);
    spend(view, to.origin, answer.session);
    clearTimeout(s._timer);
    bounded('ready-timeout', Math.max(bound(s), 2 * s._rendered));
  }, fail('provider-error'));
}

/** The bound of a wait for the provider, or for a renewal ahead's frame: the ready timeout, or 15 s when it is 0. */
export function bound(s: EmbedSession) {
  return s.timeout() || DEFAULT_TIMEOUT;
}

/**
 * An event of the frame behind: its ready, its view of the viewer's path and its loaded dashboard lead to the swap.
 * Any error it reports (a query that failed, too) fails the attempt: it is never swapped in.
 */
export function behindEvent(s: EmbedSession, detail: AnyEventDetail) {
  const ahead = s._ahead!;
  const { type } = detail;
  if (type === 'svc:event:ready') {
    ahead.ready = detail;
    s._flush(s.behind);
    follow(s);
  } else if (type === 'svc:event:error') return failed(s, detail.payload.fatal ? 'embed-fatal-error' : 'embed-error');
  else if (!ahead.ready) return;
  else if (type === 'svc:event:view') {
    ahead.seen = detail.payload.path;
    ahead.loaded = false;
  } else if (type === 'svc:event:dashboard-loaded') {
    ahead.loaded = ahead.seen !== undefined;
    s._rendered = Math.max(s._rendered, performance.now() - ahead.made!);
  }
  ripe(s);
}

/**
 * Whether the viewer is busy in the visible frame, which a swap would disturb (it cannot carry what the protocol does
 * not: a half-typed question, a chat's transcript, the scroll position): focus is in the frame, the viewer navigated,
 * drilled down, downloaded or asked the AI in the last 5 s, or a chat conversation is open.
 */
const busy = (s: EmbedSession) =>
  (s._host.renderRoot as ShadowRoot).activeElement === s.frame || performance.now() - s._touched < 5000;

/**
 * The swap, once the frame behind shows what the viewer sees, the viewer is not busy, and the host has painted twice
 * since (so has the frame behind, under the visible one). It shows it when it is ready (with the state sent) and on
 * the viewer's path (any, when there is none to restore), and on the `dashboard` surface, has its widgets rendered
 * there. From the last moment (2 s before expiry), neither the widgets nor the viewer are waited for: a loading widget
 * is better than an expired embed.
 */
export function ripe(s: EmbedSession) {
  const ahead = s._ahead!;
  const late = () => Date.now() >= s._expiresAt()! - LAST;
  const shows = () => {
    const path = s._path && !pathProblem(s._path) ? s._path : undefined;
    return (
      ahead.ready &&
      (!path || ahead.seen === path) &&
      (ahead.ready.payload.surface != 'dashboard' || ahead.loaded || late())
    );
  };
  clearTimeout(s._poll);
  if (!ahead.ready) return;
  // Until it shows the viewer's place, the frame behind's bound runs; then it waits for the viewer, or the last moment.
  if (shows()) clearTimeout(s._timer);
  if (!shows() || (busy(s) && !late())) return void (s._poll = setTimeout(() => s._ahead === ahead && ripe(s), 1000));
  // Only the latest: the two frames count from the last event that made it show the viewer's place.
  const go = () => ahead.swap === go && s._ahead === ahead && shows() && swap(s);
  painted(s._host, (ahead.swap = go));
}

/**
 * Calls `go` once the host has painted twice (a frame revealed at once can still show its old picture). A hidden page
 * paints nothing, and its animation frames wait until it is shown: nobody sees it, so `go` runs at once.
 */
export function painted(host: Element, go: () => void) {
  const doc = host.ownerDocument;
  const view = doc.defaultView;
  if (!view || doc.hidden) go();
  else view.requestAnimationFrame(() => view.requestAnimationFrame(go));
}

/** Navigates the frame behind, once it is ready, to the visible frame's path, unless it was sent there already. */
export function follow(s: EmbedSession) {
  const ahead = s._ahead;
  const path = s._path;
  if (!ahead?.ready || !path || ahead.path === path || pathProblem(path)) return;
  ahead.path = path;
  s._post('svc:action:navigate', { path }, s.behind);
}

/** The frame behind becomes the visible one, in one task: `status` stays `ready`; `svc-ready` fires for it. */
function swap(s: EmbedSession) {
  const { answer, ready, asked } = s._ahead!;
  const old = s.frame!;
  const frame = s.behind;
  cancel(s, true);
  s._adopt(answer!);
  s.frame = s._shown = frame;
  s._win = frame!.contentWindow!;
  s._readyDetail = ready;
  frame!.inert = false;
  // A part only now: a host's ::part(frame) rule must not show the frame behind, or move it.
  frame!.setAttribute('part', 'frame');
  old.remove();
  s._session = answer!.session;
  s._reused = false;
  s._loadedAt = asked!;
  s._touched = s._failures = s._retryAt = 0;
  schedule(s);
  s._emit('svc-ready', ready!);
}

/** A renewal ahead failed: nothing changes on screen; a retry after 5 s, 10 s, 20 s … while the session lasts. */
function failed(s: EmbedSession, reason: SvcRenewalFailedReason, message?: string) {
  cancel(s);
  const attempt = ++s._failures;
  s._log('renewal failed', attempt, reason);
  s._retryAt = Date.now() + 5000 * 2 ** (attempt - 1);
  schedule(s);
  s._emit('svc-session-renewal-failed', { attempt, reason, expiresAt: s._expiresAt(), ...(message && { message }) });
}

/**
 * Ends a renewal ahead of expiry: its frame goes (unless it is `kept`, at the swap), and its provider's answer is
 * ignored (its timer: the caller's).
 */
export function cancel(s: EmbedSession, kept?: boolean) {
  if (!kept) s.behind?.remove();
  clearTimeout(s._poll);
  s._ahead = s.behind = undefined;
}
