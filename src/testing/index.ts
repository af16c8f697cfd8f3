/**
 * `svc-embed/testing`: helpers for your own unit and component tests in a browser test runner
 * (@web/test-runner, Vitest browser mode, Karma, …) whose test page is on a loopback or https origin.
 *
 * The helpers drive a real `<svc-embed>` through its public API and the page's own privileges: events come
 * from the element's own frame, on the origin of its `src`, and pass the element's unchanged gate and
 * validation. They work when the element's `src` is on the test page's origin: `mountTestEmbed()` makes
 * such an element, and any `src` on the page's origin works too (even one the test server answers with a
 * 404 page). A real tenant's cross-origin frame cannot be driven, and the helpers say so.
 *
 * Importing this module in Node does not throw (the element is defined only where a DOM exists).
 * @packageDocumentation
 */
import '../define.js';
import { SURFACES, buildEvent, domEventName, isPlainObject } from '@svc-embed/protocol';
import type { EventEnvelope, EventPayloadMap, EventType, ReadyPayload, Surface } from '@svc-embed/protocol';
import type {
  SvcActionDetail,
  SvcEvent,
  SvcMessageRejectedDetail,
  SvcSessionRenewalFailedDetail,
  SvcStatusDetail,
} from '../events.js';
import type { SvcEmbedElement } from '../svc-embed.js';
import { framePoster } from './frame.js';

/** Options of {@link emitEvent}. */
export interface EmitOptions {
  /**
   * The envelope's `surface`. Default: the payload's own `surface` (ready and view events carry one),
   * else `'dashboard'`.
   */
  surface?: Surface;
}

/** What {@link recordActions} returns: the actions sent so far, in order, growing as more are sent. */
export type ActionRecord = SvcActionDetail[] & {
  /** Stops recording; the array keeps what it holds. */
  stop(): void;
};

/** Options of {@link mountTestEmbed}. */
export interface MountTestEmbedOptions {
  /**
   * The frame's URL, absolute or relative to the page; it must be on the test page's origin. Default
   * {@link testEmbedSrc}`()`. Whatever the server answers is fine (a 404 page included), as long as it is
   * not a page that runs your app: with an SPA fallback, give the path of any static file.
   */
  src?: string;
  /** Attributes set before the element is connected, such as `{'color-scheme': 'dark', 'ready-timeout': '0'}`. */
  attributes?: Readonly<Record<string, string>>;
  /** Where the element is appended. Default `document.body`. */
  container?: ParentNode;
  /**
   * Milliseconds from now at which the host's session expires: sets the element's `sessionExpiresAt`. With a
   * `sessionProvider`, the element then renews ahead of that expiry (see {@link renewAhead}).
   */
  expiresIn?: number;
  /**
   * `true` makes this element's test frames as strict as the service's single-use sessions: a frame whose URL
   * carries a `session` that an earlier test frame loaded (a frame of any element mounted with this option, since
   * the page loaded or since {@link forgetUsedSessions}) is refused at once with a fatal `svc:event:error` named
   * `SessionUsedError`, as the simulated tenant refuses it. This covers every frame the element loads: a re-insertion,
   * a reload, a change of `src`, the frame behind of a renewal. Default `false`.
   */
  singleUseSessions?: boolean;
}

/** What {@link renewAhead} resolves with: the swap's `svc-ready`, and the session the new frame was loaded with. */
export interface RenewalResult {
  event: SvcEvent<'svc:event:ready'>;
  session: string | null;
}

/** What {@link renewAhead} rejects with when an attempt fails: its `svc-session-renewal-failed` detail. */
export class RenewalFailedError extends Error {
  constructor(readonly detail: SvcSessionRenewalFailedDetail) {
    super(`${NAME}: renewAhead: attempt ${detail.attempt} of the renewal ahead of expiry failed (${detail.reason})`);
    this.name = 'RenewalFailedError';
  }
}

/** The defaults of {@link emitReady}'s payload. */
export const READY_DEFAULTS: Readonly<ReadyPayload> = Object.freeze({
  embedTenant: 'test',
  deploymentId: 1,
  mode: 'signed',
  surface: 'dashboard',
});

const NAME = 'svc-embed/testing';
// The marker that follows each emitted event from the same frame. Messages from one window to another are
// delivered in the order they were posted, so when it arrives, the element has handled the event.
const MARK = 'svcEmbedTestingDone';
let lastMark = 0;

