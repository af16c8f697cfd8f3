import { colorSchemeProblem, domEventName, filterProblem, localeProblem, pathProblem } from '@svc-embed/protocol';
import { sessionProblem, SOURCE, themeProblem } from '@svc-embed/protocol';
import { behindEvent, bound, cancel, follow, painted, schedule } from './renewal.js';
import type { Ahead } from './renewal.js';
import { provide, spend, spent, SPENT_ANSWER, tag, target } from './provider.js';
import type { Answer } from './provider.js';
import type { ActionType, AnyEventDetail } from '@svc-embed/protocol';
import { hostSession, resolveEmbedUrl } from './embed-url.js';
import { SvcEmbedError } from './error.js';
import type { EmbedUrlResult } from './embed-url.js';
import type {
  SvcEmbedEventMap,
  SvcEmbedStatus,
  SvcEventDetail,
  SvcSessionProvider,
  SvcSessionReason,
  SvcStatusDetail,
} from './events.js';
import { DEFAULT_TIMEOUT, MAX_TIMEOUT } from './limits.js';
import { FRAME, TITLE } from './frame.js';
import type { EmbedUrlInput } from './embed-url.js';
import type { ReactiveElement } from '@lit/reactive-element';

/**
 * The session lifecycle of `<svc-embed>`: every transition is in this file. The element (svc-embed.ts) is the public
 * surface and the message gate, and drives this class. Internal members are named with a leading `_`: the bundles
 * mangle those names (rollup.config.mjs), which renewal.ts shares. Every change of state goes through `_to`, which also does
 * what entering a state means (the timers, the status, the waiting promises, the schedule of the next renewal):
 *
 * | from | on | to |
 * |---|---|---|
 * | any | the host changes the resolved URL (at the assignment) | `pending` (`idle` when nothing is left to load): held commands and the path to restore are dropped (not those made while `idle`) |
 * | `pending` | Lit's update, with a provider and no session to load, or only a spent one (see `spent`) | `renewing` (`load`): no frame yet |
 * | `pending` | Lit's update | `idle` (no URL), `error` (`config-error`) or `loading` (a new frame) |
 * | any with a URL | `renewSession()` (`manual`), a fatal session error with a provider (`refused`) | `renewing`: the gate closes, the old frame stays on view |
 * | `renewing` | `load`: connected (and near the viewport with `lazy`) | `renewing`: the provider is asked |
 * | `renewing` | a session (given, or from the provider, unless spent on the origin asked for) | `pending`, with that session standing in for the host's, loaded as given |
 * | `renewing` | the provider answers a spent session | `renewing`, asked once more; a second spent answer: `error` (`session-renewal-failed`) |
 * | `renewing` | the provider fails, returns a bad session, or outlasts the ready timeout, while connected | `error` (`session-renewal-failed`); for a load, a retry in 5 s, 10 s, 20 s … (≤ 5 min), during which a late answer is still taken |
 * | `renewing` | the same, while detached | `renewing`: the provider is asked again at connection |
 * | `error`, waiting to retry a load | the retry's time, or re-insertion | `renewing` (`load`) |
 * | `loading`, `error` | the current frame says ready, and the load must show a path (see `_goal`) | `holding`: the state, the navigation to that path and the held commands are sent; the status stays `loading`, over an opaque cover, and the ready timer runs on |
 * | `loading`, `ready`, `error` | the current frame says ready (no path to show) | `ready`: the state and the held commands are sent |
 * | `holding` | the frame viewed the path (a navigation meanwhile changes it) and drew it (`dashboard-loaded` or `error` since, else 1 s), and the host painted twice since | `ready`: `svc-ready` fires |
 * | `holding` | the ready timer | `error` (`ready-timeout`, naming the path) |
 * | `loading` | the ready timer | `error` (`ready-timeout`) |
 * | `loading`, `ready`, `error` | a fatal embed error that a new session cannot fix | `error` (`embed-fatal-error`) |
 * | any with a frame that loaded, and a provider | disconnection, or a move that gives the frame a new document (Firefox; loading or ready) | `renewing` (`load`): the frame goes, its session is spent; the viewer's path of now is restored at ready |
 * | `holding`, `ready` | disconnection (the frame unloads) | `loading`, without a timer until connected again; the viewer's path of now (or the one held for) is restored |
 * | `loading`, `ready`, `error` with a frame | (re)connection, or a move that gives the frame a new document (Firefox) | `loading`, the viewer's path restored at ready |
 *
 * The renewal ahead of expiry runs beside `ready` and never changes it: renewal.ts.
 *
 * A move with `moveBefore()` (in Chromium) is none of these: the frame lives on.
 */
type State = 'idle' | 'pending' | 'loading' | 'holding' | 'ready' | 'renewing' | 'error';
type StateKey = 'theme' | 'colorScheme' | 'locale' | 'filter';
type Detail = Omit<SvcStatusDetail, 'status' | 'previous'>;
export type Ready = SvcEventDetail<'svc:event:ready'>;

