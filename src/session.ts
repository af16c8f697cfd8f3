import { colorSchemeProblem, domEventName, filterProblem, localeProblem, pathProblem } from '@svc-embed/protocol';
import { sessionProblem, SOURCE, themeProblem } from '@svc-embed/protocol';
import type { ActionType, AnyEventDetail } from '@svc-embed/protocol';
import { hostSession, resolveEmbedUrl } from './embed-url.js';
import { SvcEmbedError } from './error.js';
import type { EmbedUrlResult } from './embed-url.js';
import type {
  SvcEmbedEventMap,
  SvcEmbedStatus,
  SvcEventDetail,
  SvcRenewalFailedReason,
  SvcSessionProvider,
  SvcSessionReason,
  SvcStatusDetail,
} from './events.js';
import { DEFAULT_TIMEOUT, MAX_TIMEOUT } from './limits.js';
import type { EmbedUrlInput } from './embed-url.js';
import type { ReactiveElement } from '@lit/reactive-element';

/**
 * The session lifecycle of `<svc-embed>`: every transition is in this file. The element (svc-embed.ts) is the public
 * surface and the message gate, and drives this class. Every change of state goes through `#to`, which also does
 * what entering a state means (the timers, the status, the waiting promises, the schedule of the next renewal):
 *
 * | from | on | to |
 * |---|---|---|
 * | any | the host changes the resolved URL (at the assignment) | `pending` (`idle` when nothing is left to load): held commands and the path to restore are dropped (not those made while `idle`) |
 * | `pending` | Lit's update, with a provider and no session to load, or only a spent one (see `spent`) | `renewing` (`load`): no frame yet |
 * | `pending` | Lit's update | `idle` (no URL), `error` (`config-error`) or `loading` (a new frame) |
 * | any with a URL | `renewSession()` (`manual`), a fatal session error with a provider (`refused`) | `renewing`: the gate closes, the old frame stays on view |
 * | `renewing` | `load`: connected (and near the viewport with `lazy`) | `renewing`: the provider is asked |
 * | `renewing` | a session (given, or from the provider) | `pending`, with that session standing in for the host's, loaded as given |
 * | `renewing` | the provider fails, returns a bad session, or outlasts the ready timeout | `error` (`session-renewal-failed`) |
 * | `loading`, `ready`, `error` | the current frame says ready | `ready`: the state, the restored path and the held commands are sent |
 * | `loading` | the ready timer | `error` (`ready-timeout`) |
 * | `loading`, `ready`, `error` | a fatal embed error that a new session cannot fix | `error` (`embed-fatal-error`) |
 * | any with a frame that loaded, and a provider | disconnection, or a move that gives the frame a new document (Firefox) | `renewing` (`load`): the frame goes, its session is spent; the viewer's path of now is restored at ready |
 * | `ready` | disconnection (the frame unloads) | `loading`, without a timer until connected again; the viewer's path of now is restored at ready |
 * | `loading`, `ready`, `error` with a frame | (re)connection, or a move that gives the frame a new document (Firefox) | `loading`, the viewer's path restored at ready |
 *
 * A renewal ahead of expiry runs beside `ready` and never changes it (no `svc-status`):
 *
 * | ahead | on | to |
 * |---|---|---|
 * | none | `ready` with a provider and a known expiry: the renewal time (or a retry's, if later) | `asking`: the provider (`ahead`), a call of this element's own |
 * | `asking` | a session | `behind`: its frame loads under the visible one, rendered but covered by it, and inert |
 * | `behind` | that frame says ready | `restoring`: the state, and a navigation to the visible frame's path, are sent to it |
 * | `restoring` | it shows the visible frame's path: it viewed that path (any path, when there is none) and, on the `dashboard` surface, then said `dashboard-loaded`; `app` and `chat` have no such event, and show it at the view (at ready, when there is no path) | `painting`: two animation frames of the host (none while the page is hidden), counted from the latest such event |
 * | `painting` | the frames passed, and it still shows the viewer's path | the swap, in one task: it becomes the visible frame, the old one goes, `svc-ready` fires; none |
 * | `restoring`, `painting` | the visible frame moved on | `restoring`, navigated again |
 * | `asking`, `behind`, `restoring`, `painting` | the provider fails, hangs or gives a bad session; the frame behind does not show the path within the ready timeout; a fatal error | none: the frame behind goes, `svc-session-renewal-failed`, a retry in 5 s, 10 s, 20 s … while the session lasts |
 * | any | leaving `ready` (a host change, disconnection, `renewSession()`, a fatal error) | none, with no schedule |
 *
 * A move with `moveBefore()` (in Chromium) is none of these: the frame lives on.
 */
