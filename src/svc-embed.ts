import { ReactiveElement, unsafeCSS } from '@lit/reactive-element';
import type { PropertyValues } from '@lit/reactive-element';
import { SOURCE, isPlainObject, pathProblem, readEvent, sessionProblem } from '@svc-embed/protocol';
import type { EmbedTheme } from '@svc-embed/protocol';
import { resolveEmbedUrl } from './embed-url.js';
import { EmbedSession, STATE } from './session.js';
import { expiryOf, tag } from './provider.js';
import { schedule } from './renewal.js';
import { DEFAULT_TIMEOUT, MAX_TIMEOUT } from './limits.js';
import { CSS, EARLY } from './frame.js';
import type { SvcEmbedStatus, SvcEventDetail, SvcSessionProvider } from './events.js';

/**
 * A boolean attribute, where the text "false" also means false: Vue and Svelte write `allow-export="false"` for
 * a false binding, and that must not turn exports on.
 */
const flag = { fromAttribute: (value: string | null) => value !== null && value !== 'false' };

// The properties the embed URL is built from.
const URL_KEYS: PropertyKey[] = ['src', 'tenantOrigin', 'publicId', 'session', 'allowExport'];

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
 * @fires {SvcSessionRenewalFailedDetail} svc-session-renewal-failed - A renewal ahead of expiry failed; the visible frame stays, and the element tries again while the session lasts. Detail: `{attempt, reason, expiresAt, message?}`; `reason` is `provider-error`, `provider-timeout`, `invalid-session`, `ready-timeout`, `embed-error` or `embed-fatal-error`. No session in it.
 * @slot loading - Shown over the frame while `status` is `loading`; opaque while a load must show a path other than the one the embed opens at (`path`, a held `navigate()`, the viewer's path restored after a reload).
 * @slot error - Shown over the frame while `status` is `error`; replaces the built-in message.
 * @csspart frame - The iframe.
 * @csspart loading - The box over the frame that holds the `loading` slot; while a load must show a path first, it has the background `Canvas`.
 * @csspart error - The box over the frame that holds the `error` slot.
 * @cssstate loading - Waiting for the embed's ready.
 * @cssstate ready - The embed is ready.
 * @cssstate error - A refused configuration, a ready timeout, a fatal embed error, a failed renewal or setup.
 */
export class SvcEmbedElement extends ReactiveElement {
  static override styles = unsafeCSS(CSS);

  static override properties = {
    src: {},
    tenantOrigin: { attribute: 'tenant-origin' },
    publicId: { attribute: 'public-id' },
    session: {},
    allowExport: { type: Boolean, attribute: 'allow-export', converter: flag },
    colorScheme: { attribute: 'color-scheme' },
    locale: {},
    filter: {},
    path: {},
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
    // Every write counts, even of the value it has: it binds the expiry to the host's session of the next update, so
    // a new session with an expiry equal to the last one's has that expiry, in whichever order the two were set.
    sessionExpiresAt: { attribute: 'session-expires-at', hasChanged: () => true },
    sessionExpiresIn: { attribute: 'session-expires-in', type: Number },
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
            this.#life.assigned();
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
   * The in-embed path the embed opens at, such as `/details/7`: at each load of a new URL (and whenever there is no
   * viewer's path to restore), the loading state is held, opaque, until the embed has shown it. A change after ready
   * navigates, as `navigate()` does. The element never writes it: the viewer's navigations are `svc-navigate` events.
   * Same rule as `navigate()`; an invalid value warns and is ignored.
   */
  declare path?: string | null;
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
  /**
   * Returns a fresh session from your backend, a new one at each call: the session id, or `{ session, expiresIn }`
   * with its expiry in seconds from now (or `expiresAt`: epoch milliseconds, an ISO 8601 date-time or a `Date`).
   * Called with `{ reason, origin, surface, publicId }`: `reason` is `load` (a frame is about to load and no unused
   * session is at hand: with no `session`, the first load too), `ahead` (a renewal ahead of a known expiry), `refused`
   * (the embed reported a fatal session error) or `manual` (`renewSession()`); the answer is only ever loaded on
   * `origin`. Each frame loads a session of its own: the service's sessions are single-use, and an answer that a
   * frame has loaded already is never loaded.
   */
  declare sessionProvider?: SvcSessionProvider | null;

  /**
   * When the host's session (`session`, or the one in `src`) expires: epoch milliseconds, an ISO 8601 date-time or a
   * `Date` (the attribute takes ISO 8601 or epoch milliseconds). With a `sessionProvider`, the element renews ahead of
   * it, behind the visible frame. It belongs to the host's session value: a new session without a new expiry has
   * none. Every write counts, even of the value it has: write it with each new session. An invalid value warns (when
   * it changes), and counts as unknown.
   */
  declare sessionExpiresAt?: number | string | Date | null;

  /**
   * When the host's session expires, in seconds from when it was given: from when this property was set, or from when
   * the host's session (`session`, or the one in `src`) last changed. Unlike `sessionExpiresAt`, it is right however
   * wrong the viewer's clock is: prefer it. While it is set, it wins over `sessionExpiresAt`. Writing the value it
   * has changes nothing.
   */
  declare sessionExpiresIn?: number | null;

  /** The session lifecycle: every transition and the frames (session.ts), and the renewal ahead of expiry (renewal.ts). */
  readonly #life: EmbedSession = new EmbedSession(this, (status, message) => this.#show(status, message));
  /** The window whose `message` events this element listens to while connected. */
  #listening?: Window | null;
  /** The document whose realm made the shadow root's style sheet; Lit's own is this module's. */
  #styled?: Document;
  #internals?: ElementInternals;
  #overlays?: { loading: HTMLElement; error: HTMLElement; message: HTMLElement };
  /** A server-rendered frame, whose early messages are replayed after the first update. */
  #early?: HTMLIFrameElement;

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
    return this.#life.status === 'ready';
  }

  /** `idle` (nothing to load), `loading` (waiting for ready, or for a renewed session), `ready`, or `error`. */
  get status(): SvcEmbedStatus {
    return this.#life.status;
  }

  /**
   * Resolves with the current session's ready detail (at once when the embed is ready). Rejects with an
   * `SvcEmbedError` whose `reason` is the status reason when the element reaches `error` first (at once
   * when it is in `error` now). While `idle`, waits for the next session. Detached, nothing is timed: on an element
   * removed while it waits, the promise waits until it is inserted again; bound it yourself where that matters.
   */
  whenReady(): Promise<SvcEventDetail<'svc:event:ready'>> {
    return this.#life.whenReady();
  }

  /**
   * Navigates the embed to a path inside it. Held until the embed is ready; a load then stays `loading` until the embed
   * has viewed the path, as with `path` (a call while it does moves it there). Throws a `TypeError` unless the path
   * starts with a single `/` and has no scheme, `//`, backslash, `.` or `..` segment (also as `%2e`), control or
   * bidirectional character, line or paragraph separator, or lone surrogate.
   */
  navigate(path: string): void {
    const problem = pathProblem(path);
    if (problem) throw new TypeError(`${tag}.navigate(path): path ${problem}`);
    this.#life.command('svc:action:navigate', { path }, true);
  }

  /** Re-runs the embed's queries. Held until the embed is ready. */
  refresh(): void {
    this.#life.command('svc:action:refresh', {});
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
    return this.#life.renew(session) as Promise<unknown> as Promise<void>;
  }

  override connectedCallback(): void {
    const doc = this.ownerDocument;
    const view = doc.defaultView;
    try {
      super.connectedCallback();
      if (view && doc !== this.#styled) {
        // A constructed style sheet applies only in the document it was made for: this module's (Lit's own, shared
        // by every element), or the one this element first lives in, or was adopted into (a pop-out window). There,
        // one is made in that window's realm.
        const { styles } = SvcEmbedElement;
        let sheet = styles.styleSheet!;
        if (doc !== document) (sheet = new view.CSSStyleSheet()).replaceSync(styles.cssText);
        this.shadowRoot!.adoptedStyleSheets = [sheet];
        this.#styled = doc;
      }
    } catch (error) {
      return this.#life.fault(error);
    }
    // One listener per connection, on the window this element now lives in (it may have been adopted into
    // a pop-out document); disconnecting removes it, so re-insertion never doubles it. (A plain remove is
    // cheaper per mount/unmount than an AbortController.)
    this.#listening?.removeEventListener('message', this.#onMessage);
    (this.#listening = view)?.addEventListener('message', this.#onMessage);
    this.#life.connected();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#listening?.removeEventListener('message', this.#onMessage);
    this.#listening = undefined;
    this.#life.disconnected();
  }

  /**
   * `moveBefore()` keeps the frame alive: the session, `ready`, the state and the held commands go on as they
   * were. Defining this keeps the browser from calling disconnect and connect for such a move. Firefox starts a new
   * document in a frame whose shadow root moved: that is a reload.
   * @internal
   */
  protected connectedMoveCallback(): void {
    this.#life.moved();
  }

  protected override createRenderRoot(): ShadowRoot {
    // Its style sheet is adopted at connection, in the document's own realm (see connectedCallback).
    const root = this.shadowRoot ?? this.attachShadow({ mode: 'open' });
    // A server-rendered frame (svc-embed/ssr), in the declarative shadow root: kept where it is (a frame that is moved
    // reloads), for the first load to adopt; the rest of the server's markup is made again below.
    const ssr = root.querySelector('iframe');
    for (const node of [...root.childNodes]) if (node != ssr) node.remove();
    if (ssr) this.#early = this.#life._ssr = this.#life._shown = ssr;
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
    const life = this.#life;
    const timeout = changed.has('readyTimeout');
    if (timeout && life.timeout() !== this.readyTimeout)
      console.warn(
        `${tag}: ignoring ready-timeout: must be whole milliseconds from 0 to ${MAX_TIMEOUT}; using ${DEFAULT_TIMEOUT}`,
      );
    // An expiry written again is bound again (to the host's session of now), and warned of only when it changed. One
    // in seconds counts from when it, or the host's session, changed.
    const expiresIn = this.sessionExpiresIn;
    const renewed = changed.has('session') || changed.has('src');
    if (expiresIn != null ? changed.has('sessionExpiresIn') || renewed : changed.has('sessionExpiresAt'))
      life.expires(
        expiresIn != null
          ? expiryOf(expiresIn, changed.has('sessionExpiresIn') && 'session-expires-in', true)
          : expiryOf(
              this.sessionExpiresAt,
              changed.get('sessionExpiresAt') !== this.sessionExpiresAt && 'session-expires-at',
            ),
      );
    else if (changed.has('sessionProvider') || changed.has('sessionExpiresIn')) schedule(life);
    life.update(timeout);
  }

  protected override update(changed: PropertyValues): void {
    super.update(changed);
    this.#life.place();
  }

  protected override updated(changed: PropertyValues): void {
    const path = this.path;
    if (changed.has('path') && path != null) {
      const problem = pathProblem(path);
      if (problem) console.warn(`${tag}: ignoring path: path ${problem}`);
      else this.#life.command('svc:action:navigate', { path }, true);
    }
    for (const { key, action, field, check } of STATE) {
      if (!changed.has(key)) continue;
      // The current value, checked, with the payload to send: a copy taken now.
      const value = this[key];
      let entry: { payload?: object; problem?: string } | undefined;
      if (value != null)
        try {
          const problem = check(value);
          entry = problem
            ? { problem }
            : { payload: field ? { [field]: value } : (JSON.parse(JSON.stringify(value)) as object) };
        } catch {
          // A getter or proxy trap that throws.
          entry = { problem: 'must be plain JSON-like data' };
        }
      this.#life.values[key] = entry;
      // Named by the attribute: `color-scheme` is Lit's declared one; the others are their property names.
      if (entry?.problem)
        console.warn(
          `${tag}: ignoring ${SvcEmbedElement.elementProperties.get(key)!.attribute || key}: ${entry.problem}`,
        );
      else if (entry) this.#life.changed(action, entry.payload!);
    }
    if (this.#early) this.#replay();
  }

  /**
   * Once, after the first update: what a server-rendered frame said before this element was defined (kept by
   * svc-embed/ssr's early-message script), through the gate, if the element adopted that frame.
   */
  #replay() {
    const frame = this.#early;
    this.#early = undefined;
    if (frame != this.#life.frame) return;
    const queue = (this.ownerDocument.defaultView as unknown as Record<symbol, MessageEvent[]> | null)?.[
      Symbol.for(EARLY)
    ];
    // Markup written by hand without the script: the frame's early messages (its ready, perhaps) went unheard.
    if (!queue) return console.warn(`${tag}: no svc-embed/ssr EARLY_SCRIPT: early messages lost`);
    for (const event of queue.filter((e) => e.source == frame!.contentWindow)) {
      queue.splice(queue.indexOf(event), 1);
      this.#onMessage(event);
    }
  }

  /** What a status shows: the overlays, `aria-busy` and the custom state; with `error`, its message. */
  #show(status: SvcEmbedStatus, message?: string) {
    const overlays = this.#overlays;
    if (message !== undefined) {
      if (overlays) overlays.message.textContent = message;
      return;
    }
    if (overlays) {
      overlays.loading.hidden = status !== 'loading';
      overlays.error.hidden = status !== 'error';
    }
    try {
      const states = this.#internals?.states;
      states?.clear();
      if (status !== 'idle') states?.add(status);
    } catch {
      // A CustomStateSet that only takes --dashed names (Chromium before 125).
    }
    if (status === 'loading') this.setAttribute('aria-busy', 'true');
    else this.removeAttribute('aria-busy');
  }

  // The whole security gate. Foreign traffic is ignored silently: the page has other senders and listeners.
  #onMessage = (event: MessageEvent) => {
    // Window identity first (two embeds of one tenant, sibling frames, the host itself): the current session's
    // frame, or a renewal's frame loading behind it. Then the exact origin (the frame may have been navigated
    // elsewhere; the origin is never the opaque "null": resolveEmbedUrl accepts only https: and loopback http:
    // URLs), then our tag.
    const life = this.#life;
    const source = event.source;
    if (
      !source ||
      (source !== life.frame?.contentWindow && source !== life.behind?.contentWindow) ||
      event.origin !== life.origin
    )
      return;
    const data: unknown = event.data;
    if (!isPlainObject(data) || !Object.hasOwn(data, 'source') || data.source !== SOURCE) return;

    let detail = readEvent(data);
    // The protocol has no use for ports: a transferred channel must never reach a listener.
    if (event.ports.length)
      detail = detail.type ? { reason: 'ports: not allowed', type: detail.type } : { reason: 'ports: not allowed' };
    if ('reason' in detail) {
      if (this.debug) console.debug(tag, 'rejected', detail.reason);
      // The frame behind is not the host's embed yet: its events are never dispatched, its rejections neither.
      if (source !== life.behind?.contentWindow)
        this.dispatchEvent(new CustomEvent('svc-message-rejected', { detail, bubbles: true, composed: true }));
    } else life.event(detail, source);
  };
}