/**
 * The state that is (re)sent at every ready, in this order, each with the payload field that carries it. The
 * theme is the payload itself, as a JSON copy: a framework's reactive proxy passes every shape check, but
 * structured clone cannot carry it.
 */
export const STATE: ReadonlyArray<{
  key: StateKey;
  action: ActionType;
  field?: string;
  check: (v: unknown) => string | undefined;
}> = [
  { key: 'theme', action: 'svc:action:set-theme', check: themeProblem },
  { key: 'colorScheme', action: 'svc:action:set-color-scheme', field: 'scheme', check: colorSchemeProblem },
  { key: 'locale', action: 'svc:action:set-locale', field: 'locale', check: localeProblem },
  { key: 'filter', action: 'svc:action:set-filter', field: 'filterUrlParameter', check: filterProblem },
];

// A fatal embed error whose name or context says this is a session problem, which a new session can fix.
const SESSION_ERROR = /session|auth|token|expired/i;
const RENEWAL_FAILED = 'session-renewal-failed';
const NAVIGATE = 'svc:action:navigate';
/** How long a held load waits, after the view of its path, for the frame to say it drew it (see `_check`). */
const DRAWN_MS = 1000;
const NOT_RENEWED = `${tag}: the session could not be renewed`;
// Without a provider, a spent session is loaded: some backends' sessions are reusable. When the embed refuses it:
const REUSED = ` (${tag}: this session was loaded before: use a sessionProvider)`;

/**
 * What identifies a resolved URL: the URL, the refusal's reason, or '' when there is nothing to load. The query is
 * compared by its decoded pairs, so that a host writing `%20` for `+` or `%7E` for `~` changes nothing.
 */
const keyOf = (result: EmbedUrlResult | undefined) => {
  if (!result || !('url' in result)) return result?.reason ?? '';
  const url = new URL(result.url);
  url.search = `${url.searchParams}`;
  return url.href;
};

/** The origin of a resolved URL, or '' for a refusal or nothing to load. */
const originOf = (result: EmbedUrlResult | undefined) => (result && 'origin' in result ? result.origin : '');

/** What the lifecycle reads of its element (svc-embed.ts, which drives it). */
export interface Host extends ReactiveElement, EmbedUrlInput {
  title: string;
  path?: string | null;
  readyTimeout: number;
  loading?: 'lazy' | 'eager' | null;
  debug: boolean;
  sessionProvider?: SvcSessionProvider | null;
}

export class EmbedSession {
  readonly _host: Host;
  readonly _show: (status: SvcEmbedStatus, message?: string) => void;
  _state: State = 'pending';
  /** The last status dispatched in `svc-status`. */
  status: SvcEmbedStatus = 'idle';
  /** The current session's frame: messages count only from its window (or `behind`'s), and actions go only to it. */
  frame?: HTMLIFrameElement;
  /** A renewal's frame loading behind the visible one; its messages are checked like the current frame's. */
  behind?: HTMLIFrameElement;
  /** The tenant origin of both. */
  origin = '';
  /** The frame in the shadow root: the current one once Lit's update has run. */
  _shown?: HTMLIFrameElement;
  /** The key (see keyOf) of the URL the element is on, to tell a host change from an unchanged write. */
  _key?: string;
  _readyDetail?: Ready;
  _error?: SvcEmbedError;
  /** Commands held until the next ready. */
  _queue: Array<[ActionType, object]> = [];
  /** The state to send, by property: its payload when valid, else what is wrong with it. */
  values: Partial<Record<StateKey, { payload?: object; problem?: string }>> = {};
  /** whenReady() and renewSession() callers; `renewal` ones also fail when nothing is left to load. */
  _waiting: Array<{ resolve: (detail: Ready) => void; reject: (error: Error) => void; renewal?: boolean }> = [];
  /**
   * A renewed session, the host's session value it stands in for, the origin it was renewed for and its expiry. The
   * host owns `src` and `session`; this is the element's own, and lasts while both the host's session value and the
   * embed URL's origin stay the ones it was renewed with: a credential never goes to another tenant.
   */
  _renewed?: { replaced: string | null; session: string; origin: string; expiresAt?: number };
  /** The host session's expiry, and the host session value it belongs to. */
  _hostExpiry?: { session: string | null; at?: number };
  /** Counts provider calls, so that only the answer to the latest one is used. */
  _attempt = 0;
  _lastAutoRenewal = -Infinity;
  /** The last in-embed path the embed reported, and the one a renewal restores. */
  _path?: string;
  _restore?: string;
  /** When the frame last reported a path, and whether it said `dashboard-loaded` or `error` since (see `_check`). */
  _seen?: number;
  _drawn?: boolean;
  _timer?: ReturnType<typeof setTimeout>;
  _observer?: IntersectionObserver;
  /** When the running wait began; 0 while none runs. */
  _started?: number;
  _loaded?: boolean;
  /**
   * The current frame's window, since it was placed (or said ready): another one in that frame is a new document
   * (Firefox, after a move).
   */
  _win?: Window | null;
  /** svc-status details waiting to be dispatched while one is: listeners see the changes in the order they happened. */
  _statuses?: object[];
  _warned?: boolean;
  /**
   * The renewal ahead of expiry that runs, and its failed attempts. Its timer (the schedule, the provider's bound, the
   * frame's) is `_timer`, which no wait for a ready uses while `ready`.
   */
  _ahead?: Ahead;
  _failures = 0;
  /** When a failed renewal ahead may try again: the schedule never comes before it, however often it is derived. */
  _retryAt = 0;
  /** Why the element is `renewing`, until the provider is asked (a load asks once connected, and near the viewport). */
  _reason?: SvcSessionReason;
  /** The session given for the next load (by the provider or `renewSession()`): loaded as given, even if spent. */
  _given?: string;
  /** The current frame's session, and whether a frame had loaded it before this one's load. */
  _session?: string | null;
  _reused?: boolean;
  /** When the current session began (a host change, its frame made, the provider asked for it ahead), in epoch ms. */
  _loadedAt!: number;
  /**
   * When the current frame's wait began (`performance.now()`; -1 once its render is timed), and the longest a frame
   * took from then to render its dashboard (ms).
   */
  _made = -1;
  _rendered = 0;
  /** When the viewer last acted in the visible frame (`performance.now()`); `Infinity` while a chat is open. */
  _touched = 0;
  /** The renewal ahead's wait for the viewer (renewal.ts); whether a session too short to renew was warned of. */
  _poll?: ReturnType<typeof setTimeout>;
  _short?: boolean;
  /** A load's provider answers that were spent: the first is asked again, the second fails. */
  _spentAnswers = 0;
  /** Why the provider was last asked; whether a failed load waits to try again; whether its frame loads at once. */
  _asking?: SvcSessionReason;
  _retry?: boolean;
  _eager?: boolean;
  /** While `holding`: the path the frame must view before it is shown. */
  _hold?: string;
  /** A frame of the server's markup (svc-embed/ssr), until the first load adopts it or puts its own in its place. */
  _ssr?: HTMLIFrameElement | null;