type State = 'idle' | 'pending' | 'loading' | 'ready' | 'renewing' | 'error';
type StateKey = 'theme' | 'colorScheme' | 'locale' | 'filter';
type Detail = Omit<SvcStatusDetail, 'status' | 'previous'>;
type Ready = SvcEventDetail<'svc:event:ready'>;

/**
 * A renewal ahead of expiry: its session once there is one (its frame is `behind`), its ready, the path sent to it,
 * the path it last viewed, whether it reported `dashboard-loaded` since, and the swap that waits for a paint.
 */
interface Ahead {
  answer?: NonNullable<Answer>;
  ready?: Ready;
  path?: string;
  seen?: string;
  loaded?: boolean;
  swap?: () => void;
}

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

// Each token has a reason. The embed runs scripts and keeps its own origin (its session and API calls), submits
// its forms, opens links in new tabs and downloads exports. Not allow-top-navigation: the embed must never
// navigate the host page away. Not allow-popups-to-escape-sandbox: an unsandboxed popup could navigate its
// opener's top (Firefox lets it), so popups keep the sandbox.
const SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-downloads';

// A fatal embed error whose name or context says this is a session problem, which a new session can fix.
const SESSION_ERROR = /session|auth|token|expired/i;
export const tag = '<svc-embed>';
const RENEWAL_FAILED = 'session-renewal-failed';
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
type Answer = { session: string; expiresAt?: number } | undefined;

