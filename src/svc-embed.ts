import { ReactiveElement, css } from '@lit/reactive-element';
import type { PropertyValues } from '@lit/reactive-element';
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
 */
const STATE: ReadonlyArray<[StateKey, string, ActionType, (v: any) => object, (v: unknown) => string | undefined]> = [
  ['theme', 'theme', 'svc:action:set-theme', (theme) => theme, themeProblem],
  ['colorScheme', 'color-scheme', 'svc:action:set-color-scheme', (scheme) => ({ scheme }), colorSchemeProblem],
  ['locale', 'locale', 'svc:action:set-locale', (locale) => ({ locale }), localeProblem],
  ['filter', 'filter', 'svc:action:set-filter', (filterUrlParameter) => ({ filterUrlParameter }), filterProblem],
];

// Not allow-top-navigation: the embed must never navigate the host page away.
const SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-popups-to-escape-sandbox allow-downloads';

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

  #frame?: HTMLIFrameElement;
  #origin = '';
  #url = '';
  #ready = false;
  #queue: Array<[ActionType, object]> = [];
  #listening?: AbortController;

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
   * @throws TypeError unless the path starts with a single `/` and has no scheme, `//`, backslash or control character.
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
    // One listener per connection; the signal removes it on disconnect, so re-insertion never doubles it.
    this.#listening = new AbortController();
    addEventListener('message', this.#onMessage, { signal: this.#listening.signal });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this.#listening?.abort();
    // A frame taken out of the document unloads; it must say ready again before anything is posted.
    this.#ready = false;
  }

  protected override willUpdate(changed: PropertyValues): void {
    if (['src', 'tenantOrigin', 'publicId', 'session', 'allowExport'].some((k) => changed.has(k))) {
      this.#configure();
    }
    if (this.#frame && changed.has('title')) this.#frame.title = this.title || 'Embedded analytics';
  }

  protected override updated(changed: PropertyValues): void {
    for (const [key, attribute, type, payload, check] of STATE) {
      const value = this[key];
      if (!changed.has(key) || value == null) continue;
      const problem = check(value);
      if (problem) console.warn(`<svc-embed>: ignoring ${attribute}: ${problem}`);
      else if (this.#ready) this.#post(type, payload(value));
    }
  }

  protected override update(changed: PropertyValues): void {
    super.update(changed);
    // The only DOM is the iframe: swapping the node (not its src) gives every session a new window.
    const root = this.renderRoot;
    if (root.firstElementChild !== this.#frame) root.replaceChildren(...(this.#frame ? [this.#frame] : []));
  }

  #configure() {
    const result = resolveEmbedUrl(this);
    if (result && 'url' in result && result.url === this.#url) return;
    // A new URL is a new session: readiness resets; commands held for the old one are never posted to the new one.
    if (this.#url) this.#queue = [];
    this.#ready = false;
    this.#url = '';
    this.#origin = '';
    this.#frame = undefined;
    if (!result) return;
    if ('reason' in result) {
      console.error(result.message);
      this.#emit('svc-config-error', result);
      return;
    }
    const frame = document.createElement('iframe');
    frame.setAttribute('part', 'frame');
    frame.setAttribute('sandbox', SANDBOX);
    frame.allow = 'fullscreen; clipboard-write';
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

    const result = validateEvent(data);
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
    for (const [key, , type, payload, check] of STATE) {
      const value = this[key];
      if (value != null && !check(value)) this.#post(type, payload(value));
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
    // Never '*': if the frame now holds another document, the browser drops the message.
    this.#frame?.contentWindow?.postMessage(buildAction(type, payload as never), this.#origin);
  }

  #emit(name: keyof SvcEmbedEventMap, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }));
  }
}