  constructor(host: Host, show: (status: SvcEmbedStatus, message?: string) => void) {
    this._host = host;
    this._show = show;
  }

  whenReady(): Promise<Ready> {
    if (this._state === 'ready') return Promise.resolve(this._readyDetail!);
    if (this._state === 'error') return Promise.reject(this._error!);
    return this._wait();
  }

  /** `renewSession()`, its arguments checked by the element. */
  renew(session?: string): Promise<Ready> {
    // A renewal waiting for the provider, whichever started it, or a renewed session waiting for its ready.
    const pending = this._state === 'renewing' || this._waiting.some((w) => w.renewal);
    const done = this._wait(true);
    if (session !== undefined || !pending) this._renew(session);
    return done;
  }

  command(type: ActionType, payload: object, navigation?: boolean): void {
    const path = (payload as { path: string }).path;
    if (navigation) this._restore = undefined;
    if (this._shows()) this._post(type, payload);
    else this._queue.push([type, payload]);
    // A navigation while holding: the frame must now view that path before it is shown.
    if (navigation && this._state === 'holding') this._check((this._hold = path));
    this._cover();
    // During a renewal ahead, the frame behind follows where the host sends the viewer, before it may take the place.
    if (navigation && this._ahead) {
      this._path = path;
      follow(this);
    }
  }

  /** A state property changed to a valid value: to the visible frame when ready, and to a renewal's frame that is. */
  changed(action: ActionType, payload: object): void {
    if (this._shows()) this._post(action, payload);
    if (this._ahead?.ready) this._post(action, payload, this.behind);
  }

  /** A URL property was assigned, by the host or from an attribute. */
  assigned(): void {
    // A host change wins, completely: the session and any renewal end, and what was held for them is dropped
    // (what was held while idle, or before the first URL, waits for the next session).
    const key = keyOf(this._resolve());
    if (key === this._key) return;
    if (this._key) this._queue = [];
    this._key = key;
    this._loadedAt = Date.now();
    this._restore = undefined;
    this._end();
    // Nothing left to load is `idle` at once; a URL (or a refusal) is loaded by the update, `loading` meanwhile when
    // the element was `ready`.
    this._to(key ? 'pending' : 'idle');
  }

  /**
   * `sessionExpiresAt` was written (perhaps with the value it had): it belongs to the host's session value of now.
   * The schedule is derived again: a write that changes nothing moves nothing.
   */
  expires(at: number | undefined): void {
    this._hostExpiry = { session: hostSession(this._host), at };
    schedule(this);
  }

  /** Lit's update: a pending URL is loaded; a new ready timeout applies to the running wait. */
  update(timeoutChanged: boolean): void {
    if (timeoutChanged && this._started) this._startTimer(this._started);
    if (this._state === 'pending') this._load();
    const host = this._host;
    for (const frame of [this.frame, this.behind]) if (frame) frame.title = host.title || TITLE;
    if (this.frame) this._setLoading(this.frame);
  }