/** The sessions loaded by the test frames of elements mounted with `singleUseSessions`. */
const usedSessions = new Set<string>();
/** Test frame documents refused as having a used session: they never say ready (see renewAhead). */
const refusedDocuments = new WeakSet<Document>();
/** The message of the fatal error of a refused frame: the simulated tenant's words. */
const SESSION_USED =
  'The embed session was already used: a session is single-use, and an earlier frame loaded it. Ask the host application for a new session for each embed.';

/**
 * Forgets the sessions that test frames have loaded, so that the next test may load them again: for an `afterEach`
 * when tests of one page reuse session values (the default `src`'s `session=test` is one).
 */
export function forgetUsedSessions(): void {
  usedSessions.clear();
}

/**
 * Watches every frame `el` loads: the first load of a session records it, and a later load of it is refused with a
 * fatal `SessionUsedError` from that frame. Decided at the frame's `load`, before any helper can say ready from it.
 */
function refuseUsedSessions(el: SvcEmbedElement, root: ShadowRoot): void {
  root.addEventListener(
    'load',
    (e) => {
      const frame = e.target as HTMLIFrameElement;
      if (frame.localName !== 'iframe') return;
      const doc = frame.contentDocument;
      // The initial about:blank, and a document the helpers put in place of one that runs no script: not a load
      // of the element's URL.
      if (!doc || !/^https?:/.test(doc.URL)) return;
      const url = new URL(doc.URL);
      const sessions = url.searchParams.getAll('session');
      const reused = sessions.some((value) => usedSessions.has(value));
      for (const value of sessions) usedSessions.add(value);
      if (!reused) return;
      refusedDocuments.add(doc);
      const surface = SURFACES.find((name) => url.pathname.split('/').includes(name)) ?? 'dashboard';
      const origin = el.ownerDocument.defaultView!.location.origin;
      framePoster(frame).then(
        (post) =>
          post(
            buildEvent('svc:event:error', surface, {
              message: SESSION_USED,
              name: 'SessionUsedError',
              context: 'auth',
              fatal: true,
            }),
            origin,
          ),
        // A frame that is gone (or runs no script) by then has nothing left to refuse.
        () => {},
      );
    },
    true,
  );
}

/**
 * `{origin}/__svc-embed-test__/dashboard/test-board?session=test` on the page's origin: the default `src`
 * of {@link mountTestEmbed}. No server needs to know the path.
 */
export function testEmbedSrc(): string {
  return `${location.origin}/__svc-embed-test__/dashboard/test-board?session=test`;
}

function checkElement(el: unknown, fn: string): asserts el is SvcEmbedElement {
  if ((el as Element | null)?.localName !== 'svc-embed' || typeof (el as SvcEmbedElement).whenReady !== 'function') {
    throw new TypeError(`${NAME}: ${fn}(el): el must be an <svc-embed> element`);
  }
}

/** The element's frame and window, once it can be driven; a clear error naming the fix otherwise. */
async function drivable(el: SvcEmbedElement, fn: string) {
  await el.updateComplete;
  const view = el.ownerDocument.defaultView;
  if (!el.isConnected || !view) {
    throw new Error(`${NAME}: ${fn}: the <svc-embed> is not in a document; append it first (mountTestEmbed() does)`);
  }
  const frame = el.shadowRoot?.querySelector('iframe');
  if (!frame) {
    throw new Error(
      `${NAME}: ${fn}: the <svc-embed> has no frame (status "${el.status}": no src, or a refused one: an http: src must be on loopback); use mountTestEmbed(), or a src on this page's origin`,
    );
  }
  const origin = new URL(frame.src).origin;
  if (origin !== view.location.origin) {
    throw new Error(
      `${NAME}: ${fn}: the <svc-embed>'s frame is on ${origin}, not on this page's origin ${view.location.origin}, so this page cannot post from it. Use mountTestEmbed(), or give the element a src on this page's origin (a 404 page will do)`,
    );
  }
  return { frame, view };
}

/**
 * Sends an embed event to `el` from the element's own frame, on the frame's origin, so that it passes the
 * element's real gate and validation. Resolves with the DOM event once the element has dispatched it
 * (`svc-download` for `svc:event:download`, …).
 * @throws TypeError at once for a payload or surface the protocol refuses (the protocol's own message).
 * Rejects when the element has no frame this page can drive (see {@link mountTestEmbed}) or did not
 * dispatch the event.
 */
