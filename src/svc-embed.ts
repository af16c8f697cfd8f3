import { ReactiveElement, css } from '@lit/reactive-element';
import type { CSSResult, PropertyDeclaration, PropertyValues } from '@lit/reactive-element';
import { EVENT_TYPES, SOURCE, domEventName } from './protocol/constants.js';
import type { ActionPayloadMap, ActionType, EmbedTheme } from './protocol/types.js';
import {
  colorSchemeProblem, filterProblem, isPlainObject, localeProblem, pathProblem, readEvent, themeProblem,
} from './protocol/validate.js';
import { resolveEmbedUrl } from './embed-url.js';
import type { EmbedUrlResult } from './embed-url.js';
import type {
  SvcEmbedError, SvcEmbedEventMap, SvcEmbedStatus, SvcEventDetail, SvcStatusDetail,
} from './events.js';

type StateKey = 'theme' | 'colorScheme' | 'locale' | 'filter';
type Detail = Omit<SvcStatusDetail, 'status' | 'previous'>;

/**
 * The state that is (re)sent at every ready, in this order: [property, attribute, action, payload, check].
 * The theme's payload is a JSON copy taken when it is set: a framework's reactive proxy passes every
 * shape check, but structured clone cannot carry it.
 */
const STATE: ReadonlyArray<[StateKey, string, ActionType, (v: any) => object, (v: unknown) => string | undefined]> = [
  ['theme', 'theme', 'svc:action:set-theme', (theme) => JSON.parse(JSON.stringify(theme)), themeProblem],
  ['colorScheme', 'color-scheme', 'svc:action:set-color-scheme', (scheme) => ({ scheme }), colorSchemeProblem],
  ['locale', 'locale', 'svc:action:set-locale', (locale) => ({ locale }), localeProblem],
  ['filter', 'filter', 'svc:action:set-filter', (filterUrlParameter) => ({ filterUrlParameter }), filterProblem],
];

// The properties the embed URL is built from: assigning one ends the current session at once.
const URL_KEYS: PropertyKey[] = ['src', 'tenantOrigin', 'publicId', 'session', 'allowExport'];

// Each token has a reason. The embed runs scripts and keeps its own origin (its session and API calls), submits
// its forms, opens links in new tabs and downloads exports. Not allow-top-navigation: the embed must never
// navigate the host page away. Not allow-popups-to-escape-sandbox: an unsandboxed popup could navigate its
// opener's top (Firefox lets it), so popups keep the sandbox.
const SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-downloads';

const DEFAULT_TIMEOUT = 15000;
// A fatal embed error whose name or context says this is a session problem, which a new session can fix.
const SESSION_ERROR = /session|auth|token|expired/i;
const tag = '<svc-embed>';
const RENEWAL_FAILED = 'session-renewal-failed';

/** `svc:event:ready` → `svc-ready`, worked out once. */
const DOM_NAMES = Object.fromEntries(EVENT_TYPES.map((type) => [type, domEventName(type)])) as Record<string, keyof SvcEmbedEventMap>;

/**
 * A boolean attribute, where the text "false" also means false: Vue and Svelte write `allow-export="false"` for
 * a false binding, and that must not turn exports on.
 */
const flag = { fromAttribute: (value: string | null) => value !== null && value !== 'false' };

/** What identifies a resolved URL: the URL, the refusal's reason, or '' when there is nothing to load. */
const keyOf = (result: EmbedUrlResult | undefined) => (result ? ('url' in result ? result.url : result.reason) : '');

/** A non-empty session id without control characters, else what is wrong. */
const sessionProblem = (value: unknown) =>
  typeof value === 'string' && value && !/[\x00-\x1f\x7f-\x9f]/.test(value) ? undefined : 'must be a non-empty string without control characters';

