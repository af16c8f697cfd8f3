import { ReactiveElement, css } from '@lit/reactive-element';
import type { PropertyValues } from '@lit/reactive-element';
import {
  EVENT_TYPES,
  SOURCE,
  colorSchemeProblem,
  domEventName,
  filterProblem,
  isPlainObject,
  localeProblem,
  pathProblem,
  readEvent,
  sessionProblem,
  themeProblem,
} from '@svc-embed/protocol';
import type { ActionPayloadMap, ActionType, AnyEventDetail, EmbedTheme } from '@svc-embed/protocol';
import { hostSession, resolveEmbedUrl } from './embed-url.js';
import { SvcEmbedError } from './error.js';
import type { EmbedUrlResult } from './embed-url.js';
import type { SvcEmbedEventMap, SvcEmbedStatus, SvcEventDetail, SvcStatusDetail } from './events.js';

type StateKey = 'theme' | 'colorScheme' | 'locale' | 'filter';
type Detail = Omit<SvcStatusDetail, 'status' | 'previous'>;

/**
 * The session lifecycle. Every change of state goes through `#to`, which also does what entering a state
 * means (the timer, the status, the waiting promises):
 *
 * | from | on | to |
 * |---|---|---|
 * | any | the host changes the resolved URL (at the assignment) | `pending` (`idle` when nothing is left to load; the status `loading` when it was `ready`): held commands and the path to restore are dropped (not those made while `idle`) |
 * | `pending` | Lit's update | `idle` (no URL), `error` (`config-error`) or `loading` (a new frame) |
 * | any with a URL | `renewSession()`, a fatal session error with a provider | `renewing`: the gate closes, the old frame stays on view |
 * | `renewing` | a session (given, or from the provider) | `pending`, with the renewed session standing in for the host's |
 * | `renewing` | the provider fails, returns a bad session, or outlasts the ready timeout | `error` (`session-renewal-failed`) |
 * | `loading`, `ready`, `error` | the current frame says ready | `ready`: the state, the restored path and the held commands are sent |
 * | `loading` | the ready timer | `error` (`ready-timeout`) |
 * | `loading`, `ready`, `error` | a fatal embed error that a new session cannot fix | `error` (`embed-fatal-error`) |
 * | `ready` | disconnection (the frame unloads) | `loading`, without a timer until connected again |
 * | `loading`, `ready`, `error` with a frame | (re)connection, or a move that gives the frame a new document (Firefox) | `loading`, the viewer's path restored at ready |
 *
 * A move with `moveBefore()` in Chromium is none of these: the frame lives on.
 */
type State = 'idle' | 'pending' | 'loading' | 'ready' | 'renewing' | 'error';

/**
 * The state that is (re)sent at every ready, in this order, each with the payload field that carries it. The
 * theme is the payload itself, as a JSON copy: a framework's reactive proxy passes every shape check, but
 * structured clone cannot carry it.
 */