export function emitEvent<T extends EventType>(
  el: SvcEmbedElement,
  type: T,
  payload: EventPayloadMap[T],
  options: EmitOptions = {},
): Promise<SvcEvent<T>> {
  checkElement(el, 'emitEvent');
  const own =
    isPlainObject(payload) && (SURFACES as readonly unknown[]).includes(payload.surface)
      ? (payload.surface as Surface)
      : undefined;
  const envelope = buildEvent(type, options?.surface ?? own ?? 'dashboard', payload);
  return deliver(el, envelope);
}

async function deliver<T extends EventType>(el: SvcEmbedElement, envelope: EventEnvelope<T>): Promise<SvcEvent<T>> {
  const { frame, view } = await drivable(el, 'emitEvent');
  const post = await framePoster(frame);
  // As the tenant's embed, a frame that reported its fatal error is dead.
  if (frame.contentDocument && refusedDocuments.has(frame.contentDocument)) {
    throw new Error(
      `${NAME}: emitEvent: the <svc-embed>'s frame was refused for a session an earlier test frame had loaded (singleUseSessions), and sends nothing more`,
    );
  }
  const name = domEventName(envelope.type);
  const mark = ++lastMark;
  // Taken now: once the element drops this frame, `frame.contentWindow` is null, and Firefox and WebKit then
  // deliver what the frame had posted with a null `source`. The marker still comes, last.
  const source = frame.contentWindow;
  return new Promise((resolve, reject) => {
    let dispatched: SvcEvent<T> | undefined;
    let refused: string | undefined;
    // Capture on the element itself: no listener of the page can hide the event from the helper.
    const onEvent = (e: Event) => {
      const detail = (e as SvcEvent<T>).detail;
      if (!dispatched && detail.type === envelope.type && detail.timestamp === envelope.timestamp)
        dispatched = e as SvcEvent<T>;
    };
    const onRejected = (e: Event) => {
      refused ??= (e as CustomEvent<SvcMessageRejectedDetail>).detail.reason;
    };
    const stop = () => {
      el.removeEventListener(name, onEvent, true);
      el.removeEventListener('svc-message-rejected', onRejected, true);
      view.removeEventListener('message', onMessage);
    };
    const onMessage = (e: MessageEvent) => {
      if ((e.source !== source && e.source !== null) || !isPlainObject(e.data) || e.data[MARK] !== mark) return;
      stop();
      if (dispatched) resolve(dispatched);
      else {
        reject(
          new Error(
            `${NAME}: emitEvent: the <svc-embed> did not dispatch ${envelope.type}${
              refused
                ? `: it refused it (${refused})`
                : ': it ignored it (was it disconnected, or was its src changed meanwhile?)'
            }`,
          ),
        );
      }
    };
    el.addEventListener(name, onEvent, true);
    el.addEventListener('svc-message-rejected', onRejected, true);
    view.addEventListener('message', onMessage);
    try {
      post(envelope, view.location.origin);
      post({ [MARK]: mark }, view.location.origin);
    } catch (error) {
      stop();
      reject(error);
    }
  });
}

/**
 * Sends `svc:event:ready` with {@link READY_DEFAULTS} (`mode: 'signed'`, `surface: 'dashboard'`, …) and
 * the fields of `payload` over them. The element becomes `ready` and sends its state and held commands. When the load
 * must show a path first (`path`, a held `navigate()`, a path restored), the element holds its loading state until
 * the embed has viewed and drawn it: then this also sends `svc:event:view` for that path, as an embed sent there does
 * (and, on the `dashboard` surface, `svc:event:dashboard-loaded`), and resolves at `svc-ready`.
 */