  /**
   * After Lit's update: the current frame in the shadow root. Swapping the node (not its src) gives every session a
   * new window. While a renewal waits for its session, the old frame stays on view (the gate is already closed to it).
   * A listener may have changed the URL during the update (at its svc-status or svc-config-error): the next one loads it.
   */
  place(): void {
    if (this._shown !== this.frame && this._state !== 'renewing') {
      this._shown?.remove();
      if (this.frame) this._host.renderRoot.prepend(this.frame);
      this._shown = this.frame;
      this._win = this.frame?.contentWindow;
      this._spend();
    }
    if (this._state === 'pending') this._host.requestUpdate();
  }

  connected(): void {
    // Re-inserted: the frame (re)loads and must say ready. Otherwise the wait (a renewal's, a load's provider call,
    // or a frame's not yet in the shadow root, when a listener re-inserted the element at its `loading`) is bounded
    // again.
    if (this.frame && this._shown === this.frame) {
      // A frame that had loaded loads its session again.
      this._reused ||= this._spent(this._session!);
      this._path = undefined;
      this._win = this.frame.contentWindow;
      this._spend();
      this._to('loading');
    } else if (this._retry) this._renew(undefined, 'load');
    else this._arm();
  }

  disconnected(): void {
    // A frame taken out of the document unloads. Detached, no timer runs, and nothing is scheduled.
    cancel(this);
    if (this.frame && this._gone()) return;
    if (this._shows()) this._to('loading');
    else this._stopTimer();
  }

  /**
   * A `moveBefore()`: Firefox starts a new document in a frame whose shadow root moved (its window is new at once),
   * while loading as when ready. Every document a frame starts is a load: its spent session is never given to it.
   */
  moved(): void {
    const frame = this.frame;
    if (frame && this._shown === frame && frame.contentWindow !== this._win && !this._gone()) {
      this._reused = true;
      this._path = undefined;
      this._win = frame.contentWindow;
      this._to('loading');
    }
  }

  /** A validated event of the current frame, or of a renewal's frame behind it. */
  event(detail: AnyEventDetail, frameWindow: Window): void {
    const host = this._host;
    if (host.debug)
      this._log(
        'event',
        detail.type,
        detail.type === 'svc:event:error'
          ? { ...detail.payload, message: this._redact(detail.payload.message) }
          : detail.payload,
      );
    if (frameWindow !== this.frame?.contentWindow) return behindEvent(this, detail);
    const { type } = detail;
    const now = performance.now();
    if (type === 'svc:event:ready') {
      this._readyDetail = detail;
      this._win = frameWindow;
      // Its render is timed from when its wait began (with `lazy`, when it came into view) to its dashboard-loaded.
      this._made = this._started || now;
      // A load that must show a path holds until it does (a second ready meanwhile changes nothing).
      if (this._state !== 'holding') {
        this._to(this._state !== 'ready' && (this._hold = this._goal()) ? 'holding' : 'ready');
        if ((this._state as State) == 'holding') this._check(this._hold!);
      }
    } else if (type === 'svc:event:view' || type === 'svc:event:navigate') {
      this._path = detail.payload.path;
      this._seen = now;
      this._drawn = false;
      // The viewer moved on while a renewal restores the path behind: it follows.
      follow(this);
    } else if (type === 'svc:event:dashboard-loaded' || type === 'svc:event:error') {
      this._drawn = true;
      // A slow render brings the renewal ahead forward.
      if (type != 'svc:event:error' && this._made >= 0) {
        this._rendered = Math.max(this._rendered, now - this._made);
        this._made = -1;
        schedule(this);
      }
    }
    if (type !== 'svc:event:ready' && this._state === 'holding') this._check(this._hold!);
    // What the viewer does in the frame, which a swap would disturb; on the chat surface, a conversation is open.
    if (/navigate|drilldown|download|ai-query/.test(type))
      this._touched = type != 'svc:event:ai-query' || this._readyDetail?.payload.surface != 'chat' ? now : Infinity;
    // A listener of the ready's svc-action or svc-status may have ended this session.
    if (frameWindow !== this.frame?.contentWindow) return;
    // A held load's svc-ready fires when it shows its path (`_check`).
    if (type !== 'svc:event:ready' || this._state === 'ready') this._emit(domEventName(type), detail);
    // A listener may have changed the URL meanwhile: then this frame is no longer the current one.
    if (detail.type === 'svc:event:error' && detail.payload.fatal && frameWindow === this.frame?.contentWindow) {
      const { name = '', context = '', message } = detail.payload;
      const session = SESSION_ERROR.test(`${name} ${context}`);
      if (!this._provider() || !session) {
        // The embed stopped: commands wait for a ready again.
        this._to('error', {
          reason: 'embed-fatal-error',
          message: this._redact(message) + (session && this._reused ? REUSED : ''),
        });
      } else if (performance.now() - this._lastAutoRenewal < 30000) {
        // A new session that expires at once again: no loop.
        this._fail();
      } else {
        this._lastAutoRenewal = performance.now();
        this._renew(undefined, 'refused');
      }
    }
  }