/**
 * Embeds a dashboard, the app or the AI chat of an analytics tenant, and brokers the embed message
 * protocol safely: incoming messages count only from this element's own frame and the exact tenant
 * origin, are validated, and are re-dispatched as typed DOM events; actions go out only after ready,
 * and only to the tenant origin.
 *
 * @fires {SvcEventDetail<'svc:event:ready'>} svc-ready - The embed authenticated and mounted. Detail: {type, surface, timestamp, payload}.
 * @fires {SvcEventDetail<'svc:event:view'>} svc-view - A surface was viewed.
 * @fires {SvcEventDetail<'svc:event:navigate'>} svc-navigate - The viewer navigated inside the embed.
 * @fires {SvcEventDetail<'svc:event:dashboard-loaded'>} svc-dashboard-loaded - All widgets of a dashboard rendered.
 * @fires {SvcEventDetail<'svc:event:download'>} svc-download - The viewer exported data or an image.
 * @fires {SvcEventDetail<'svc:event:drilldown'>} svc-drilldown - The viewer drilled into a measure.
 * @fires {SvcEventDetail<'svc:event:ai-query'>} svc-ai-query - An AI query was submitted, completed or failed.
 * @fires {SvcEventDetail<'svc:event:error'>} svc-error - The embed surfaced an error.
 * @fires {SvcMessageRejectedDetail} svc-message-rejected - A message from the embed failed validation. Detail: {reason, type?}.
 * @fires {SvcConfigErrorDetail} svc-config-error - The embed URL was refused; no iframe exists. Detail: {reason, message}.
 * @fires {SvcStatusDetail} svc-status - `status` changed. Detail: {status, previous, reason?, message?, frameLoaded?, elapsedMs?}.
 * @fires {SvcActionDetail} svc-action - An action was posted to the embed. Detail: {type, payload, timestamp}.
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
          return value === null ? value : JSON.parse(value);
        } catch {
          return value;
        }
      },
    },
    title: {},
    readyTimeout: { type: Number, attribute: 'ready-timeout' },
    loading: {},
    debug: { type: Boolean, converter: flag },
    sessionProvider: { attribute: false },
  };

  /** The full embed URL. Its origin is the tenant origin every message check uses. `https:` only (`http:` on loopback). */
  declare src?: string | null;
  /** With `public-id` (and `session`), builds `{tenant-origin}/embed/dashboard/{public-id}?session={session}` when `src` is absent. */
  declare tenantOrigin?: string | null;
  /** The dashboard's public id, used with `tenant-origin`. */
  declare publicId?: string | null;
  /** The session id from the session-generation API, used with `tenant-origin`. */
  declare session?: string | null;
  /** Adds `allowExport=true` to the embed URL: the CSV download control appears. */
  declare allowExport: boolean;
  /** `light`, `dark` or `auto` (follows the viewer's OS preference). */
  declare colorScheme?: string | null;
  /** A BCP 47 language tag such as `de-DE`. */
  declare locale?: string | null;
  /** `f_<semantic_view>.<dimension>=<JSON>`, e.g. from `filterParam('orders', 'status', 'shipped')`. */
  declare filter?: string | null;
  /**
   * A brand theme (`primaryColor`, `borderRadius`, `font`, …). Assign a new object to apply a change. The attribute
   * takes JSON; the text `[object Object]` that server renderers write for an object is ignored.
   */
  declare theme?: EmbedTheme | null;
  /** The accessible name of the iframe. Default: "Embedded analytics". */
  declare title: string;
  /** Milliseconds to wait for the embed's ready before `status` becomes `error` (`ready-timeout`); `0` waits forever. */
  declare readyTimeout: number;
  /** `lazy` or `eager`, passed to the iframe. With `lazy`, the ready timeout starts when the element first comes into view. */
  declare loading?: 'lazy' | 'eager' | null;
  /** Logs events, actions, rejections, status changes and the embed URL (session masked) with `console.debug`. */
  declare debug: boolean;
  /** Returns a fresh session id from your backend; used by `renewSession()` and by automatic renewal. */
  declare sessionProvider?: (() => Promise<string>) | null;

  #frame?: HTMLIFrameElement;
  /** The frame in the shadow root: the current one once Lit's update has run. */
  #shown?: HTMLIFrameElement;
  #origin = '';
  /** The resolved URL's key (see keyOf) of the current session; undefined once it has ended. */
  #key?: string;
  #ready = false;
  #readyDetail?: SvcEventDetail<'svc:event:ready'>;
  #status: SvcEmbedStatus = 'idle';
  #queue: Array<[ActionType, object]> = [];
  /** The state to send, by property: its payload when valid, else what is wrong with it. */
  #state: Partial<Record<StateKey, { payload?: object; problem?: string }>> = {};
  #waiting: Array<[(detail: SvcEventDetail<'svc:event:ready'>) => void, (error: Error) => void]> = [];
  /** The window whose `message` events this element listens to while connected. */
  #listening?: Window | null;
  /** The document whose realm made the shadow root's style sheet; Lit's own is this module's. */
  #styled?: Document;
  #internals?: ElementInternals;
  #overlays?: { loading: HTMLElement; error: HTMLElement; message: HTMLElement };
  #timer?: ReturnType<typeof setTimeout>;
  #observer?: IntersectionObserver;
  #started = 0;
  #loaded = false;
  /** The last in-embed path the embed reported, and the one a renewal restores. */
  #path?: string;
  #restore?: string;
  #renewal?: Promise<void>;
  /** The renewal's phase: 0 none, 1 waiting for the session, 2 applying it, 3 waiting for the new ready. */
  #renewing = 0;
  #lastAutoRenewal = -Infinity;
  #error?: SvcEmbedError;

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

  /** Whether the embed has said `svc:event:ready` for the current `src`: actions are being delivered. */
  get ready(): boolean {
    return this.#ready;
  }

  /** `idle` (nothing to load), `loading` (waiting for ready), `ready`, or `error`. */
  get status(): SvcEmbedStatus {
    return this.#status;
  }

  /**
   * Resolves with the current session's ready detail (at once when the embed is ready). Rejects with an
   * `SvcEmbedError` whose `reason` is the status reason when the element reaches `error` first (at once
   * when it is in `error` now).
   */
  whenReady(): Promise<SvcEventDetail<'svc:event:ready'>> {
    return new Promise((resolve, reject) => {
      if (this.#ready) resolve(this.#readyDetail!);
      else if (this.#status === 'error' && this.#key !== undefined) reject(this.#error);
      else this.#waiting.push([resolve, reject]);
    });
  }

  /**
   * Navigates the embed to a path inside it. Held until the embed is ready.
   * @throws TypeError unless the path starts with a single `/` and has no scheme, `//`, backslash, `.`/`..`
   * segment, control or bidirectional character.
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
   * Reloads the embed with a new session: `session`, or else one from `sessionProvider`. The viewer's place
   * is kept: the state is re-sent, the last in-embed path restored, and held commands posted. Resolves at
   * the new ready; rejects when the renewal fails.
   * @throws TypeError when `session` is given but is not a non-empty string without control characters, when
   * neither `session` nor `sessionProvider` is there, or when there is no embed URL to renew.
   */
  renewSession(session?: string): Promise<void> {
    const problem = !resolveEmbedUrl(this) ? 'needs src, or tenant-origin and public-id, to renew'
      : session === undefined ? typeof this.sessionProvider !== 'function' && 'or a sessionProvider is needed' : sessionProblem(session);
    if (problem) throw new TypeError(`${tag}.renewSession(session): session ${problem}`);
    if (!this.#renewal) {
      // From here nothing is posted to the old frame or accepted from it; held commands wait for the new one.
      this.#renewing = 1;
      this.#restore = this.#path;
      this.#end();
      this.#setStatus('loading', { reason: 'session-renewal' });
      this.#renewal = this.#renew(session).finally(() => {
        this.#renewing = 0;
        this.#renewal = undefined;
      });
    }
    return this.#renewal;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    const doc = this.ownerDocument;
    const view = doc.defaultView;
    if (view && doc !== (this.#styled ?? document)) {
      // Adopted into another document (a pop-out window): a constructed style sheet applies only in the
      // document it was made for, so make one there.
      const sheet = new view.CSSStyleSheet();
      sheet.replaceSync((SvcEmbedElement.styles as CSSResult).cssText);
      this.shadowRoot!.adoptedStyleSheets = [sheet];
      this.#styled = doc;
    }
    // One listener per connection, on the window this element now lives in (it may have been adopted into
    // a pop-out document); disconnecting removes it, so re-insertion never doubles it. (A plain remove is
    // cheaper per mount/unmount than an AbortController.)
    this.#listening?.removeEventListener('message', this.#onMessage);
    (this.#listening = view)?.addEventListener('message', this.#onMessage);
    // Re-inserted: the current frame reloads and must say ready again.
    if (this.#shown && this.#shown === this.#frame) this.#loading();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#listening?.removeEventListener('message', this.#onMessage);
    this.#listening = undefined;
    // A frame taken out of the document unloads; it must say ready again before anything is posted.
    this.#ready = false;
    this.#stopTimer();
  }

  /**
   * Runs at the assignment itself, before Lit's update: where a message may go changes when the host
   * changes the URL, not a microtask later.
   * @internal
   */
  override requestUpdate(name?: PropertyKey, oldValue?: unknown, options?: PropertyDeclaration, ...rest: unknown[]): void {
    // @ts-expect-error Lit's further (internal) parameters are passed through as they came.
    super.requestUpdate(name, oldValue, options, ...rest);
    if (name === undefined) return;
    if (URL_KEYS.includes(name)) {
      if (keyOf(resolveEmbedUrl(this)) === this.#key) return;
      // A change the host made (not the renewal's own) ends any renewal: the host's session wins.
      if (this.#renewing !== 2) this.#renewing = 0;
      this.#end();
    } else {
      const entry = STATE.find(([key]) => key === name);
      if (entry) this.#state[entry[0]] = this.#check(entry);
    }
  }

  protected override createRenderRoot(): ShadowRoot {
    const root = super.createRenderRoot() as ShadowRoot;
    const doc = this.ownerDocument;
    const box = (part: string) => {
      const div = doc.createElement('div');
      const slot = doc.createElement('slot');
      div.setAttribute('part', slot.name = part);
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
    this.#configure();
    if (this.#frame) {
      if (changed.has('title')) this.#frame.title = this.title || 'Embedded analytics';
      if (changed.has('loading')) this.#setLoading(this.#frame);
    }
    if (changed.has('readyTimeout') && !(this.readyTimeout >= 0)) {
      console.warn(`${tag}: ignoring ready-timeout: must be a number of milliseconds (0 waits forever)`);
    }
  }

  protected override updated(changed: PropertyValues): void {
    for (const [key, attribute, type] of STATE) {
      const state = this.#state[key];
      if (!changed.has(key) || !state) continue;
      if (state.problem) console.warn(`${tag}: ignoring ${attribute}: ${state.problem}`);
      else if (this.#ready) this.#post(type, state.payload!);
    }
  }

  protected override update(changed: PropertyValues): void {
    super.update(changed);
    // Swapping the node (not its src) gives every session a new window. While a renewal waits for its
    // session, the old frame stays on view (the gate is already closed to it).
    if (this.#shown !== this.#frame && this.#renewing !== 1) {
      this.#shown?.remove();
      if (this.#frame) this.renderRoot.prepend(this.#frame);
      this.#shown = this.#frame;
    }
  }

  /** The current value of a state property, checked, with the payload to send taken now. */
  #check([key, , , payload, check]: (typeof STATE)[number]): { payload?: object; problem?: string } | undefined {
    const value = this[key];
    if (value == null) return undefined;
    try {
      const problem = check(value);
      return problem ? { problem } : { payload: payload(value) };
    } catch {
      // A getter or proxy trap that throws.
      return { problem: 'must be plain JSON-like data' };
    }
  }

  /**
   * Ends the current session: nothing more is posted to its frame or accepted from it, and the commands
   * held for it are dropped, unless a renewal keeps them (commands made before the first URL are kept for
   * the first session too).
   */
  #end() {
    if (this.#key && !this.#renewing) {
      this.#queue = [];
      this.#restore = undefined;
    }
    this.#ready = false;
    this.#key = undefined;
    this.#origin = '';
    this.#frame = undefined;
    this.#path = undefined;
    this.#stopTimer();
  }

  #configure() {
    const result = resolveEmbedUrl(this);
    const key = keyOf(result);
    // Unchanged; or a renewal waits for its session; or it failed, and only a new URL or renewal goes on.
    if (key === this.#key || this.#renewing === 1 || this.#key === RENEWAL_FAILED) return;
    this.#end();
    this.#key = key;
    if (!result) return this.#setStatus('idle');
    if ('reason' in result) {
      console.error(result.message);
      this.#emit('svc-config-error', result);
      return this.#setStatus('error', { reason: 'config-error', message: result.message });
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
    if (this.debug) this.#log('url', result.url.replace(/([?&]session=)[^&#]*/, '$1…'));
    this.#loading();
  }

  #setLoading(frame: HTMLIFrameElement) {
    const loading = this.loading;
    if (loading === 'lazy' || loading === 'eager') frame.loading = loading;
    else frame.removeAttribute('loading');
  }

  /** A frame is (re)loading: `loading`, and the ready timer starts (with `lazy`, once the element is in view). */
  #loading() {
    this.#loaded = false;
    this.#setStatus('loading', this.#renewing ? { reason: 'session-renewal' } : {});
    this.#stopTimer();
    if (this.loading === 'lazy' && typeof IntersectionObserver === 'function') {
      this.#observer = new IntersectionObserver((entries) => {
        if (entries.some((e) => e.isIntersecting)) this.#startTimer();
      });
      this.#observer.observe(this);
    } else this.#startTimer();
  }

  #startTimer() {
    this.#stopTimer();
    this.#started = performance.now();
    const ms = this.readyTimeout >= 0 ? this.readyTimeout : DEFAULT_TIMEOUT;
    if (ms) this.#timer = setTimeout(() => this.#timedOut(), ms);
  }

  #stopTimer() {
    clearTimeout(this.#timer);
    this.#observer?.disconnect();
    this.#observer = undefined;
  }

  #timedOut() {
    const frameLoaded = this.#loaded;
    const elapsedMs = Math.round(performance.now() - this.#started);
    // Chromium fires load for its own error page too, so "loaded" may still be a refused connection.
    const message = `${tag}: no ready in ${Math.round(elapsedMs / 1000)} s. ${frameLoaded
      ? "The frame loaded. Likely: this page's origin may not frame the tenant (CSP frame-ancestors, allowed embed origins); embed messaging is not in the tenant's plan; the session is invalid or expired; third-party cookies are blocked; src is not an embed page; or the browser showed an error page (network, DNS, TLS)."
      : 'The frame never loaded: network, DNS or TLS failed, or the tenant is down.'}`;
    console.error(message);
    this.#setStatus('error', { reason: 'ready-timeout', message, frameLoaded, elapsedMs });
  }

  #setStatus(status: SvcEmbedStatus, detail: Detail = {}) {
    const previous = this.#status;
    const overlays = this.#overlays;
    if (status === 'error') {
      this.#error = Object.assign(new Error(detail.message), { name: 'SvcEmbedError', reason: detail.reason! }) as SvcEmbedError;
      if (overlays) overlays.message.textContent = detail.message!;
      for (const [, reject] of this.#waiting.splice(0)) reject(this.#error);
    }
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
    this.#emit('svc-status', { status, previous, ...detail });
  }

  async #renew(session?: string): Promise<void> {
    try {
      if (session === undefined) {
        const ms = this.readyTimeout > 0 ? this.readyTimeout : DEFAULT_TIMEOUT;
        session = await Promise.race([
          this.sessionProvider!(),
          new Promise<never>((_, reject) => setTimeout(reject, ms)),
        ]);
        if (sessionProblem(session)) throw 0;
      }
      // The host changed the URL meanwhile: its session wins.
      if (this.#renewing !== 1) return void (await this.whenReady());
      this.#renewing = 2;
      if (this.src) {
        const url = new URL(this.src);
        url.searchParams.set('session', session!);
        this.src = url.href;
      } else this.session = session;
      this.#renewing = 3;
    } catch {
      this.#fail();
      throw this.#error;
    }
    // The same URL again (the provider's session was the old one) is still a reload.
    this.requestUpdate();
    await this.whenReady();
  }

  #fail() {
    this.#end();
    this.#key = RENEWAL_FAILED;
    this.#setStatus('error', { reason: RENEWAL_FAILED, message: `${tag}: the session could not be renewed` });
  }

  // The whole security gate. Foreign traffic is ignored silently: the page has other senders and listeners.
  #onMessage = (event: MessageEvent) => {
    // Window identity first (two embeds of one tenant, sibling frames, the host itself), then the exact
    // origin (the frame may have been navigated elsewhere; #origin is never the opaque "null": resolveEmbedUrl
    // accepts only https: and loopback http: URLs), then our tag.
    const frameWindow = this.#frame?.contentWindow;
    if (!frameWindow || event.source !== frameWindow || event.origin !== this.#origin) return;
    const data = event.data;
    if (!isPlainObject(data) || !Object.hasOwn(data, 'source') || data.source !== SOURCE) return;

    let detail = readEvent(data);
    // The protocol has no use for ports: a transferred channel must never reach a listener.
    if (event.ports.length) detail = detail.type ? { reason: 'ports: not allowed', type: detail.type } : { reason: 'ports: not allowed' };
    if ('reason' in detail) {
      if (this.debug) this.#log('rejected', detail.reason);
      this.#emit('svc-message-rejected', detail);
      return;
    }
    if (this.debug) this.#log('event', detail.type, detail.payload);
    if (detail.type === 'svc:event:ready') {
      this.#ready = true;
      this.#readyDetail = detail;
      this.#stopTimer();
      this.#flush();
      this.#setStatus('ready');
      for (const [resolve] of this.#waiting.splice(0)) resolve(detail);
    } else if (detail.type === 'svc:event:view' || detail.type === 'svc:event:navigate') {
      this.#path = detail.payload.path;
    }
    this.#emit(DOM_NAMES[detail.type], detail);
    if (detail.type === 'svc:event:error' && detail.payload.fatal && frameWindow === this.#frame?.contentWindow) {
      const { name = '', context = '', message } = detail.payload;
      if (typeof this.sessionProvider !== 'function' || !SESSION_ERROR.test(`${name} ${context}`)) {
        // The embed stopped: commands wait for a ready again.
        this.#ready = false;
        this.#setStatus('error', { reason: 'embed-fatal-error', message });
      } else if (performance.now() - this.#lastAutoRenewal < 30000) {
        // A new session that expires at once again: no loop.
        this.#fail();
      } else {
        this.#lastAutoRenewal = performance.now();
        this.renewSession().catch(() => {});
      }
    }
  };

  #flush() {
    for (const [key, , type] of STATE) {
      const payload = this.#state[key]?.payload;
      if (payload) this.#post(type, payload);
    }
    // After a renewal: back to where the viewer was, unless the host navigated since.
    const restore = this.#restore;
    this.#restore = undefined;
    if (restore && !pathProblem(restore)) this.#post('svc:action:navigate', { path: restore });
    const held = this.#queue;
    this.#queue = [];
    for (const [type, payload] of held) this.#post(type, payload);
  }

  #command<T extends ActionType>(type: T, payload: ActionPayloadMap[T]) {
    if (this.#ready) this.#post(type, payload);
    else this.#queue.push([type, payload]);
  }

  /** Posts an action whose payload was checked when it was set or called (the state, navigate, the restored path). */
  #post(type: ActionType, payload: object) {
    const timestamp = Date.now();
    try {
      // Never '*': if the frame now holds another document, the browser drops the message.
      this.#frame!.contentWindow!.postMessage({ source: SOURCE, direction: 'action', type, payload, timestamp }, this.#origin);
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