/** Asks the provider (at once; a throw is a rejection), and checks its answer. */
function provide(provider: SvcSessionProvider, reason: SvcSessionReason): Promise<Answer> {
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
const spentIn = (doc: Document) => ((doc as unknown as Record<symbol, Set<string>>)[SPENT] ??= new Set());

/** What the lifecycle reads of its element (svc-embed.ts, which drives it). */
export interface Host extends ReactiveElement, EmbedUrlInput {
  title: string;
  readyTimeout: number;
  loading?: 'lazy' | 'eager' | null;
  debug: boolean;
  sessionProvider?: SvcSessionProvider | null;
}

export class EmbedSession {
  readonly #host: Host;
  readonly #show: (status: SvcEmbedStatus, message?: string) => void;
  #state: State = 'pending';
  /** The last status dispatched in `svc-status`. */
  status: SvcEmbedStatus = 'idle';
  /** The current session's frame: messages count only from its window (or `behind`'s), and actions go only to it. */
  frame?: HTMLIFrameElement;
  /** A renewal's frame loading behind the visible one; its messages are checked like the current frame's. */
  behind?: HTMLIFrameElement;
  /** The tenant origin of both. */
  origin = '';
  /** The frame in the shadow root: the current one once Lit's update has run. */
  #shown?: HTMLIFrameElement;
  /** The key (see keyOf) of the URL the element is on, to tell a host change from an unchanged write. */
  #key?: string;
  #readyDetail?: Ready;
  #error?: SvcEmbedError;
  /** Commands held until the next ready. */
  #queue: Array<[ActionType, object]> = [];
  /** The state to send, by property: its payload when valid, else what is wrong with it. */
  values: Partial<Record<StateKey, { payload?: object; problem?: string }>> = {};
  /** whenReady() and renewSession() callers; `renewal` ones also fail when nothing is left to load. */
  #waiting: Array<{ resolve: (detail: Ready) => void; reject: (error: Error) => void; renewal?: boolean }> = [];
  /**
   * A renewed session, the host's session value it stands in for, the origin it was renewed for and its expiry. The
   * host owns `src` and `session`; this is the element's own, and lasts while both the host's session value and the
   * embed URL's origin stay the ones it was renewed with: a credential never goes to another tenant.
   */
  #renewed?: { replaced: string | null; session: string; origin: string; expiresAt?: number };
  /** The host session's expiry, and the host session value it belongs to. */
  #hostExpiry?: { session: string | null; at?: number };
  /** Counts provider calls, so that only the answer to the latest one is used. */
  #attempt = 0;
  #lastAutoRenewal = -Infinity;
  /** The last in-embed path the embed reported, and the one a renewal restores. */
  #path?: string;
  #restore?: string;
  #timer?: ReturnType<typeof setTimeout>;
  #observer?: IntersectionObserver;
  /** When the running wait began; 0 while none runs. */
  #started?: number;
  #loaded?: boolean;
  /** The window that said ready: another one in the current frame is a new document (Firefox, after a move). */
  #win?: Window;
  /** svc-status details waiting to be dispatched while one is: listeners see the changes in the order they happened. */
  #statuses?: object[];
  #warned?: boolean;
  /**
   * The renewal ahead of expiry that runs, and its failed attempts. Its timer (the schedule, the provider's bound, the
   * frame's) is `#timer`, which no wait for a ready uses while `ready`.
   */
  #ahead?: Ahead;
  #failures = 0;
  /** When a failed renewal ahead may try again: the schedule never comes before it, however often it is derived. */
  #retryAt = 0;
  /** Why the element is `renewing`, until the provider is asked (a load asks once connected, and near the viewport). */
  #reason?: SvcSessionReason;
  /** The session given for the next load (by the provider or `renewSession()`): loaded as given, even if spent. */
  #given?: string;
  /** The current frame's session, and whether a frame had loaded it before this one's load. */
  #session?: string | null;
  #reused?: boolean;
  /** When the current session began (a host change, its frame made, the swap), in epoch ms. */
  #loadedAt!: number;

  constructor(host: Host, show: (status: SvcEmbedStatus, message?: string) => void) {
    this.#host = host;
    this.#show = show;
  }

  whenReady(): Promise<Ready> {
    if (this.#state === 'ready') return Promise.resolve(this.#readyDetail!);
    if (this.#state === 'error') return Promise.reject(this.#error!);
    return this.#wait();
  }

  /** `renewSession()`, its arguments checked by the element. */
  renew(session?: string): Promise<Ready> {
    // A renewal waiting for the provider, whichever started it, or a renewed session waiting for its ready.
    const pending = this.#state === 'renewing' || this.#waiting.some((w) => w.renewal);
    const done = this.#wait(true);
    if (session !== undefined || !pending) this.#renew(session);
    return done;
  }

  command(type: ActionType, payload: object, navigation?: boolean): void {
    if (navigation) this.#restore = undefined;
    if (this.#state === 'ready') this.#post(type, payload);
    else this.#queue.push([type, payload]);
    // During a renewal ahead, the frame behind follows where the host sends the viewer, before it may take the place.
    if (navigation && this.#ahead) {
      this.#path = (payload as { path: string }).path;
      this.#follow();
    }
  }

  /** A state property changed to a valid value: to the visible frame when ready, and to a renewal's frame that is. */
  changed(action: ActionType, payload: object): void {
    if (this.#state === 'ready') this.#post(action, payload);
    if (this.#ahead?.ready) this.#post(action, payload, this.behind);
  }

  /** A URL property was assigned, by the host or from an attribute. */
  assigned(): void {
    // A host change wins, completely: the session and any renewal end, and what was held for them is dropped
    // (what was held while idle, or before the first URL, waits for the next session).
    const key = keyOf(this.#resolve());
    if (key === this.#key) return;
    if (this.#key) this.#queue = [];
    this.#key = key;
    this.#loadedAt = Date.now();
    this.#restore = undefined;
    this.#end();
    // Nothing left to load is `idle` at once; a URL (or a refusal) is loaded by the update, `loading` meanwhile when
    // the element was `ready`.
    this.#to(key ? 'pending' : 'idle');
  }

  /**
   * `sessionExpiresAt` was written (perhaps with the value it had): it belongs to the host's session value of now.
   * The schedule is derived again: a write that changes nothing moves nothing.
   */
  expires(at: number | undefined): void {
    this.#hostExpiry = { session: hostSession(this.#host), at };
    this.schedule();
  }

  /** Lit's update: a pending URL is loaded; a new ready timeout applies to the running wait. */
  update(timeoutChanged: boolean): void {
    if (timeoutChanged && this.#started) this.#startTimer(this.#started);
    if (this.#state === 'pending') this.#load();
    const host = this.#host;
    for (const frame of [this.frame, this.behind]) if (frame) frame.title = host.title || 'Embedded analytics';
    if (this.frame) this.#setLoading(this.frame);
  }

  /**
   * After Lit's update: the current frame in the shadow root. Swapping the node (not its src) gives every session a
   * new window. While a renewal waits for its session, the old frame stays on view (the gate is already closed to it).
   * A listener may have changed the URL during the update (at its svc-status or svc-config-error): the next one loads it.
   */
  place(): void {
    if (this.#shown !== this.frame && this.#state !== 'renewing') {
      this.#shown?.remove();
      if (this.frame) this.#host.renderRoot.prepend(this.frame);
      this.#shown = this.frame;
      this.#spend();
    }
    if (this.#state === 'pending') this.#host.requestUpdate();
  }

  connected(): void {
    // Re-inserted: the frame (re)loads and must say ready. Otherwise the wait (a renewal's, a load's provider call,
    // or a frame's not yet in the shadow root, when a listener re-inserted the element at its `loading`) is bounded
    // again.
    if (this.frame && this.#shown === this.frame) {
      // A frame that had loaded loads its session again.
      this.#reused ||= spentIn(this.#host.ownerDocument).has(this.#session!);
      this.#spend();
      this.#to('loading');
    } else this.#arm();
  }

  disconnected(): void {
    // A frame taken out of the document unloads. Detached, no timer runs, and nothing is scheduled.
    this.#cancel();
    if (this.frame && this.#gone()) return;
    if (this.#state === 'ready') this.#to('loading');
    else this.#stopTimer();
  }

  /** A `moveBefore()`: Firefox starts a new document in a frame whose shadow root moved (its window is new at once). */
  moved(): void {
    if (this.#state === 'ready' && this.frame!.contentWindow !== this.#win && !this.#gone()) {
      this.#reused = true;
      this.#to('loading');
    }
  }

  /** A validated event of the current frame, or of a renewal's frame behind it. */
  event(detail: AnyEventDetail, frameWindow: Window): void {
    const host = this.#host;
    if (host.debug)
      this.#log(
        'event',
        detail.type,
        detail.type === 'svc:event:error'
          ? { ...detail.payload, message: this.#redact(detail.payload.message) }
          : detail.payload,
      );
    if (frameWindow !== this.frame?.contentWindow) return this.#behindEvent(detail);
    if (detail.type === 'svc:event:ready') {
      this.#readyDetail = detail;
      this.#win = frameWindow;
      this.#to('ready');
    } else if (detail.type === 'svc:event:view' || detail.type === 'svc:event:navigate') {
      this.#path = detail.payload.path;
      // The viewer moved on while a renewal restores the path behind: it follows.
      this.#follow();
    }
    // A listener of the ready's svc-action or svc-status may have ended this session.
    if (frameWindow !== this.frame?.contentWindow) return;
    this.#emit(domEventName(detail.type), detail);
    // A listener may have changed the URL meanwhile: then this frame is no longer the current one.
    if (detail.type === 'svc:event:error' && detail.payload.fatal && frameWindow === this.frame?.contentWindow) {
      const { name = '', context = '', message } = detail.payload;
      const session = SESSION_ERROR.test(`${name} ${context}`);
      if (!this.#provider() || !session) {
        // The embed stopped: commands wait for a ready again.
        this.#to('error', {
          reason: 'embed-fatal-error',
          message: this.#redact(message) + (session && this.#reused ? REUSED : ''),
        });
      } else if (performance.now() - this.#lastAutoRenewal < 30000) {
        // A new session that expires at once again: no loop.
        this.#fail();
      } else {
        this.#lastAutoRenewal = performance.now();
        this.#renew(undefined, 'refused');
      }
    }
  }

  /** The host's provider, when it is one. */
  #provider() {
    const provider = this.#host.sessionProvider;
    return typeof provider == 'function' ? provider : undefined;
  }

  /** The ready timeout in force: `readyTimeout` when it is whole milliseconds within setTimeout's range. */
  timeout(): number {
    const ms = this.#host.readyTimeout;
    return Number.isInteger(ms) && ms >= 0 && ms <= MAX_TIMEOUT ? ms : DEFAULT_TIMEOUT;
  }

  /**
   * The URL to load: the host's, with the renewed session standing in for the host's session while the host's
   * session value and the URL's origin are the ones it was renewed with; once either changes, it is dropped.
   */
  #resolve() {
    const renewed = this.#renewed;
    const result = resolveEmbedUrl(this.#host, renewed?.session);
    if (!renewed || (hostSession(this.#host) === renewed.replaced && originOf(result) === renewed.origin))
      return result;
    this.#renewed = undefined;
    return resolveEmbedUrl(this.#host);
  }

  /** The current session's expiry in epoch milliseconds, when it is known. */
  #expiresAt() {
    const renewed = this.#renewed;
    const host = this.#hostExpiry;
    return renewed ? renewed.expiresAt : host?.session === hostSession(this.#host) ? host?.at : undefined;
  }

  /** Makes a wait for the next ready (or error; or, for a renewal, idle). */
  #wait(renewal?: boolean) {
    return new Promise<Ready>((resolve, reject) => this.#waiting.push({ resolve, reject, renewal }));
  }

  /**
   * The one place the state changes, with what entering each state does: the timer (`loading` and `renewing`
   * are bounded while connected), the state and held commands sent at `ready`, the schedule of a renewal ahead of
   * expiry (only while `ready`), the status, and the waiters.
   */
  #to(state: State, detail: Detail = {}) {
    this.#state = state;
    this.#arm();
    if (state === 'ready') this.#flush();
    // Nothing more for a state that a listener (of an svc-action sent at ready) has left.
    if (this.#state !== state) return;
    this.#cancel();
    if (state === 'ready') {
      this.#failures = this.#retryAt = 0;
      this.schedule();
    }
    if (state === 'error') this.#error = new SvcEmbedError(detail.reason!, detail.message!);
    // `pending` settles no one: the update decides.
    for (const w of state === 'pending' ? [] : this.#waiting.splice(0)) {
      if (state === 'ready') w.resolve(this.#readyDetail!);
      else if (state === 'error') w.reject(this.#error!);
      // The host took the URL away: nothing is left to renew.
      else if (state === 'idle' && w.renewal) w.reject(new SvcEmbedError(RENEWAL_FAILED, NOT_RENEWED));
      else this.#waiting.push(w);
    }
    // The status: `renewing` shows as `loading`, and so does `pending` after `ready` (a host change ends the ready
    // at the assignment); otherwise `pending` keeps the status until the update. `svc-status` fires when it changes.
    const previous = this.status;
    const status =
      state === 'renewing' || (state === 'pending' && previous === 'ready')
        ? 'loading'
        : state === 'pending'
          ? previous
          : state;
    if (status === 'error') this.#show(status, detail.message);
    if (status === previous) return;
    this.status = status;
    this.#show(status);
    this.#log('status', status, detail.reason ?? '');
    // A change made by a listener of this svc-status is dispatched after it, to every listener in turn.
    const queued = this.#statuses;
    const change = { status, previous, ...detail };
    if (queued) return void queued.push(change);
    for (const next of (this.#statuses = [change])) this.#emit('svc-status', next);
    this.#statuses = undefined;
  }

  /**
   * The current frame's document goes (a removal, or a move that reloads it in Firefox): the viewer's path is taken
   * now, to restore at the next ready (a `navigate()` made since replaces it). With a provider, a frame whose
   * session is spent never loads it again: the frame goes, and the provider is asked for the next load's session.
   * Returns whether it was.
   */
  #gone() {
    this.#restore = this.#path ?? this.#restore;
    // A frame in the shadow root of an element that was connected has loaded.
    if (!this.#provider() || this.#shown !== this.frame) return;
    this.#shown!.remove();
    this.#shown = undefined;
    this.#renew(undefined, 'load');
    return true;
  }

  /** The current frame, once in the document, has loaded its session: it is spent, for every element of the document. */
  #spend() {
    const host = this.#host;
    if (this.#session && this.#shown === this.frame && host.isConnected) spentIn(host.ownerDocument).add(this.#session);
  }

  /**
   * Ends the current session's gate: nothing more is posted to its frame or accepted from it. Whether held
   * commands survive is the caller's choice.
   */
  #end() {
    this.frame = undefined;
    this.origin = '';
    this.#path = undefined;
  }

  /** A new frame for `url`: sandboxed, with a referrer policy of its own. */
  #make(url: string) {
    const host = this.#host;
    const frame = host.ownerDocument.createElement('iframe');
    frame.setAttribute('sandbox', SANDBOX);
    frame.allow = 'fullscreen; clipboard-write';
    // The tenant learns the host's origin (it checks it), never the page's URL, whatever the page's own policy.
    frame.referrerPolicy = 'strict-origin';
    frame.title = host.title || 'Embedded analytics';
    frame.src = url;
    frame.addEventListener('load', () => frame === this.frame && (this.#loaded = true));
    return frame;
  }

  /** `pending` → the host's URL (with any renewed session) in a new frame, or `idle`, or a refused configuration. */
  #load() {
    const result = this.#resolve();
    this.#key = keyOf(result);
    if (!result) return this.#to('idle');
    if ('reason' in result) {
      console.error(result.message);
      this.#emit('svc-config-error', result);
      // Unless a listener has changed the URL meanwhile.
      if (this.#key === result.reason) this.#to('error', { reason: 'config-error', message: result.message });
      return;
    }
    // A provider gives each load a session of its own, unless this one was given for it.
    const session = new URL(result.url).searchParams.get('session');
    const reused = !!session && spentIn(this.#host.ownerDocument).has(session);
    if (this.#provider() && session !== this.#given && (!session || reused)) return this.#renew(undefined, 'load');
    this.#given = undefined;
    this.#session = session;
    this.#reused = reused;
    const frame = this.#make(result.url);
    frame.setAttribute('part', 'frame');
    this.#setLoading(frame);
    this.origin = result.origin;
    this.frame = frame;
    this.#loadedAt = Date.now();
    // The mask costs a URL parse: only under debug.
    if (this.#host.debug) this.#log('url', maskSessions(result.url));
    this.#to('loading');
  }

  /**
   * `renewing`: the gate closes, and the session comes from the caller or from the provider, asked with `reason`:
   * at once, or for a load, once connected (and near the viewport with `lazy`: see `#arm`).
   */
  #renew(session?: string, reason: SvcSessionReason = 'manual') {
    if (this.#state !== 'renewing') {
      this.#restore = this.#path ?? this.#restore;
      this.#end();
      this.#reason = reason;
      this.#to('renewing', reason == 'load' ? {} : { reason: 'session-renewal' });
      // A status listener changed the URL: that wins.
      if ((this.#state as State) !== 'renewing') return;
      if (session === undefined && reason != 'load') this.#ask();
    }
    if (session !== undefined) this.#apply({ session });
  }

  /** Asks the provider; only the answer to the latest call, while the element still waits for it, counts. */
  #ask() {
    const provider = this.#provider();
    const reason = this.#reason!;
    this.#reason = undefined;
    // The provider went while a load waited: the session at hand is loaded, as without one.
    if (!provider) return this.#apply();
    const attempt = ++this.#attempt;
    const current = () => attempt === this.#attempt && this.#state === 'renewing';
    provide(provider, reason).then(
      (answer) => {
        if (!current()) return;
        if (answer) this.#apply(answer);
        else this.#fail();
      },
      () => current() && this.#fail(),
    );
  }

  /** `renewing` → `pending`: the session given stands in for the host's, and the next update loads it as given. */
  #apply(answer?: NonNullable<Answer>) {
    if (answer) this.#adopt(answer);
    this.#given = answer?.session;
    this.#to('pending');
    this.#host.requestUpdate();
  }

  /** From now on, `answer`'s session stands in for the host's, on the origin it was renewed for (see `#resolve`). */
  #adopt(answer: NonNullable<Answer>) {
    const host = this.#host;
    this.#renewed = { ...answer, replaced: hostSession(host), origin: originOf(resolveEmbedUrl(host, answer.session)) };
    this.#key = keyOf(this.#resolve());
  }

  #fail() {
    this.#end();
    this.#to('error', { reason: RENEWAL_FAILED, message: NOT_RENEWED });
    // Takes the old frame off view.
    this.#host.requestUpdate();
  }

  #setLoading(frame: HTMLIFrameElement) {
    const loading = this.#host.loading;
    if (loading === 'lazy' || loading === 'eager') frame.loading = loading;
    else frame.removeAttribute('loading');
  }

  /**
   * Starts the bound of a waiting state, while connected: the provider wait is bounded by the ready timeout
   * (15 s when it is 0); a frame's, by the ready timeout, from when it comes into view with `lazy`. A load's provider
   * call is made now, or with `lazy`, once the element is near the viewport, where the browser would load its frame.
   */
  #arm() {
    this.#stopTimer();
    const host = this.#host;
    const state = this.#state;
    const load = state === 'renewing' && this.#reason == 'load';
    if (!host.isConnected || (state !== 'loading' && state !== 'renewing')) return;
    this.#loaded = false;
    const start = () => {
      if (this.#reason == 'load') this.#ask();
      this.#startTimer();
    };
    if (host.loading === 'lazy' && (state === 'loading' || load) && typeof IntersectionObserver === 'function') {
      this.#observer = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && start(), {
        rootMargin: load ? '1250px' : '',
      });
      this.#observer.observe(host);
    } else start();
  }

  /** (Re)starts the wait's timer: from now, or from `since` when the ready timeout changed during the wait. */
  #startTimer(since?: number) {
    clearTimeout(this.#timer);
    const ms = this.#state === 'renewing' ? this.#bound() : this.timeout();
    this.#started = since ?? performance.now();
    if (ms) this.#timer = setTimeout(() => this.#timedOut(), since ? Math.max(0, ms - performance.now() + since) : ms);
  }

  #stopTimer() {
    clearTimeout(this.#timer);
    this.#started = 0;
    this.#observer?.disconnect();
    this.#observer = undefined;
  }

  #timedOut() {
    if (this.#state === 'renewing') return this.#fail();
    const frameLoaded = this.#loaded;
    const elapsedMs = Math.round(performance.now() - this.#started!);
    // Chromium fires load for its own error page too, so "loaded" may still be a refused connection.
    const message = `${tag}: no ready in ${Math.round(elapsedMs / 1000)} s. ${
      frameLoaded
        ? "The frame loaded. Likely: this page's origin may not frame the tenant (CSP frame-ancestors, allowed embed origins); embed messaging is not in the tenant's plan; the session is invalid or expired; third-party cookies are blocked; src is not an embed page; or the browser showed an error page (network, DNS, TLS)."
        : 'The frame never loaded: network, DNS or TLS failed, or the tenant is down.'
    }`;
    console.error(message);
    this.#to('error', { reason: 'ready-timeout', message, frameLoaded, elapsedMs });
  }

  /**
   * Schedules the renewal ahead of expiry, while `ready` and connected, with a provider and a known expiry: at the
   * later of 80 % of the lifetime known at load and 60 s before expiry, never later than 5 s before it; after a failed
   * attempt, not before its retry's time; and only while that is before expiry. Past expiry, the embed's fatal
   * session error renews as it always did. Derived from the inputs each time: deriving it again changes nothing.
   */
  schedule(): void {
    if (this.#ahead || this.#state !== 'ready') return;
    clearTimeout(this.#timer);
    const host = this.#host;
    const expiresAt = this.#expiresAt();
    if (!host.isConnected || !this.#provider() || !expiresAt) return;
    const loaded = this.#loadedAt;
    const at = Math.max(
      this.#retryAt,
      Math.min(Math.max(loaded + 0.8 * (expiresAt - loaded), expiresAt - 60000), expiresAt - 5000),
    );
    // Past expiry (or an expiry in seconds read as milliseconds, in 1970), the embed's fatal session error renews.
    if (Math.max(at, Date.now()) >= expiresAt) return;
    // A timer fires at once past 2^31 - 1 ms: a longer wait is done in steps.
    this.#timer = setTimeout(
      () => (Date.now() < at ? this.schedule() : this.#renewAhead()),
      Math.min(at - Date.now(), MAX_TIMEOUT),
    );
  }

  /** Asks for the next session ahead of expiry; each wait (the provider's, the frame's) is bounded by `#bound()`. */
  #renewAhead() {
    const ahead: Ahead = (this.#ahead = {});
    const failed = (reason: SvcRenewalFailedReason) => () => this.#ahead === ahead && this.#failed(reason);
    const bound = (reason: SvcRenewalFailedReason) => (this.#timer = setTimeout(failed(reason), this.#bound()));
    bound('provider-timeout');
    provide(this.#provider()!, 'ahead').then((answer) => {
      if (this.#ahead !== ahead) return;
      if (!answer) return failed('invalid-session')();
      ahead.answer = answer;
      // The host's URL, which is valid while ready, with the new session: same origin.
      const frame = (this.behind = this.#make((resolveEmbedUrl(this.#host, answer.session) as { url: string }).url));
      // Under the visible frame, at its size (the element's style sheet places an inert frame), and inert: out of
      // the focus order and the accessibility tree. Never hidden: a frame that is not rendered is not painted (and
      // browsers throttle it), so at the swap the viewer would see its first paint.
      frame.inert = true;
      this.#host.renderRoot.append(frame);
      spentIn(this.#host.ownerDocument).add(answer.session);
      clearTimeout(this.#timer);
      bound('ready-timeout');
    }, failed('provider-error'));
  }

  /** The bound of a wait for the provider, or for a renewal ahead's frame: the ready timeout, or 15 s when it is 0. */
  #bound() {
    return this.timeout() || DEFAULT_TIMEOUT;
  }

  /** An event of the frame behind: its ready, its view of the viewer's path and its loaded dashboard lead to the swap. */
  #behindEvent(detail: AnyEventDetail) {
    const ahead = this.#ahead!;
    const { type } = detail;
    if (type === 'svc:event:ready') {
      ahead.ready = detail;
      this.#flush(this.behind);
      this.#follow();
    } else if (type === 'svc:event:error' && detail.payload.fatal) return this.#failed('embed-fatal-error');
    else if (!ahead.ready) return;
    else if (type === 'svc:event:view') {
      ahead.seen = detail.payload.path;
      ahead.loaded = false;
    } else if (type === 'svc:event:dashboard-loaded') ahead.loaded = ahead.seen !== undefined;
    this.#ripe();
  }

  /**
   * The swap, once the frame behind shows what the viewer sees and the host has painted twice since (so has the frame
   * behind, under the visible one). It shows it when it is ready (with the state sent) and on the viewer's path (any,
   * when there is none to restore), and on the `dashboard` surface, has its widgets rendered there.
   */
  #ripe() {
    const ahead = this.#ahead!;
    const shows = () => {
      const path = this.#path && !pathProblem(this.#path) ? this.#path : undefined;
      return (
        ahead.ready && (!path || ahead.seen === path) && (ahead.ready.payload.surface != 'dashboard' || ahead.loaded)
      );
    };
    if (!shows()) return;
    const doc = this.#host.ownerDocument;
    const view = doc.defaultView;
    // Only the latest: the two frames count from the last event that made it show the viewer's place.
    const swap = () => ahead.swap === swap && this.#ahead === ahead && shows() && this.#swap();
    ahead.swap = swap;
    // A hidden page paints nothing, and its animation frames wait until it is shown: nobody sees this swap.
    if (!view || doc.hidden) swap();
    else view.requestAnimationFrame(() => view.requestAnimationFrame(swap));
  }

  /** Navigates the frame behind, once it is ready, to the visible frame's path, unless it was sent there already. */
  #follow() {
    const ahead = this.#ahead;
    const path = this.#path;
    if (!ahead?.ready || !path || ahead.path === path || pathProblem(path)) return;
    ahead.path = path;
    this.#post('svc:action:navigate', { path }, this.behind);
  }

  /** The frame behind becomes the visible one, in one task: `status` stays `ready`; `svc-ready` fires for it. */
  #swap() {
    const { answer, ready } = this.#ahead!;
    const old = this.frame!;
    const frame = this.behind;
    this.#ahead = this.behind = undefined;
    this.#adopt(answer!);
    this.frame = this.#shown = frame;
    this.#win = frame!.contentWindow!;
    this.#readyDetail = ready;
    frame!.inert = false;
    // A part only now: a host's ::part(frame) rule must not show the frame behind, or move it.
    frame!.setAttribute('part', 'frame');
    old.remove();
    this.#session = answer!.session;
    this.#reused = false;
    this.#loadedAt = Date.now();
    this.#failures = this.#retryAt = 0;
    this.schedule();
    this.#emit('svc-ready', ready!);
  }

  /** A renewal ahead failed: nothing changes on screen; a retry after 5 s, 10 s, 20 s … while the session lasts. */
  #failed(reason: SvcRenewalFailedReason) {
    this.#cancel();
    const attempt = ++this.#failures;
    this.#log('renewal failed', attempt, reason);
    this.#retryAt = Date.now() + 5000 * 2 ** (attempt - 1);
    this.schedule();
    this.#emit('svc-session-renewal-failed', { attempt, reason, expiresAt: this.#expiresAt() });
  }

  /** Ends a renewal ahead of expiry: its frame goes, and its provider's answer is ignored (its timer: the caller's). */
  #cancel() {
    this.behind?.remove();
    this.#ahead = this.behind = undefined;
  }

  /**
   * The embed's text with every session the element knows (the host's and the renewed one) replaced by "…", in each
   * form a URL may quote it: percent-encoded, form-encoded (`+` for a space) and raw. Shorter ones cannot be told
   * apart from words.
   */
  #redact(text: string) {
    for (const session of [hostSession(this.#host), this.#renewed?.session, this.#ahead?.answer?.session]) {
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
  #flush(behind?: HTMLIFrameElement) {
    const frame = this.frame;
    const live = () => this.#state === 'ready' && this.frame === frame;
    for (const { key, action } of STATE) {
      const payload = this.values[key]?.payload;
      if (payload) {
        if (!behind && !live()) return;
        this.#post(action, payload, behind);
      }
    }
    if (behind) return;
    // After a renewal or a reload: back to where the viewer was, unless the host navigated since.
    const restore = this.#restore;
    if (!live()) return;
    this.#restore = undefined;
    if (restore && !pathProblem(restore)) this.#post('svc:action:navigate', { path: restore });
    while (this.#queue.length && live()) this.#post(...this.#queue.shift()!);
  }

  /**
   * Posts an action whose payload was checked when it was set or called (the state, navigate, the restored path), to
   * the current frame, or to a renewal's frame behind it (with no `svc-action`: that is not yet the host's embed).
   */
  #post(type: ActionType, payload: object, to?: HTMLIFrameElement) {
    const timestamp = Date.now();
    const host = this.#host;
    const view = host.ownerDocument.defaultView;
    if (view && view !== (globalThis as unknown) && !this.#warned) {
      this.#warned = true;
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
    this.#log(to ? 'action behind' : 'action', type, payload);
    if (!to) this.#emit('svc-action', { type, payload, timestamp });
  }

  /** Logs under `debug` (what it logs is cheap to make; the message path checks `debug` first). */
  #log(...what: unknown[]) {
    if (this.#host.debug) console.debug(tag, ...what);
  }

  #emit(name: keyof SvcEmbedEventMap, detail: object) {
    this.#host.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}

/** The URL with every `session` parameter (by its decoded name) replaced by one "…", for the debug log. */
function maskSessions(href: string) {
  const url = new URL(href);
  if (url.searchParams.has('session')) url.searchParams.set('session', '…');
  return url.href.replace('%E2%80%A6', '…');
}