  /** The host's provider, when it is one. */
  _provider() {
    const provider = this._host.sessionProvider;
    return typeof provider == 'function' ? provider : undefined;
  }

  /** The ready timeout in force: `readyTimeout` when it is whole milliseconds within setTimeout's range. */
  timeout(): number {
    const ms = this._host.readyTimeout;
    return Number.isInteger(ms) && ms >= 0 && ms <= MAX_TIMEOUT ? ms : DEFAULT_TIMEOUT;
  }

  /**
   * The URL to load: the host's, with the renewed session standing in for the host's session while the host's
   * session value and the URL's origin are the ones it was renewed with; once either changes, it is dropped.
   */
  _resolve() {
    const renewed = this._renewed;
    const result = resolveEmbedUrl(this._host, renewed?.session);
    if (!renewed || (hostSession(this._host) === renewed.replaced && originOf(result) === renewed.origin))
      return result;
    this._renewed = undefined;
    return resolveEmbedUrl(this._host);
  }

  /** The current session's expiry in epoch milliseconds, when it is known. */
  _expiresAt() {
    const renewed = this._renewed;
    const host = this._hostExpiry;
    return renewed ? renewed.expiresAt : host?.session === hostSession(this._host) ? host?.at : undefined;
  }

  /** Makes a wait for the next ready (or error; or, for a renewal, idle). */
  _wait(renewal?: boolean) {
    return new Promise<Ready>((resolve, reject) => this._waiting.push({ resolve, reject, renewal }));
  }

  /**
   * The one place the state changes, with what entering each state does: the timer (`loading` and `renewing`
   * are bounded while connected), the state and held commands sent at `ready`, the schedule of a renewal ahead of
   * expiry (only while `ready`), the status, and the waiters.
   */
  _to(state: State, detail: Detail = {}) {
    const from = this._state;
    this._state = state;
    this._retry = false;
    this._cover();
    // A held load's ready timer runs on; what it was sent is not sent again at its ready.
    if (state !== 'holding') this._arm();
    if (state === 'holding' || (state === 'ready' && from !== 'holding')) this._flush();
    // Nothing more for a state that a listener (of an svc-action sent at ready) has left.
    if (this._state !== state) return;
    cancel(this);
    if (state === 'ready') {
      this._failures = this._retryAt = 0;
      schedule(this);
    }
    if (state === 'error') this._error = new SvcEmbedError(detail.reason!, detail.message!);
    // `pending` settles no one: the update decides.
    for (const w of state === 'pending' ? [] : this._waiting.splice(0)) {
      if (state === 'ready') w.resolve(this._readyDetail!);
      else if (state === 'error') w.reject(this._error!);
      // The host took the URL away: nothing is left to renew.
      else if (state === 'idle' && w.renewal) w.reject(new SvcEmbedError(RENEWAL_FAILED, NOT_RENEWED));
      else this._waiting.push(w);
    }
    // The status: `renewing` shows as `loading`, and so does `pending` after `ready` (a host change ends the ready
    // at the assignment); otherwise `pending` keeps the status until the update. `svc-status` fires when it changes.
    const previous = this.status;
    const status =
      state === 'renewing' || state === 'holding' || (state === 'pending' && previous === 'ready')
        ? 'loading'
        : state === 'pending'
          ? previous
          : state;
    if (status === 'error') this._show(status, detail.message);
    if (status === previous) return;
    this.status = status;
    this._show(status);
    this._log('status', status, detail.reason ?? '');
    // A change made by a listener of this svc-status is dispatched after it, to every listener in turn.
    const queued = this._statuses;
    const change = { status, previous, ...detail };
    if (queued) return void queued.push(change);
    for (const next of (this._statuses = [change])) this._emit('svc-status', next);
    this._statuses = undefined;
  }

  /**
   * The current frame's document goes (a removal, or a move that reloads it in Firefox): the viewer's path is taken
   * now, to restore at the next ready (a `navigate()` made since replaces it). With a provider, a frame whose
   * session is spent never loads it again: the frame goes, and the provider is asked for the next load's session.
   * Returns whether it was.
   */
  _gone() {
    this._keep();
    // A frame in the shadow root of an element that was connected has loaded.
    if (!this._provider() || this._shown !== this.frame) return;
    this._shown!.remove();
    this._shown = undefined;
    this._renew(undefined, 'load');
    return true;
  }

  /**
   * The current frame's document goes: what to restore at the next ready is the viewer's path (while ready, or after
   * an error), or the one a held load was for; while loading, the one it was to restore still.
   */
  _keep() {
    const state = this._state;
    this._restore =
      (state == 'ready' ? this._path : (this._hold ?? (state == 'error' ? this._path : undefined))) ?? this._restore;
  }

  /** Whether the current frame said ready, and takes actions: `ready`, or `holding`. */
  _shows() {
    return this._state == 'ready' || this._state == 'holding';
  }