export function emitReady(
  el: SvcEmbedElement,
  payload: Partial<ReadyPayload> = {},
  options: EmitOptions = {},
): Promise<SvcEvent<'svc:event:ready'>> {
  if (!isPlainObject(payload)) throw new TypeError(`${NAME}: emitReady(el, payload): payload must be a plain object`);
  const ready = { ...READY_DEFAULTS, ...payload };
  // The last navigation the element posts at this ready, and its svc-ready or failure, should it hold.
  let path: string | undefined;
  let ended!: (e: Event) => void;
  const onAction = (e: Event) => {
    const { type, payload } = (e as CustomEvent<SvcActionDetail>).detail;
    if (type === 'svc:action:navigate') path = payload.path;
  };
  const shown = new Promise<SvcEvent<'svc:event:ready'>>((resolve, reject) => {
    ended = (e) => {
      const { status, message } = (e as CustomEvent<SvcStatusDetail>).detail;
      if (e.type === 'svc-ready') resolve(e as SvcEvent<'svc:event:ready'>);
      else if (status === 'error') reject(new Error(`${NAME}: emitReady: the <svc-embed> failed: ${message}`));
    };
  });
  const listen = (on: boolean) => {
    for (const [name, listener] of [
      ['svc-action', onAction],
      ['svc-ready', ended],
      ['svc-status', ended],
    ] as const)
      if (on) el.addEventListener(name, listener, true);
      else el.removeEventListener(name, listener, true);
  };
  listen(true);
  let sent: Promise<SvcEvent<'svc:event:ready'>>;
  try {
    sent = emitEvent(el, 'svc:event:ready', ready, options);
  } catch (error) {
    listen(false);
    throw error;
  }
  return sent
    .catch(async (error: unknown) => {
      if (path === undefined || el.status !== 'loading') throw error;
      const { surface, publicId } = ready;
      const id = publicId ? { publicId } : {};
      await emitEvent(el, 'svc:event:view', { surface, path, ...id }, options);
      // A dashboard has drawn the path when it says so; until then the element holds (app and chat, for a while).
      if (surface === 'dashboard') await emitEvent(el, 'svc:event:dashboard-loaded', id, options);
      return shown;
    })
    .finally(() => listen(false));
}

/**
 * Records the actions `el` sends from now on, from its `svc-action` events: a live array of
 * `{type, payload, timestamp}`, each a copy of what was posted into the frame. `stop()` ends the recording.
 */
export function recordActions(el: SvcEmbedElement): ActionRecord {
  checkElement(el, 'recordActions');
  const actions: SvcActionDetail[] = [];
  const listener = (e: Event) => {
    actions.push(structuredClone((e as CustomEvent<SvcActionDetail>).detail));
  };
  el.addEventListener('svc-action', listener, true);
  // Not enumerable: the record compares and prints as the plain array it is.
  return Object.defineProperty(actions, 'stop', {
    value: () => el.removeEventListener('svc-action', listener, true),
  }) as ActionRecord;
}

/**
 * Appends an `<svc-embed>` whose frame is a document on the test page's own origin, and resolves once the
 * helpers can post from that frame. The element is not ready yet: call {@link emitReady}. Its ready
 * timeout (15 s by default) runs as usual; `attributes: {'ready-timeout': '0'}` turns it off.
 * @throws TypeError when `src` is not on the page's origin.
 */
export async function mountTestEmbed(options: MountTestEmbedOptions = {}): Promise<SvcEmbedElement> {
  const { src = testEmbedSrc(), attributes = {}, container = document.body, expiresIn, singleUseSessions } = options;
  if (singleUseSessions !== undefined && typeof singleUseSessions !== 'boolean')
    throw new TypeError(`${NAME}: mountTestEmbed: singleUseSessions must be true or false`);
  if (expiresIn !== undefined && !Number.isFinite(expiresIn))
    throw new TypeError(`${NAME}: mountTestEmbed: expiresIn must be a finite number of milliseconds`);
  const url = new URL(src, location.href);
  if (url.origin !== location.origin) {
    throw new TypeError(
      `${NAME}: mountTestEmbed: src must be on this page's origin ${location.origin}, not ${url.origin}: the helpers post from the frame, so the page must be able to script it`,
    );
  }
  if (Object.hasOwn(attributes, 'src'))
    throw new TypeError(`${NAME}: mountTestEmbed: give the frame's URL as the src option, not as an attribute`);
  const el = document.createElement('svc-embed');
  for (const [name, value] of Object.entries(attributes)) el.setAttribute(name, value);
  el.setAttribute('src', url.href);
  if (expiresIn !== undefined) el.sessionExpiresAt = Date.now() + expiresIn;
  container.append(el);
  // The shadow root exists once the element is connected; its frame comes at the first update, after this.
  if (singleUseSessions) refuseUsedSessions(el, el.shadowRoot!);
  try {
    const { frame } = await drivable(el, 'mountTestEmbed');
    await framePoster(frame);
  } catch (error) {
    el.remove();
    throw error;
  }
  return el;
}

