import { ReactiveElement, css } from '@lit/reactive-element';
import type { CSSResult, PropertyDeclaration, PropertyValues } from '@lit/reactive-element';
import { SOURCE, domEventName } from './protocol/constants.js';
import type { ActionPayloadMap, ActionType, EmbedTheme } from './protocol/types.js';
import {
  buildAction, colorSchemeProblem, filterProblem, isPlainObject, localeProblem, pathProblem, themeProblem,
  validateEvent,
} from './protocol/validate.js';
import { resolveEmbedUrl } from './embed-url.js';
import type { SvcEmbedEventMap } from './events.js';

type StateKey = 'theme' | 'colorScheme' | 'locale' | 'filter';

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

/**
 * Embeds a dashboard, the app or the AI chat of an analytics tenant, and brokers the embed message
 * protocol safely: incoming messages count only from this element's own frame and the exact tenant
 * origin, are validated, and are re-dispatched as typed DOM events; actions go out only after ready,
 * and only to the tenant origin.
 *
 * @fires svc-ready - The embed authenticated and mounted. Detail: {type, surface, timestamp, payload}.
 * @fires svc-view - A surface was viewed.
 * @fires svc-navigate - The viewer navigated inside the embed.
 * @fires svc-dashboard-loaded - All widgets of a dashboard rendered.
 * @fires svc-download - The viewer exported data or an image.
 * @fires svc-drilldown - The viewer drilled into a measure.
 * @fires svc-ai-query - An AI query was submitted, completed or failed.
 * @fires svc-error - The embed surfaced an error.
 * @fires svc-message-rejected - A message from the embed failed validation. Detail: {reason, type?}.
 * @fires svc-config-error - The embed URL was refused; no iframe exists. Detail: {reason, message}.
 * @csspart frame - The iframe.
 */
export class SvcEmbedElement extends ReactiveElement {
  static override styles = css`
    :host { display: block; position: relative; height: 600px; }
    :host([hidden]) { display: none; }
    iframe { display: block; box-sizing: border-box; width: 100%; height: 100%; border: 0; }
  `;