  /**
   * The path a load must show before it is ready: the last held navigation, else the viewer's path to restore, else
   * `path`, when valid. With `unheld`, none when a held navigation goes there.
   */
  _goal(unheld?: boolean) {
    let held: string | undefined;
    for (const [type, payload] of this._queue) if (type == NAVIGATE) held = (payload as { path: string }).path;
    if (held) return unheld ? undefined : held;
    for (const path of [this._restore, this._host.path]) if (path && !pathProblem(path)) return path;
  }

  /**
   * While holding: once the frame has viewed `goal` and drawn it, and the host has painted twice since, the load is
   * ready. The frame paints in a process of its own, after its view message: on a loaded machine, it was seen to show
   * its old view four host paints after it (test/node/deep-link-pixels.test.mjs). Drawn: it said `dashboard-loaded`
   * or `error` since the view (its widgets rendered at the path), or `DRAWN_MS` passed (`app` and `chat` say neither),
   * or the ready timeout came first.
   */
  _check(goal: string) {
    const seen = this._seen;
    const go = () =>
      painted(this._host, () => {
        if (this._state != 'holding' || this._hold !== goal || this._path !== goal || this._seen !== seen) return;
        this._hold = undefined;
        this._to('ready');
        if ((this._state as State) == 'ready') this._emit('svc-ready', this._readyDetail!);
      });
    if (this._path !== goal) return;
    if (this._drawn) go();
    else setTimeout(go, DRAWN_MS);
  }

  /**
   * A frame that loads to show a path is covered (opaque: the element's style sheet) until it shows it: the viewer
   * never sees the view it opens at.
   */
  _cover() {
    this.frame?.toggleAttribute('held', this._state == 'holding' || (this._state == 'loading' && !!this._goal()));
  }

  /** The current frame, once in the document, has loaded its session: it is spent, for every element of the app. */
  _spend() {
    const host = this._host;
    if (this._session && this._shown === this.frame && host.isConnected)
      spend(host.ownerDocument.defaultView, this.origin, this._session);
  }

  /** Whether a frame of the app has loaded `session` on `origin` (see provider.ts). */
  _spent(session: string, origin = this.origin) {
    return spent(this._host.ownerDocument.defaultView, origin, session);
  }

  /** What a provider call is for: the origin, surface and dashboard of the URL to load. */
  _target() {
    const result = this._resolve();
    return result && 'url' in result ? target(result.url) : { origin: '', surface: '' };
  }

  /**
   * Ends the current session's gate: nothing more is posted to its frame or accepted from it. Whether held
   * commands survive is the caller's choice.
   */
  _end() {
    this.frame = undefined;
    this.origin = '';
    this._path = this._hold = undefined;
  }

  /** A new frame for `url`: sandboxed, with a referrer policy of its own. */
  _make(url: string) {
    const host = this._host;
    const frame = host.ownerDocument.createElement('iframe');
    for (const [name, value] of FRAME) frame.setAttribute(name, value);
    frame.title = host.title || TITLE;
    frame.src = url;
    return this._watch(frame);
  }

  /** Notes when `frame`, while current, loads: the ready timeout's message says whether it did. */
  _watch(frame: HTMLIFrameElement) {
    frame.addEventListener('load', () => frame === this.frame && (this._loaded = true));
    return frame;
  }

  /** `pending` → the host's URL (with any renewed session) in a new frame, or `idle`, or a refused configuration. */
  _load() {
    const result = this._resolve();
    this._key = keyOf(result);
    if (!result) return this._to('idle');
    if ('reason' in result) {
      console.error(result.message);
      this._emit('svc-config-error', result);
      // Unless a listener has changed the URL meanwhile.
      if (this._key === result.reason) this._to('error', { reason: 'config-error', message: result.message });
      return;
    }
    // A provider gives each load a session of its own, unless this one was given for it.
    const session = new URL(result.url).searchParams.get('session');
    const reused = !!session && this._spent(session, result.origin);
    if (this._provider() && session !== this._given && (!session || reused)) return this._renew(undefined, 'load');
    // A session given for this load loads at once, even with `lazy`: it was asked for near the viewport, and must not
    // wait in a frame the browser has not started (Firefox starts lazy frames much later).
    this._eager = !!this._given;
    this._given = undefined;
    this._session = session;
    this._reused = reused;
    // The server's frame for this URL (svc-embed/ssr) is adopted as it is (it has loaded, or is loading, its session)
    // when it is the frame the element would make: the same URL, sandbox, permissions and referrer policy.
    const ssr = this._ssr;
    this._ssr = undefined;
    const adopt = ssr && [...FRAME, ['src', result.url]].every(([name, value]) => ssr.getAttribute(name) === value);
    const frame = adopt ? this._watch(ssr) : this._make(result.url);
    frame.setAttribute('part', 'frame');
    this._setLoading(frame);
    this.origin = result.origin;
    this.frame = frame;
    this._loadedAt = Date.now();
    if (adopt) {
      this._win = frame.contentWindow;
      this._spend();
    }
    // The mask costs a URL parse: only under debug.
    if (this._host.debug) this._log('url', maskSessions(result.url));
    this._to('loading');
  }