const STATE: ReadonlyArray<{
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

// The properties the embed URL is built from.
const URL_KEYS: PropertyKey[] = ['src', 'tenantOrigin', 'publicId', 'session', 'allowExport'];

// Each token has a reason. The embed runs scripts and keeps its own origin (its session and API calls), submits
// its forms, opens links in new tabs and downloads exports. Not allow-top-navigation: the embed must never
// navigate the host page away. Not allow-popups-to-escape-sandbox: an unsandboxed popup could navigate its
// opener's top (Firefox lets it), so popups keep the sandbox.
const SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-downloads';

const DEFAULT_TIMEOUT = 15000;
// setTimeout fires at once beyond this.
const MAX_TIMEOUT = 2147483647;
// A fatal embed error whose name or context says this is a session problem, which a new session can fix.
const SESSION_ERROR = /session|auth|token|expired/i;
const tag = '<svc-embed>';
const RENEWAL_FAILED = 'session-renewal-failed';
const NOT_RENEWED = `${tag}: the session could not be renewed`;

/** `svc:event:ready` → `svc-ready`, worked out once. */
const DOM_NAMES = Object.fromEntries(EVENT_TYPES.map((type) => [type, domEventName(type)])) as Record<
  string,
  keyof SvcEmbedEventMap
>;

/**
 * A boolean attribute, where the text "false" also means false: Vue and Svelte write `allow-export="false"` for
 * a false binding, and that must not turn exports on.
 */
const flag = { fromAttribute: (value: string | null) => value !== null && value !== 'false' };

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

/**
 * Embeds a dashboard, the app or the AI chat of an analytics tenant, and brokers the embed message
 * protocol safely: incoming messages count only from this element's own frame and the exact tenant
 * origin, are validated, and are re-dispatched as typed DOM events; actions go out only after ready,
 * and only to the tenant origin.
 *
 * @fires {SvcEventDetail<'svc:event:ready'>} svc-ready - `svc:event:ready`: the embed authenticated and mounted. Payload: `embedTenant` (string | null), `deploymentId` (number | null), `mode` (`signed` | `private`), `surface`, `publicId?`.
 * @fires {SvcEventDetail<'svc:event:view'>} svc-view - `svc:event:view`: a surface was viewed. Payload: `surface`, `path`, `publicId?`, `title?`.
 * @fires {SvcEventDetail<'svc:event:navigate'>} svc-navigate - `svc:event:navigate`: the viewer navigated inside the embed. Payload: `path`, `previousPath?`.
 * @fires {SvcEventDetail<'svc:event:dashboard-loaded'>} svc-dashboard-loaded - `svc:event:dashboard-loaded`: all widgets of a dashboard rendered. Payload: `publicId?`, `widgetCount?`, `loadDurationMs?`.
 * @fires {SvcEventDetail<'svc:event:download'>} svc-download - `svc:event:download`: the viewer exported data or an image. Payload: `format` (`csv` | `xlsx` | `png` | `pdf`), `target` (`widget` | `dashboard`), `widgetId?`, `title?`, `rowCount?`.
 * @fires {SvcEventDetail<'svc:event:drilldown'>} svc-drilldown - `svc:event:drilldown`: the viewer drilled into a measure. Payload: `member`, `value?` (any type, passed through as structured clone delivered it), `widgetId?`.
 * @fires {SvcEventDetail<'svc:event:ai-query'>} svc-ai-query - `svc:event:ai-query`: an AI query was submitted, completed or failed. Payload: `query`, `status` (`submitted` | `completed` | `error`), `chatId?`, `agentId?`.
 * @fires {SvcEventDetail<'svc:event:error'>} svc-error - `svc:event:error`: the embed surfaced an error. Payload: `message`, `name?`, `context?`, `fatal?`.
 * @fires {SvcMessageRejectedDetail} svc-message-rejected - A message from the embed's own frame and origin failed validation and was not dispatched. Detail: `{reason, type?}`. `reason` names the field and the rule, never message data; `type` is there when it was a known event type.
 * @fires {SvcConfigErrorDetail} svc-config-error - The embed URL was refused; no iframe exists, and `status` becomes `error`. Detail: `{reason, message}`; `reason` is `relative-url`, `invalid-url`, `unsupported-protocol`, `insecure-protocol`, `credentials-in-url`, `opaque-origin`, `invalid-tenant-origin`, `invalid-public-id` or `invalid-session`.
 * @fires {SvcStatusDetail} svc-status - `status` changed. Detail: `{status, previous, reason?, message?, frameLoaded?, elapsedMs?}`.
 * @fires {SvcActionDetail} svc-action - An action was posted to the embed: exactly the envelope sent, without `source` and `direction`. Detail: `{type, payload, timestamp}`.
 * @slot loading - Shown over the frame while `status` is `loading`.
 * @slot error - Shown over the frame while `status` is `error`; replaces the built-in message.
 * @csspart frame - The iframe.
 * @csspart loading - The box over the frame that holds the `loading` slot.
 * @csspart error - The box over the frame that holds the `error` slot.
 * @cssstate loading - Waiting for the embed's ready.
 * @cssstate ready - The embed is ready.
 * @cssstate error - A refused configuration, a ready timeout, a fatal embed error or a failed renewal.
 */
export class SvcEmbedElement extends ReactiveElement {
  // Kept terse: these bytes ship in every bundle.
  static override styles = css`:host{display:block;position:relative;height:600px}:host([hidden]),[hidden]{display:none!important}
iframe{display:block;box-sizing:border-box;width:100%;height:100%;border:0}
[part=loading],[part=error]{position:absolute;inset:0;display:flex;align-items:center;justify-content:center}
[part=error]{padding:1em;text-align:center;background:#f4f4f5;color:#3f3f46}`;

  static override properties = {
    src: {},
    tenantOrigin: { attribute: 'tenant-origin' },
    publicId: { attribute: 'public-id' },
    session: {},
    allowExport: { type: Boolean, attribute: 'allow-export', converter: flag },
    colorScheme: { attribute: 'color-scheme' },
    locale: {},
    filter: {},
    theme: {
      // The attribute takes JSON; text that does not parse stays a string, which the theme check reports.
      // "[object Object]" is what a server renderer writes for an object property: no theme, and no warning,
      // since the property set at hydration brings the real one.
      converter: (value: string | null) => {
        if (value === '[object Object]') return undefined;
        try {
          return value === null ? value : (JSON.parse(value) as unknown);
        } catch {
          return value;
        }
      },
    },
    title: {},
    // Empty text is no number (Number('') is 0, which would wait forever): it warns like any other invalid value.
    readyTimeout: {
      attribute: 'ready-timeout',
      converter: (value: string | null) => (value && /\S/.test(value) ? +value : value === null ? value : NaN),
    },
    loading: {},
    debug: { type: Boolean, converter: flag },
    sessionProvider: { attribute: false },
  };

  static {
    // Whether a URL property's change ends the session is decided at the assignment itself, not in Lit's update a
    // microtask later: where a message may go must change when the host changes the URL. So Lit's accessors of
    // those properties, once made, are wrapped.
    // `readyTimeout` is wrapped as well: null and undefined (a removed attribute, a prop a wrapper took away) mean
    // the default, which the property then reads, as its type says.
    this.finalize();
    for (const name of [...URL_KEYS, 'readyTimeout']) {
      const lit = Object.getOwnPropertyDescriptor(this.prototype, name)!;
      Object.defineProperty(this.prototype, name, {
        ...lit,
        set(this: SvcEmbedElement, value: unknown) {
          if (name === 'readyTimeout') lit.set!.call(this, value ?? DEFAULT_TIMEOUT);
          else {
            lit.set!.call(this, value);
            this.#assigned();
          }
        },
      });
    }
  }

  /**
   * The full embed URL. Its origin is the tenant origin every message check uses. `https:` only; `http:` only on
   * loopback (`localhost`, `127.0.0.0/8`, `[::1]`). Relative URLs, other schemes and URLs with user-info are refused.
   */
  declare src?: string | null;
  /**
   * A bare origin. With `public-id` (and `session`), builds `{tenant-origin}/embed/dashboard/{public-id}?session={session}`
   * (the session encoded) when `src` is absent.
   */
  declare tenantOrigin?: string | null;
  /**
   * The dashboard's public id, used with `tenant-origin`: 1 to 256 characters of `A-Z a-z 0-9 - _ . ~`, not `.` or
   * `..`. Anything else is refused with `invalid-public-id`.
   */
  declare publicId?: string | null;
  /**
   * The session id from the session-generation API, used with `tenant-origin`. Optional: without it the embed runs
   * in `private` mode. A session with a control character or a lone surrogate is refused with `invalid-session`.
   */
  declare session?: string | null;
  /**
   * Adds `allowExport=true` to the embed URL (either form): the CSV download control appears. The attribute value
   * `false` reads as false.
   */
  declare allowExport: boolean;
  /** `light`, `dark` or `auto` (follows the viewer's OS preference). Sends `svc:action:set-color-scheme`. */
  declare colorScheme?: 'light' | 'dark' | 'auto' | null;
  /** A BCP 47 language tag such as `de-DE`, checked with `Intl.getCanonicalLocales`. Sends `svc:action:set-locale`. */
  declare locale?: string | null;
  /**
   * `f_<semantic_view>.<dimension>=<JSON>` in URL-query form, whose JSON is an object with a `"value"` key; build it
   * with `filterParam('orders', 'status', 'shipped')`. Sends `svc:action:set-filter`.
   */
  declare filter?: string | null;
  /**
   * A brand theme (`primaryColor`, `borderRadius`, `font`, …): plain JSON-like data. Assign a new object to apply a
   * change; a JSON copy is sent with `svc:action:set-theme`. The attribute takes JSON; the text `[object Object]`
   * that server renderers write for an object is ignored.
   */
  declare theme?: EmbedTheme | null;
  /** The accessible name of the iframe. Default: "Embedded analytics". */
  declare title: string;
  /**
   * Milliseconds to wait for the embed's ready before `status` becomes `error` (`ready-timeout`): whole milliseconds
   * from `0` (waits forever) to `2147483647`; anything else (an empty attribute too) warns, and the default applies.
   * `null`, `undefined` or removing the attribute restore the default, `15000`. A new value applies to a running
   * wait, counted from when it began.
   */
  declare readyTimeout: number;
  /** `lazy` or `eager`, passed to the iframe. With `lazy`, the ready timeout starts when the element comes into view. */
  declare loading?: 'lazy' | 'eager' | null;
  /**
   * Logs events, actions, rejections, status changes and the embed URL (session masked) with `console.debug`. The
   * attribute value `false` reads as false.
   */
  declare debug: boolean;
  /** Returns a fresh session id from your backend; used by `renewSession()` and by automatic renewal. */
  declare sessionProvider?: (() => Promise<string>) | null;

  #state: State = 'pending';
  /** The last status dispatched in `svc-status`. */
  #status: SvcEmbedStatus = 'idle';
  /** The current session's frame: messages count only from its window, and actions go only to it. */
  #frame?: HTMLIFrameElement;
  /** The frame in the shadow root: the current one once Lit's update has run. */
  #shown?: HTMLIFrameElement;
  #origin = '';
  /** The key (see keyOf) of the URL the element is on, to tell a host change from an unchanged write. */
  #key?: string;
  #readyDetail?: SvcEventDetail<'svc:event:ready'>;
  #error?: SvcEmbedError;
  /** Commands held until the next ready. */
  #queue: Array<[ActionType, object]> = [];
  /** The state to send, by property: its payload when valid, else what is wrong with it. */
  #values: Partial<Record<StateKey, { payload?: object; problem?: string }>> = {};
  /** whenReady() and renewSession() callers; `renewal` ones also fail when nothing is left to load. */
  #waiting: Array<{
    resolve: (detail: SvcEventDetail<'svc:event:ready'>) => void;
    reject: (error: Error) => void;
    renewal?: boolean;
  }> = [];
  /**
   * A renewed session, the host's session value it stands in for, and the origin it was renewed for. The host owns
   * `src` and `session`; this is the element's own, and lasts while both the host's session value and the embed
   * URL's origin stay the ones it was renewed with: a credential never goes to another tenant.
   */
  #renewed?: { replaced: string | null; session: string; origin: string };
  /** Counts provider calls, so that only the answer to the latest one is used. */
  #attempt = 0;
  #lastAutoRenewal = -Infinity;
  /** The last in-embed path the embed reported, and the one a renewal restores. */
  #path?: string;
  #restore?: string;
  /** The window whose `message` events this element listens to while connected. */
  #listening?: Window | null;
  /** The document whose realm made the shadow root's style sheet; Lit's own is this module's. */
  #styled?: Document;
  #internals?: ElementInternals;
  #overlays?: { loading: HTMLElement; error: HTMLElement; message: HTMLElement };
  #timer?: ReturnType<typeof setTimeout>;
  #observer?: IntersectionObserver;
  /** When the running wait began; 0 while none runs. */
  #started = 0;
  #loaded = false;
  /** The window that said ready: another one in the current frame is a new document (Firefox, after a move). */
  #win?: Window;
  /** svc-status details waiting to be dispatched while one is: listeners see the changes in the order they happened. */
  #statuses?: object[];
  #warned = false;

  constructor() {
    super();
    this.allowExport = false;
    this.debug = false;
    this.readyTimeout = DEFAULT_TIMEOUT;
    try {
      this.#internals = this.attachInternals();
    } catch {
      // No ElementInternals (an old browser, a server-side DOM shim): no custom states.
    }
  }

  /** Whether the embed has said `svc:event:ready` for the current session: `true` exactly when `status` is `ready`. */
  get ready(): boolean {
    return this.#status === 'ready';
  }

  /** `idle` (nothing to load), `loading` (waiting for ready, or for a renewed session), `ready`, or `error`. */
  get status(): SvcEmbedStatus {
    return this.#status;
  }

  /**
   * Resolves with the current session's ready detail (at once when the embed is ready). Rejects with an
   * `SvcEmbedError` whose `reason` is the status reason when the element reaches `error` first (at once
   * when it is in `error` now). While `idle`, waits for the next session. Detached, nothing is timed: on an element
   * removed while it waits, the promise waits until it is inserted again; bound it yourself where that matters.
   */
  whenReady(): Promise<SvcEventDetail<'svc:event:ready'>> {
    if (this.#state === 'ready') return Promise.resolve(this.#readyDetail!);
    if (this.#state === 'error') return Promise.reject(this.#error!);
    return this.#wait();
  }

  /**
   * Navigates the embed to a path inside it. Held until the embed is ready. Throws a `TypeError` unless the path
   * starts with a single `/` and has no scheme, `//`, backslash, `.` or `..` segment (also as `%2e`), control or
   * bidirectional character, line or paragraph separator, or lone surrogate.
   */
  navigate(path: string): void {
    const problem = pathProblem(path);
    if (problem) throw new TypeError(`${tag}.navigate(path): path ${problem}`);
    this.#restore = undefined;
    this.#command('svc:action:navigate', { path });
  }

  /** Re-runs the embed's queries. Held until the embed is ready. */
  refresh(): void {
    this.#command('svc:action:refresh', {});
  }

  /**
   * Reloads the embed with a new session: `session`, or else one from `sessionProvider`. `src` and `session`
   * keep what the host set: the element loads the host's URL with its `session` replaced. The viewer's place
   * is kept: the state is re-sent, the last in-embed path restored, and held commands posted. Resolves at
   * the new ready; rejects when the element reaches `error`, or `idle`. While a renewal is pending, a call
   * without a session joins it, and a call with one loads that session instead. Throws a `TypeError` when
   * `session` is given but is not a non-empty string without control characters or lone surrogates, when neither
   * `session` nor `sessionProvider` is there, or when there is no embed URL to renew. A renewed session is used only
   * on the origin it was renewed for. Detached, nothing is timed: on an element removed while the provider or the
   * embed is answering, the promise waits until it is inserted again.
   */
  renewSession(session?: string): Promise<void> {
    const problem = !resolveEmbedUrl(this)
      ? 'needs src, or tenant-origin and public-id, to renew'
      : session === undefined
        ? typeof this.sessionProvider !== 'function' && 'or a sessionProvider is needed'
        : sessionProblem(session);
    if (problem) throw new TypeError(`${tag}.renewSession(session): session ${problem}`);
    // A renewal waiting for the provider, whichever started it, or a renewed session waiting for its ready.
    const pending = this.#state === 'renewing' || this.#waiting.some((w) => w.renewal);
    const done: Promise<unknown> = this.#wait(true);
    if (session !== undefined || !pending) this.#renew(session);
    return done as Promise<void>;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    const doc = this.ownerDocument;
    const view = doc.defaultView;
    if (view && doc !== (this.#styled ?? document)) {
      // Adopted into another document (a pop-out window): a constructed style sheet applies only in the
      // document it was made for, so make one there.
      const sheet = new view.CSSStyleSheet();
      sheet.replaceSync(SvcEmbedElement.styles.cssText);
      this.shadowRoot!.adoptedStyleSheets = [sheet];
      this.#styled = doc;
    }
    // One listener per connection, on the window this element now lives in (it may have been adopted into
    // a pop-out document); disconnecting removes it, so re-insertion never doubles it. (A plain remove is
    // cheaper per mount/unmount than an AbortController.)
    this.#listening?.removeEventListener('message', this.#onMessage);
    (this.#listening = view)?.addEventListener('message', this.#onMessage);
    // Re-inserted: the frame reloads and must say ready again. Otherwise the wait (a renewal's, or a frame's not yet
    // in the shadow root, when a listener re-inserted the element at its `loading`) is bounded again.
    if (this.#frame && this.#shown === this.#frame) this.#reload();
    else this.#arm();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#listening?.removeEventListener('message', this.#onMessage);
    this.#listening = undefined;
    // A frame taken out of the document unloads. Detached, no timer runs.
    if (this.#state === 'ready') this.#to('loading');
    else this.#stopTimer();
  }

  /**
   * `moveBefore()` keeps the frame alive: the session, `ready`, the state and the held commands go on as they
   * were. Defining this keeps the browser from calling disconnect and connect for such a move. Firefox starts a new
   * document in a frame whose shadow root moved (the frame's window is new at once): that is a reload.
   * @internal
   */
  protected connectedMoveCallback(): void {
    if (this.#state === 'ready' && this.#frame!.contentWindow !== this.#win) this.#reload();
  }

  protected override createRenderRoot(): ShadowRoot {
    const root = super.createRenderRoot() as ShadowRoot;
    const doc = this.ownerDocument;
    const box = (part: string) => {
      const div = doc.createElement('div');
      const slot = doc.createElement('slot');
      div.setAttribute('part', (slot.name = part));
      div.hidden = true;
      div.append(slot);
      root.append(div);
      return div;
    };
    const message = doc.createElement('span');
    this.#overlays = { loading: box('loading'), error: box('error'), message };
    this.#overlays.error.setAttribute('role', 'alert');
    this.#overlays.error.firstChild!.appendChild(message);
    return root;
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (changed.has('readyTimeout')) {
      if (this.#timeout() !== this.readyTimeout)
        console.warn(
          `${tag}: ignoring ready-timeout: must be whole milliseconds from 0 to ${MAX_TIMEOUT}; using ${DEFAULT_TIMEOUT}`,
        );
      // A new value applies to the running wait, counted from when it began.
      if (this.#started) this.#startTimer(this.#started);
    }
    if (this.#state === 'pending') this.#load();
    if (this.#frame) {
      if (changed.has('title')) this.#frame.title = this.title || 'Embedded analytics';
      if (changed.has('loading')) this.#setLoading(this.#frame);
    }
  }

  protected override update(changed: PropertyValues): void {
    super.update(changed);
    // Swapping the node (not its src) gives every session a new window. While a renewal waits for its
    // session, the old frame stays on view (the gate is already closed to it).
    if (this.#shown !== this.#frame && this.#state !== 'renewing') {
      this.#shown?.remove();
      if (this.#frame) this.renderRoot.prepend(this.#frame);
      this.#shown = this.#frame;
    }
  }

  protected override updated(changed: PropertyValues): void {
    for (const entry of STATE) {
      const { key, action } = entry;
      if (!changed.has(key)) continue;
      const value = (this.#values[key] = this.#check(entry));
      if (!value) continue;
      // Named by the attribute: `color-scheme` is Lit's declared one; the others are their property names.
      if (value.problem)
        console.warn(
          `${tag}: ignoring ${SvcEmbedElement.elementProperties.get(key)!.attribute || key}: ${value.problem}`,
        );
      else if (this.#state === 'ready') this.#post(action, value.payload!);
    }
    // A listener changed the URL during this update (at its svc-status or svc-config-error): the next one loads it.
    if (this.#state === 'pending') this.requestUpdate();
  }

  /** A URL property was assigned, by the host or from an attribute. */
  #assigned() {
    // A host change wins, completely: the session and any renewal end, and what was held for them is dropped
    // (what was held while idle, or before the first URL, waits for the next session).
    const key = keyOf(this.#resolve());
    if (key === this.#key) return;
    if (this.#key) this.#queue = [];
    this.#key = key;
    this.#restore = undefined;
    this.#end();
    // Nothing left to load is `idle` at once; a URL (or a refusal) is loaded by the update, `loading` meanwhile when
    // the element was `ready`.
    this.#to(key ? 'pending' : 'idle');
  }

  /** The current value of a state property, checked, with the payload to send: a copy taken now. */
  #check({ key, field, check }: (typeof STATE)[number]): { payload?: object; problem?: string } | undefined {
    const value = this[key];
    if (value == null) return undefined;
    try {
      const problem = check(value);
      return problem
        ? { problem }
        : { payload: field ? { [field]: value } : (JSON.parse(JSON.stringify(value)) as object) };
    } catch {
      // A getter or proxy trap that throws.
      return { problem: 'must be plain JSON-like data' };
    }
  }

  /**
   * The URL to load: the host's, with the renewed session standing in for the host's session while the host's
   * session value and the URL's origin are the ones it was renewed with; once either changes, it is dropped.
   */
  #resolve() {
    const renewed = this.#renewed;
    const result = resolveEmbedUrl(this, renewed?.session);
    if (!renewed || (hostSession(this) === renewed.replaced && originOf(result) === renewed.origin)) return result;
    this.#renewed = undefined;
    return resolveEmbedUrl(this);
  }

  /** The ready timeout in force: `readyTimeout` when it is whole milliseconds within setTimeout's range. */
  #timeout() {
    const ms = this.readyTimeout;
    return Number.isInteger(ms) && ms >= 0 && ms <= MAX_TIMEOUT ? ms : DEFAULT_TIMEOUT;
  }

  /** Makes a wait for the next ready (or error; or, for a renewal, idle). */
  #wait(renewal?: boolean) {
    return new Promise<SvcEventDetail<'svc:event:ready'>>((resolve, reject) =>
      this.#waiting.push({ resolve, reject, renewal }),
    );
  }

  /**
   * The one place the state changes, with what entering each state does: the timer (`loading` and `renewing`
   * are bounded while connected), the state and held commands sent at `ready`, the status, and the waiters.
   */
  #to(state: State, detail: Detail = {}) {
    this.#state = state;
    this.#arm();
    if (state === 'ready') this.#flush();
    // Nothing more for a state that a listener (of an svc-action sent at ready) has left.
    if (this.#state !== state) return;
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
    const previous = this.#status;
    const status =
      state === 'renewing' || (state === 'pending' && previous === 'ready')
        ? 'loading'
        : state === 'pending'
          ? previous
          : state;
    const overlays = this.#overlays;
    if (status === 'error' && overlays) overlays.message.textContent = detail.message!;
    if (status === previous) return;
    this.#status = status;
    if (overlays) {
      overlays.loading.hidden = status !== 'loading';
      overlays.error.hidden = status !== 'error';
    }
    try {
      const states = this.#internals?.states;
      states?.delete(previous);
      if (status !== 'idle') states?.add(status);
    } catch {
      // A CustomStateSet that only takes --dashed names (Chromium before 125).
    }
    if (status === 'loading') this.setAttribute('aria-busy', 'true');
    else this.removeAttribute('aria-busy');
    if (this.debug) this.#log('status', status, detail.reason ?? '');
    // A change made by a listener of this svc-status is dispatched after it, to every listener in turn.
    const queued = this.#statuses;
    const change = { status, previous, ...detail };
    if (queued) return void queued.push(change);
    for (const next of (this.#statuses = [change])) this.#emit('svc-status', next);
    this.#statuses = undefined;
  }

  /**
   * The current frame starts a new document the element did not ask for (a re-insertion, or a move in Firefox):
   * `loading` until it says ready, when the state and the viewer's last path are sent again.
   */
  #reload() {
    this.#restore = this.#path ?? this.#restore;
    this.#to('loading');
  }

  /**
   * Ends the current session's gate: nothing more is posted to its frame or accepted from it. Whether held
   * commands survive is the caller's choice.
   */
  #end() {
    this.#frame = undefined;
    this.#origin = '';
    this.#path = undefined;
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
    const frame = this.ownerDocument.createElement('iframe');
    frame.setAttribute('part', 'frame');
    frame.setAttribute('sandbox', SANDBOX);
    frame.allow = 'fullscreen; clipboard-write';
    // The tenant learns the host's origin (it checks it), never the page's URL, whatever the page's own policy.
    frame.referrerPolicy = 'strict-origin';
    frame.title = this.title || 'Embedded analytics';
    this.#setLoading(frame);
    frame.addEventListener('load', () => frame === this.#frame && (this.#loaded = true));
    frame.src = result.url;
    this.#origin = result.origin;
    this.#frame = frame;
    if (this.debug) this.#log('url', maskSessions(result.url));
    this.#to('loading');
  }

  /** `renewing`: the gate closes, and the session comes from the caller or from the provider. */
  #renew(session?: string) {
    if (this.#state !== 'renewing') {
      this.#restore = this.#path ?? this.#restore;
      this.#end();
      this.#to('renewing', { reason: 'session-renewal' });
      // A status listener changed the URL: that wins.
      if ((this.#state as State) !== 'renewing') return;
    }
    if (session !== undefined) return this.#apply(session);
    // Only the answer to this call, while the element still waits for it, counts.
    const attempt = ++this.#attempt;
    const current = () => attempt === this.#attempt && this.#state === 'renewing';
    new Promise<string>((resolve) => resolve(this.sessionProvider!())).then(
      (given) => current() && (sessionProblem(given) ? this.#fail() : this.#apply(given)),
      () => current() && this.#fail(),
    );
  }

  /** `renewing` → `pending`: the renewed session stands in for the host's, and the next update loads it. */
  #apply(session: string) {
    this.#renewed = { replaced: hostSession(this), session, origin: originOf(resolveEmbedUrl(this, session)) };
    this.#key = keyOf(this.#resolve());
    this.#to('pending');
    this.requestUpdate();
  }

  #fail() {
    this.#end();
    this.#to('error', { reason: RENEWAL_FAILED, message: NOT_RENEWED });
    // Takes the old frame off view.
    this.requestUpdate();
  }

  #setLoading(frame: HTMLIFrameElement) {
    const loading = this.loading;
    if (loading === 'lazy' || loading === 'eager') frame.loading = loading;
    else frame.removeAttribute('loading');
  }

  /**
   * Starts the bound of a waiting state, while connected: the provider wait is bounded by the ready timeout
   * (15 s when it is 0); a frame's, by the ready timeout, from when it comes into view with `lazy`.
   */
  #arm() {
    this.#stopTimer();
    if (!this.isConnected) return;
    if (this.#state === 'renewing') return this.#startTimer();
    if (this.#state !== 'loading') return;
    this.#loaded = false;
    if (this.loading === 'lazy' && typeof IntersectionObserver === 'function') {
      this.#observer = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) this.#startTimer();
      });
      this.#observer.observe(this);
    } else this.#startTimer();
  }

  /** (Re)starts the wait's timer: from now, or from `since` when the ready timeout changed during the wait. */
  #startTimer(since?: number) {
    clearTimeout(this.#timer);
    const ms = this.#timeout() || (this.#state === 'renewing' ? DEFAULT_TIMEOUT : 0);
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
    const elapsedMs = Math.round(performance.now() - this.#started);
    // Chromium fires load for its own error page too, so "loaded" may still be a refused connection.
    const message = `${tag}: no ready in ${Math.round(elapsedMs / 1000)} s. ${
      frameLoaded
        ? "The frame loaded. Likely: this page's origin may not frame the tenant (CSP frame-ancestors, allowed embed origins); embed messaging is not in the tenant's plan; the session is invalid or expired; third-party cookies are blocked; src is not an embed page; or the browser showed an error page (network, DNS, TLS)."
        : 'The frame never loaded: network, DNS or TLS failed, or the tenant is down.'
    }`;
    console.error(message);
    this.#to('error', { reason: 'ready-timeout', message, frameLoaded, elapsedMs });
  }

  // The whole security gate. Foreign traffic is ignored silently: the page has other senders and listeners.
  #onMessage = (event: MessageEvent) => {
    // Window identity first (two embeds of one tenant, sibling frames, the host itself), then the exact
    // origin (the frame may have been navigated elsewhere; #origin is never the opaque "null": resolveEmbedUrl
    // accepts only https: and loopback http: URLs), then our tag.
    const frameWindow = this.#frame?.contentWindow;
    if (!frameWindow || event.source !== frameWindow || event.origin !== this.#origin) return;
    const data: unknown = event.data;
    if (!isPlainObject(data) || !Object.hasOwn(data, 'source') || data.source !== SOURCE) return;

    let detail = readEvent(data);
    // The protocol has no use for ports: a transferred channel must never reach a listener.
    if (event.ports.length)
      detail = detail.type ? { reason: 'ports: not allowed', type: detail.type } : { reason: 'ports: not allowed' };
    if ('reason' in detail) {
      if (this.debug) this.#log('rejected', detail.reason);
      this.#emit('svc-message-rejected', detail);
    } else this.#onEvent(detail, frameWindow);
  };

  /** A validated event of the current frame. */
  #onEvent(detail: AnyEventDetail, frameWindow: Window) {
    if (this.debug)
      this.#log(
        'event',
        detail.type,
        detail.type === 'svc:event:error'
          ? { ...detail.payload, message: this.#redact(detail.payload.message) }
          : detail.payload,
      );
    if (detail.type === 'svc:event:ready') {
      this.#readyDetail = detail;
      this.#win = frameWindow;
      this.#to('ready');
    } else if (detail.type === 'svc:event:view' || detail.type === 'svc:event:navigate') {
      this.#path = detail.payload.path;
    }
    // A listener of the ready's svc-action or svc-status may have ended this session.
    if (frameWindow !== this.#frame?.contentWindow) return;
    this.#emit(DOM_NAMES[detail.type], detail);
    // A listener may have changed the URL meanwhile: then this frame is no longer the current one.
    if (detail.type === 'svc:event:error' && detail.payload.fatal && frameWindow === this.#frame?.contentWindow) {
      const { name = '', context = '', message } = detail.payload;
      if (typeof this.sessionProvider !== 'function' || !SESSION_ERROR.test(`${name} ${context}`)) {
        // The embed stopped: commands wait for a ready again.
        this.#to('error', { reason: 'embed-fatal-error', message: this.#redact(message) });
      } else if (performance.now() - this.#lastAutoRenewal < 30000) {
        // A new session that expires at once again: no loop.
        this.#fail();
      } else {
        this.#lastAutoRenewal = performance.now();
        this.#renew();
      }
    }
  }

  /**
   * The embed's text with every session the element knows (the host's and the renewed one) replaced by "…", in each
   * form a URL may quote it: percent-encoded, form-encoded (`+` for a space) and raw. Shorter ones cannot be told
   * apart from words.
   */
  #redact(text: string) {
    for (const session of [hostSession(this), this.#renewed?.session]) {
      if (session && session.length >= 8 && !sessionProblem(session))
        for (const form of [encodeURIComponent(session), `${new URLSearchParams([['', session]])}`.slice(1), session])
          text = text.replaceAll(form, '…');
    }
    return text;
  }

  /**
   * At ready: the state, the path to restore, then the held commands. A listener of their `svc-action` may end this
   * ready (renew, re-insert, change the URL): what is not sent yet then waits for the next ready, unless the host's
   * change dropped it (rule 3).
   */
  #flush() {
    const frame = this.#frame;
    const live = () => this.#state === 'ready' && this.#frame === frame;
    for (const { key, action } of STATE) {
      const payload = this.#values[key]?.payload;
      if (payload) {
        if (!live()) return;
        this.#post(action, payload);
      }
    }
    // After a renewal or a reload: back to where the viewer was, unless the host navigated since.
    const restore = this.#restore;
    if (!live()) return;
    this.#restore = undefined;
    if (restore && !pathProblem(restore)) this.#post('svc:action:navigate', { path: restore });
    while (this.#queue.length && live()) this.#post(...this.#queue.shift()!);
  }

  #command<T extends ActionType>(type: T, payload: ActionPayloadMap[T]) {
    if (this.#state === 'ready') this.#post(type, payload);
    else this.#queue.push([type, payload]);
  }

  /** Posts an action whose payload was checked when it was set or called (the state, navigate, the restored path). */
  #post(type: ActionType, payload: object) {
    const timestamp = Date.now();
    if (this.#listening && this.#listening !== (globalThis as unknown) && !this.#warned) {
      this.#warned = true;
      console.warn(
        `${tag}: embeds that check the sender drop actions from a pop-out: load svc-embed in the pop-out instead`,
      );
    }
    try {
      // Never '*': if the frame now holds another document, the browser drops the message.
      this.#frame!.contentWindow!.postMessage(
        { source: SOURCE, direction: 'action', type, payload, timestamp },
        this.#origin,
      );
    } catch (error) {
      // One action that cannot be sent must not stop the ready handling, the other actions or an event.
      console.warn(`${tag}: could not send ${type}: ${(error as Error)?.name}`);
      return;
    }
    if (this.debug) this.#log('action', type, payload);
    this.#emit('svc-action', { type, payload, timestamp });
  }

  #log(...what: unknown[]) {
    console.debug(tag, ...what);
  }

  #emit(name: keyof SvcEmbedEventMap, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}

/** The origin of a resolved URL, or '' for a refusal or nothing to load. */
const originOf = (result: EmbedUrlResult | undefined) => (result && 'origin' in result ? result.origin : '');

/** The URL with every `session` parameter (by its decoded name) replaced by one "…", for the debug log. */
function maskSessions(href: string) {
  const url = new URL(href);
  if (url.searchParams.has('session')) url.searchParams.set('session', '…');
  return url.href.replace('%E2%80%A6', '…');
}