  static override properties = {
    src: {},
    tenantOrigin: { attribute: 'tenant-origin' },
    publicId: { attribute: 'public-id' },
    session: {},
    allowExport: { type: Boolean, attribute: 'allow-export' },
    colorScheme: { attribute: 'color-scheme' },
    locale: {},
    filter: {},
    theme: {
      // The attribute takes JSON; text that does not parse stays a string, which the theme check reports.
      converter: (value: string | null) => {
        try {
          return value === null ? value : JSON.parse(value);
        } catch {
          return value;
        }
      },
    },
    title: {},
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
  /** A brand theme (`primaryColor`, `borderRadius`, `font`, …). Assign a new object to apply a change. */
  declare theme?: EmbedTheme | null;
  /** The accessible name of the iframe. Default: "Embedded analytics". */
  declare title: string;

  #frame?: HTMLIFrameElement;
  #origin = '';
  #url = '';
  #ready = false;
  #queue: Array<[ActionType, object]> = [];
  /** The state to send, by property: its payload when valid, else what is wrong with it. */
  #state: Partial<Record<StateKey, { payload?: object; problem?: string }>> = {};
  #listening?: AbortController;
  /** The document whose realm made the shadow root's style sheet; Lit's own is this module's. */
  #styled?: Document;

  constructor() {
    super();
    this.allowExport = false;
  }

  /** Whether the embed has said `svc:event:ready` for the current `src`: actions are being delivered. */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Navigates the embed to a path inside it. Held until the embed is ready.
   * @throws TypeError unless the path starts with a single `/` and has no scheme, `//`, backslash, `.`/`..`
   * segment, control or bidirectional character.
   */
  navigate(path: string): void {
    const problem = pathProblem(path);
    if (problem) throw new TypeError(`<svc-embed>.navigate(path): path ${problem}`);
    this.#command('svc:action:navigate', { path });
  }

  /** Re-runs the embed's queries. Held until the embed is ready. */
  refresh(): void {
    this.#command('svc:action:refresh', {});
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
    // a pop-out document); the signal removes it on disconnect, so re-insertion never doubles it.
    this.#listening = new AbortController();
    view?.addEventListener('message', this.#onMessage, { signal: this.#listening.signal });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#listening?.abort();
    // A frame taken out of the document unloads; it must say ready again before anything is posted.
    this.#ready = false;
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
      const result = resolveEmbedUrl(this);
      if (!result || !('url' in result) || result.url !== this.#url) this.#end();
    } else {
      const entry = STATE.find(([key]) => key === name);
      if (entry) this.#state[entry[0]] = this.#check(entry);
    }
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (URL_KEYS.some((k) => changed.has(k))) this.#configure();
    if (this.#frame && changed.has('title')) this.#frame.title = this.title || 'Embedded analytics';
  }

  protected override updated(changed: PropertyValues): void {
    for (const [key, attribute, type] of STATE) {
      const state = this.#state[key];
      if (!changed.has(key) || !state) continue;
      if (state.problem) console.warn(`<svc-embed>: ignoring ${attribute}: ${state.problem}`);
      else if (this.#ready) this.#post(type, state.payload!);
    }
  }

  protected override update(changed: PropertyValues): void {
    super.update(changed);
    // The only DOM is the iframe: swapping the node (not its src) gives every session a new window.
    const root = this.renderRoot;
    if (root.firstElementChild !== this.#frame) root.replaceChildren(...(this.#frame ? [this.#frame] : []));
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
   * held for it are dropped (commands made before the first URL are kept for the first session).
   */
  #end() {
    if (this.#url) this.#queue = [];
    this.#ready = false;
    this.#url = '';
    this.#origin = '';
    this.#frame = undefined;
  }

  #configure() {
    const result = resolveEmbedUrl(this);
    if (result && 'url' in result && result.url === this.#url) return;
    this.#end();
    if (!result) return;
    if ('reason' in result) {
      console.error(result.message);
      this.#emit('svc-config-error', result);
      return;
    }
    const frame = this.ownerDocument.createElement('iframe');
    frame.setAttribute('part', 'frame');
    frame.setAttribute('sandbox', SANDBOX);
    frame.allow = 'fullscreen; clipboard-write';
    // The tenant learns the host's origin (it checks it), never the page's URL, whatever the page's own policy.
    frame.referrerPolicy = 'strict-origin';
    frame.title = this.title || 'Embedded analytics';
    frame.src = this.#url = result.url;
    this.#origin = result.origin;
    this.#frame = frame;
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

    // The protocol has no use for ports: a transferred channel must never reach a listener.
    const result = event.ports.length ? { ok: false as const, reason: 'ports: not allowed' } : validateEvent(data);
    if (!result.ok) {
      this.#emit('svc-message-rejected', result.type ? { reason: result.reason, type: result.type } : { reason: result.reason });
      return;
    }
    const { type, surface, timestamp, payload } = result.message;
    if (type === 'svc:event:ready') this.#flush();
    this.#emit(domEventName(type), { type, surface, timestamp, payload });
  };

  #flush() {
    this.#ready = true;
    for (const [key, , type] of STATE) {
      const payload = this.#state[key]?.payload;
      if (payload) this.#post(type, payload);
    }
    const held = this.#queue;
    this.#queue = [];
    for (const [type, payload] of held) this.#post(type, payload);
  }

  #command<T extends ActionType>(type: T, payload: ActionPayloadMap[T]) {
    if (this.#ready) this.#post(type, payload);
    else this.#queue.push([type, payload]);
  }

  #post(type: ActionType, payload: object) {
    try {
      // Never '*': if the frame now holds another document, the browser drops the message.
      this.#frame?.contentWindow?.postMessage(buildAction(type, payload as never), this.#origin);
    } catch (error) {
      // One action that cannot be sent must not stop the ready handling, the other actions or an event.
      console.warn(`<svc-embed>: could not send ${type}: ${(error as Error)?.name}`);
    }
  }

  #emit(name: keyof SvcEmbedEventMap, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}