  /**
   * `renewing`: the gate closes, and the session comes from the caller or from the provider, asked with `reason`:
   * at once, or for a load, once connected (and near the viewport with `lazy`: see `_arm`).
   */
  _renew(session?: string, reason: SvcSessionReason = 'manual') {
    if (this._state !== 'renewing') {
      this._keep();
      this._end();
      this._reason = reason == 'load' ? reason : undefined;
      this._spentAnswers = 0;
      this._to('renewing', reason == 'load' ? {} : { reason: 'session-renewal' });
      // A status listener changed the URL: that wins.
      if ((this._state as State) !== 'renewing') return;
      if (session === undefined && reason != 'load') this._ask(reason);
    }
    if (session !== undefined) this._apply({ session });
  }

  /**
   * Asks the provider for the URL's origin, surface and dashboard; only the answer to the latest call counts, while
   * the element still waits for it (`renewing`, or the wait before a failed load tries again). A spent answer is never
   * loaded: the provider is asked once more, then the element fails.
   */
  _ask(reason: SvcSessionReason) {
    const provider = this._provider();
    this._reason = undefined;
    // The provider went while a load waited: the session at hand is loaded, as without one.
    if (!provider) return this._apply();
    const attempt = ++this._attempt;
    const current = () => attempt === this._attempt && (this._state === 'renewing' || this._retry);
    const to = this._target();
    this._asking = reason;
    provide(provider, reason, to).then(
      (answer) => {
        if (!current()) return;
        if (!answer) return this._fail(reason);
        if (!this._spent(answer.session, to.origin)) return this._apply(answer);
        if (this._spentAnswers++) return this._fail(undefined, SPENT_ANSWER);
        this._ask(reason);
      },
      () => current() && this._fail(reason),
    );
  }

  /** `renewing` → `pending`: the session given stands in for the host's, and the next update loads it as given. */
  _apply(answer?: NonNullable<Answer>) {
    if (answer) this._adopt(answer);
    this._given = answer?.session;
    this._spentAnswers = 0;
    this._to('pending');
    this._host.requestUpdate();
  }

  /** From now on, `answer`'s session stands in for the host's, on the origin it was renewed for (see `_resolve`). */
  _adopt(answer: NonNullable<Answer>) {
    const host = this._host;
    this._renewed = { ...answer, replaced: hostSession(host), origin: originOf(resolveEmbedUrl(host, answer.session)) };
    this._key = keyOf(this._resolve());
  }

  /**
   * A renewal failed: `error`. A load's (`reason` `load`) tries again in 5 s, 10 s, 20 s … (at most 5 min), and says so;
   * an answer to its call that comes meanwhile is still loaded. Detached, nothing fails: the provider is asked again
   * at re-insertion.
   */
  _fail(reason?: SvcSessionReason, message = NOT_RENEWED) {
    if (reason && !this._host.isConnected) return void (this._reason = reason);
    const wait = Math.min(5 * 2 ** this._failures, 300);
    const retry = reason == 'load';
    this._end();
    this._to('error', { reason: RENEWAL_FAILED, message: retry ? `${message}; trying again in ${wait} s` : message });
    if (retry && this._state === 'error') {
      this._failures++;
      this._retry = true;
      this._timer = setTimeout(() => this._renew(undefined, 'load'), wait * 1000);
    }
    // Takes the old frame off view.
    this._host.requestUpdate();
  }

  /** A failure to set up (a pop-out that refused the style sheet, …): `error`, never a silent `idle`. */
  fault(error: unknown): void {
    this._to('error', { reason: 'setup-error', message: `${tag}: could not set up: ${String(error)}` });
  }

  _setLoading(frame: HTMLIFrameElement) {
    const loading = this._eager ? 'eager' : this._host.loading;
    if (loading === 'lazy' || loading === 'eager') frame.loading = loading;
    else frame.removeAttribute('loading');
  }