/**
 * Plays the embed's side of the element's next renewal ahead of expiry: waits for the frame the element loads
 * behind the visible one (which needs a `sessionProvider` and a known expiry: {@link MountTestEmbedOptions.expiresIn}),
 * says ready from it with {@link READY_DEFAULTS} and `payload`'s fields over them, and reports the view of each path
 * the element navigates it to. Resolves at the swap with its `svc-ready` and the new session (from the new frame's
 * URL). Rejects with a {@link RenewalFailedError} when the attempt fails (the provider rejected, hung or gave a bad
 * session): call it again to play the retry; with an Error when the status changes first (the renewal ended
 * otherwise: a host change, `renewSession()`, the expiry, a removal). The element's own timing applies: with fake
 * timers, tick them. It waits as long as no renewal begins: bound it with your test runner's timeout.
 */
export function renewAhead(el: SvcEmbedElement, payload: Partial<ReadyPayload> = {}): Promise<RenewalResult> {
  checkElement(el, 'renewAhead');
  if (!isPlainObject(payload)) throw new TypeError(`${NAME}: renewAhead(el, payload): payload must be a plain object`);
  const root = el.shadowRoot;
  if (!root || !el.isConnected)
    throw new Error(
      `${NAME}: renewAhead: the <svc-embed> is not in a document; append it first (mountTestEmbed() does)`,
    );
  return new Promise<RenewalResult>((resolve, reject) => {
    let behind: HTMLIFrameElement | undefined;
    let listening: { win: Window; listener: (e: MessageEvent) => void } | undefined;
    const fail = (error: Error) => {
      stop();
      reject(error);
    };
    const onFailed = (e: Event) =>
      fail(new RenewalFailedError((e as CustomEvent<SvcSessionRenewalFailedDetail>).detail));
    // A renewal ahead never changes the status: a change means it ended otherwise (a host change, renewSession(),
    // the expiry, a removal).
    const onStatus = (e: Event) =>
      fail(
        new Error(
          `${NAME}: renewAhead: the status changed to "${(e as CustomEvent<{ status: string }>).detail.status}" before the swap: no renewal ahead of expiry took place`,
        ),
      );
    const onReady = (e: Event) => {
      if (!behind || root.querySelector('iframe') !== behind) return;
      stop();
      resolve({ event: e as SvcEvent<'svc:event:ready'>, session: new URL(behind.src).searchParams.get('session') });
    };
    // The frame behind: the inert one in the shadow root, behind the visible one (already there, or to come).
    const look = () => {
      const frame = root.querySelector<HTMLIFrameElement>('iframe[inert]');
      if (!frame || behind) return;
      behind = frame;
      play(frame).catch(fail);
    };
    const observer = new MutationObserver(look);
    const stop = () => {
      observer.disconnect();
      el.removeEventListener('svc-session-renewal-failed', onFailed, true);
      el.removeEventListener('svc-status', onStatus, true);
      el.removeEventListener('svc-ready', onReady, true);
      listening?.win.removeEventListener('message', listening.listener);
    };
    const play = async (frame: HTMLIFrameElement) => {
      const post = await framePoster(frame);
      // A frame refused for a used session says nothing more: the element hears its fatal error instead.
      if (frame.contentDocument && refusedDocuments.has(frame.contentDocument)) return;
      const origin = el.ownerDocument.defaultView!.location.origin;
      const ready = { ...READY_DEFAULTS, ...payload };
      const { surface } = ready;
      const send = <T extends EventType>(type: T, body: EventPayloadMap[T]) =>
        post(buildEvent(type, surface, body), origin);
      // As the service's embed does: a view of each path it shows (its start, then where the element navigates it),
      // and on a dashboard, its widgets rendered there, which the element waits for before the swap.
      const show = (path: string) => {
        send('svc:event:view', { surface, path });
        if (surface === 'dashboard') send('svc:event:dashboard-loaded', {});
      };
      const listener = (e: MessageEvent) => {
        const data = e.data as { type?: unknown; payload?: { path?: unknown } } | null;
        if (data?.type === 'svc:action:navigate' && typeof data.payload?.path === 'string') show(data.payload.path);
      };
      listening = { win: frame.contentWindow!, listener };
      listening.win.addEventListener('message', listener);
      send('svc:event:ready', ready);
      show('/');
    };
    el.addEventListener('svc-session-renewal-failed', onFailed, true);
    el.addEventListener('svc-status', onStatus, true);
    el.addEventListener('svc-ready', onReady, true);
    observer.observe(root, { childList: true });
    look();
  });
}