  /**
   * Starts the bound of a waiting state, while connected: the provider wait is bounded by the ready timeout
   * (15 s when it is 0); a frame's, by the ready timeout, from when it comes into view with `lazy`. A load's provider
   * call is made now, or with `lazy`, once the element is near the viewport, where the browser would load its frame.
   */
  _arm() {
    this._stopTimer();
    const host = this._host;
    const state = this._state;
    const load = state === 'renewing' && this._reason == 'load';
    if (!host.isConnected || (state !== 'loading' && state !== 'renewing')) return;
    this._loaded = false;
    const start = () => {
      if (this._reason) this._ask(this._reason);
      this._startTimer();
    };
    if (host.loading === 'lazy' && (state === 'loading' || load) && typeof IntersectionObserver === 'function') {
      this._observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && start(), {
        rootMargin: load ? '1250px' : '',
      });
      this._observer.observe(host);
    } else start();
  }

  /** (Re)starts the wait's timer: from now, or from `since` when the ready timeout changed during the wait. */
  _startTimer(since?: number) {
    clearTimeout(this._timer);
    const ms = this._state === 'renewing' ? bound(this) : this.timeout();
    this._started = since ?? performance.now();
    if (ms) this._timer = setTimeout(() => this._timedOut(), since ? Math.max(0, ms - performance.now() + since) : ms);
  }

  _stopTimer() {
    clearTimeout(this._timer);
    this._started = 0;
    this._observer?.disconnect();
    this._observer = undefined;
  }

  _timedOut() {
    if (this._state === 'renewing') return this._fail(this._asking);
    // A held load whose frame viewed the path, and has not said it drew it: shown, not failed.
    if (this._state == 'holding' && this._path === this._hold) {
      this._drawn = true;
      return this._check(this._hold!);
    }
    const frameLoaded = this._loaded;
    const elapsedMs = Math.round(performance.now() - this._started!);
    const seconds = Math.round(elapsedMs / 1000);
    // Chromium fires load for its own error page too, so "loaded" may still be a refused connection.
    const message =
      this._state == 'holding'
        ? `${tag}: the embed said ready, but did not show the path ${this._hold} in ${seconds} s: is it a path of this embed?`
        : `${tag}: no ready in ${seconds} s. ${
            frameLoaded
              ? "The frame loaded. Likely: this page's origin may not frame the tenant (CSP frame-ancestors, allowed embed origins); embed messaging is not in the tenant's plan; the session is invalid or expired; third-party cookies are blocked; src is not an embed page; or the browser showed an error page (network, DNS, TLS)."
              : 'The frame never loaded: network, DNS or TLS failed, or the tenant is down.'
          }`;
    console.error(message);
    this._to('error', { reason: 'ready-timeout', message, frameLoaded, elapsedMs });
  }

  /**
   * The embed's text with every session the element knows (the host's and the renewed one) replaced by "…", in each
   * form a URL may quote it: percent-encoded, form-encoded (`+` for a space) and raw. Shorter ones cannot be told
   * apart from words.
   */
  _redact(text: string) {
    for (const session of [hostSession(this._host), this._renewed?.session, this._ahead?.answer?.session]) {
      if (session && session.length >= 8 && !sessionProblem(session))
        for (const form of [encodeURIComponent(session), `${new URLSearchParams([['', session]])}`.slice(1), session])
          text = text.replaceAll(form, '…');
    }
    return text;
  }

  /**
   * At ready: the state, the path to restore, then the held commands. A listener of their `svc-action` may end this
   * ready (renew, re-insert, change the URL): what is not sent yet then waits for the next ready, unless the host's
   * change dropped it (rule 3). To a renewal's frame `behind`, at its ready: the state only (no `svc-action`, so no
   * listener runs meanwhile).
   */
  _flush(behind?: HTMLIFrameElement) {
    const frame = this.frame;
    const live = () => this._shows() && this.frame === frame;
    for (const { key, action } of STATE) {
      const payload = this.values[key]?.payload;
      if (payload) {
        if (!behind && !live()) return;
        this._post(action, payload, behind);
      }
    }
    if (behind) return;
    // The path the load must show (the viewer's after a renewal or a reload, or `path`), unless a held navigation
    // goes there.
    const goal = this._goal(true);
    if (!live()) return;
    this._restore = undefined;
    if (goal) this._post(NAVIGATE, { path: goal });
    while (this._queue.length && live()) this._post(...this._queue.shift()!);
  }

  /**
   * Posts an action whose payload was checked when it was set or called (the state, navigate, the restored path), to
   * the current frame, or to a renewal's frame behind it (with no `svc-action`: that is not yet the host's embed).
   */
  _post(type: ActionType, payload: object, to?: HTMLIFrameElement) {
    const timestamp = Date.now();
    const host = this._host;
    const view = host.ownerDocument.defaultView;
    if (view && view !== (globalThis as unknown) && !this._warned) {
      this._warned = true;
      console.warn(`${tag}: embeds drop actions posted from a pop-out: load svc-embed in the pop-out`);
    }
    try {
      // Never '*': if the frame now holds another document, the browser drops the message.
      (to ?? this.frame)!.contentWindow!.postMessage(
        { source: SOURCE, direction: 'action', type, payload, timestamp },
        this.origin,
      );
    } catch (error) {
      // One action that cannot be sent must not stop the ready handling, the other actions or an event.
      console.warn(`${tag}: could not send ${type}: ${(error as Error)?.name}`);
      return;
    }
    this._log(to ? 'action behind' : 'action', type, payload);
    if (!to) this._emit('svc-action', { type, payload, timestamp });
  }

  /** Logs under `debug` (what it logs is cheap to make; the message path checks `debug` first). */
  _log(...what: unknown[]) {
    if (this._host.debug) console.debug(tag, ...what);
  }

  _emit(name: keyof SvcEmbedEventMap, detail: object) {
    this._host.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}

/** The URL with every `session` parameter (by its decoded name) replaced by one "…", for the debug log. */
function maskSessions(href: string) {
  const url = new URL(href);
  if (url.searchParams.has('session')) url.searchParams.set('session', '…');
  return url.href.replace('%E2%80%A6', '…');
}
