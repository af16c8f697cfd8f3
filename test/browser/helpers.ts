// Shared by the browser tests: the peer's origins, and a small driver for the peer page
// (test/support/peer.html) that runs in the element's iframe on a real second origin.
import { executeServerCommand, sendMouse } from '@web/test-runner-commands';
import { oneEvent } from '@open-wc/testing';
import '../../src/index.js';
import type { SvcEmbedElement, SvcEmbedEventMap, SvcEmbedPropertyName, SvcStatusDetail } from '../../src/index.js';

export const { tenant, other }: { tenant: string; other: string } = await executeServerCommand('peer-origins');

/** Every `svc-*` DOM event name the element can dispatch. */
export const DOM_EVENTS = [
  'svc-ready',
  'svc-view',
  'svc-navigate',
  'svc-dashboard-loaded',
  'svc-download',
  'svc-drilldown',
  'svc-ai-query',
  'svc-error',
  'svc-message-rejected',
  'svc-config-error',
] as const;

/**
 * A svc-embed message as the peer received it from the host: an action envelope as the host sent it, unchecked
 * (the tests check it).
 */
export interface PeerMessage {
  source: 'svc-embed';
  direction: string;
  type: string;
  payload: Record<string, unknown>;
  timestamp: number;
}

/** What the peer reports: every svc-embed message it received, with the origin it came from. */
export type PeerReport = Array<{ origin: string; data: PeerMessage }>;

/** What the peer page posts to this page besides events (test/support/peer.html); each says what it is by its key. */
interface PeerAnswer {
  /** The peer's origin, on every load. */
  peerLoaded?: unknown;
  /** The id of the command it has done. */
  peerDone?: unknown;
  /** The id of the command it answers (with `peerReport`). */
  peerId?: unknown;
  peerReport?: PeerReport;
  /** What its popup reports: `navigated`, `threw <name>` or `blocked`. */
  peerPopup?: unknown;
  /** With `router=1`: the path it shows (with `peerId`). */
  peerPath?: string;
}

/** `data` of a message event as a peer answer: an object, whose keys the listener checks; or nothing. */
function asPeerAnswer(data: unknown): PeerAnswer {
  return typeof data === 'object' && data !== null ? data : {};
}

/** A peer page URL on `origin`; `ready` makes it say svc:event:ready for that surface on load. */
export function peerUrl(origin = tenant, ready: string | null = 'dashboard', extra = ''): string {
  const q = new URLSearchParams({ host: location.origin });
  if (ready) q.set('ready', ready);
  return `${origin}/embed/dashboard/test-board?${q}${extra}`;
}

// Peer pages announce every load; record them from the start so no announcement is missed.
const loads: Array<{ win: MessageEventSource | null; origin: string }> = [];
addEventListener('message', (e) => {
  if (typeof asPeerAnswer(e.data).peerLoaded === 'string') loads.push({ win: e.source, origin: e.origin });
});

/** Resolves once `win` has loaded a peer page on `origin` (at least `count` times). */
export async function peerLoaded(win: Window, origin = tenant, count = 1): Promise<void> {
  while (!hasLoaded(win, origin, count)) await new Promise((r) => setTimeout(r, 10));
}

/** Whether `win` has loaded a peer page on `origin` (at least `count` times), now. */
export function hasLoaded(win: Window, origin = tenant, count = 1): boolean {
  return loads.filter((l) => l.win === win && l.origin === origin).length >= count;
}

let nextId = 0;
function ask<T>(win: Window, origin: string, command: object, answer: (data: PeerAnswer) => T | undefined): Promise<T> {
  const id = ++nextId;
  return new Promise<T>((resolve) => {
    const onMessage = (e: MessageEvent) => {
      if (e.source !== win || !e.data) return;
      const data = asPeerAnswer(e.data);
      const result = data.peerDone === id ? (true as T) : data.peerId === id ? answer(data) : undefined;
      if (result === undefined) return;
      removeEventListener('message', onMessage);
      resolve(result);
    };
    addEventListener('message', onMessage);
    win.postMessage({ ...command, id }, origin);
  });
}

/** Has the peer in `win` post `messages` (objects, or JSON text) to the host; resolves once the host has handled them. */
export function peerPost(win: Window, messages: unknown[], origin = tenant): Promise<unknown> {
  return ask(win, origin, { peerCmd: 'post', messages }, () => undefined);
}

/**
 * Has the peer post eight drilldowns whose values only structured clone carries (a Map, a Date, a Blob, an
 * ArrayBuffer, a Uint8Array, a RegExp, [NaN], a Set inside an object), in that order.
 */
export function peerPostValues(win: Window): Promise<unknown> {
  return ask(win, tenant, { peerCmd: 'values' }, () => undefined);
}

/** Has the peer post `message` with a MessagePort transferred alongside; resolves once the host has handled it. */
export function peerPostPort(win: Window, message: unknown): Promise<unknown> {
  return ask(win, tenant, { peerCmd: 'postPort', message }, () => undefined);
}

/**
 * Has the peer open a popup that tries to navigate the host's top page to `attack`; resolves with what the popup
 * reports (`navigated`, `threw <name>`). Where a popup blocker refuses a popup without a user gesture (WebKit), the
 * peer opens it at a real click into its frame.
 */
export async function peerPopup(frame: HTMLIFrameElement, attack: string): Promise<string> {
  const report = () =>
    new Promise<string>((resolve) => {
      const onMessage = (e: MessageEvent) => {
        const { peerPopup } = asPeerAnswer(e.data);
        if (typeof peerPopup !== 'string') return;
        removeEventListener('message', onMessage);
        resolve(peerPopup);
      };
      addEventListener('message', onMessage);
    });
  const first = report();
  await ask(frame.contentWindow!, tenant, { peerCmd: 'popup', attack }, () => undefined);
  const result = await first;
  if (result !== 'blocked') return result;
  const second = report();
  await ask(frame.contentWindow!, tenant, { peerCmd: 'popup', attack, onClick: true }, () => undefined);
  frame.scrollIntoView();
  const box = frame.getBoundingClientRect();
  await sendMouse({ type: 'click', position: [Math.round(box.x + 20), Math.round(box.y + 20)] });
  return second;
}

/** Has the peer post `count` view events as fast as it can. */
export function peerBurst(win: Window, count: number): Promise<unknown> {
  return ask(win, tenant, { peerCmd: 'burst', count }, () => undefined);
}

/** Has the peer say svc:event:ready. */
export function peerReady(win: Window, origin = tenant): Promise<unknown> {
  return ask(win, origin, { peerCmd: 'ready' }, () => undefined);
}

/**
 * Has a routing peer (`router=1` in its URL) make navigations the viewer makes inside it, one after the other, as fast
 * as it can: each posts navigate and view (and with `embedHistory=1`, pushes an entry first).
 */
export function peerClick(win: Window, ...paths: string[]): Promise<unknown> {
  return ask(win, tenant, { peerCmd: 'click', paths }, () => undefined);
}

/** The path a routing peer shows. */
export function peerPath(win: Window): Promise<string | undefined> {
  return ask(win, tenant, { peerCmd: 'where' }, (d) => d.peerPath ?? '');
}

/** Every svc-embed message the peer received, with the origin it came from. */
export function peerReport(win: Window, origin = tenant): Promise<PeerReport> {
  return ask(win, origin, { peerCmd: 'report' }, (d) => d.peerReport);
}

/** Navigates the peer's own window to `url` (the frame keeps its WindowProxy). */
export function peerNavigate(win: Window, url: string, origin = tenant): void {
  win.postMessage({ peerCmd: 'navigate', url }, origin);
}

export const frameOf = (el: SvcEmbedElement) => el.shadowRoot!.querySelector('iframe');
export const windowOf = (el: SvcEmbedElement) => frameOf(el)!.contentWindow!;

/** Resolves once the element shows a frame other than `win`. */
export async function newFrame(el: SvcEmbedElement, win: Window | null): Promise<void> {
  while (frameOf(el)?.contentWindow === win) await new Promise((r) => setTimeout(r, 10));
}

/** Records every svc-status detail dispatched on `target` (the element, or an ancestor it bubbles to), in order. */
export function statuses(target: EventTarget): SvcStatusDetail[] {
  const seen: SvcStatusDetail[] = [];
  target.addEventListener('svc-status', (e) => seen.push((e as CustomEvent<SvcStatusDetail>).detail));
  return seen;
}

/** Appends a new `<svc-embed>` with these attributes; `ready` resolves with its first svc-ready. */
export function embed(attrs: Record<string, string> = {}) {
  const el = document.createElement('svc-embed');
  for (const [name, value] of Object.entries({ src: peerUrl(), ...attrs })) el.setAttribute(name, value);
  const ready = oneSvcEvent(el, 'svc-ready');
  document.body.append(el);
  return { el, ready };
}

/** `oneEvent`, typed by the element's event map: resolves with the next `name` event on `target`. */
export function oneSvcEvent<K extends keyof SvcEmbedEventMap>(
  target: EventTarget,
  name: K,
): Promise<SvcEmbedEventMap[K]> {
  return oneEvent<SvcEmbedEventMap[K]>(target, name);
}

/**
 * The detail of any svc-* event, as the tests read it. Each field is there only in the events that have it: an
 * event's type, surface, timestamp and payload; a rejection's reason and type; a config error's reason and message;
 * a status change's status. The tests check which.
 */
export interface SvcDetail {
  type?: string;
  surface?: string;
  timestamp?: number;
  payload?: Record<string, unknown>;
  reason?: string;
  message?: string;
  status?: string;
}

/** Records every svc-* event dispatched on `el`, in order. */
export function record(el: Element): Array<CustomEvent<SvcDetail>> {
  const seen: Array<CustomEvent<SvcDetail>> = [];
  for (const name of DOM_EVENTS) el.addEventListener(name, (e) => seen.push(e as CustomEvent<SvcDetail>));
  return seen;
}

/** A copy of `object` without `keys` (as a rest pattern leaves them out). */
export function omit<T extends object, K extends keyof T>(object: T, ...keys: K[]): Omit<T, K> {
  const copy: Partial<T> = { ...object };
  for (const key of keys) delete copy[key];
  return copy as Omit<T, K>;
}

/** Assigns each named reactive property of `el` the value it has: an unchanged write, through its setter. */
export function rewrite(el: SvcEmbedElement, names: readonly SvcEmbedPropertyName[]): void {
  for (const name of names) assign(el, name, el[name]);
}

/** Every reactive property of the element, each written with the value it has: what a framework wrapper's render does. */
export function rewriteAll(el: SvcEmbedElement): void {
  rewrite(el, [
    'src',
    'tenantOrigin',
    'publicId',
    'session',
    'allowExport',
    'colorScheme',
    'locale',
    'filter',
    'theme',
    'title',
    'readyTimeout',
    'loading',
    'debug',
    'sessionProvider',
  ]);
}

function assign<K extends SvcEmbedPropertyName>(el: SvcEmbedElement, name: K, value: SvcEmbedElement[K]): void {
  el[name] = value;
}

/** A parent node with `moveBefore()` (a state-preserving move), which TypeScript's DOM types do not list yet. */
export interface MoveBeforeParent {
  moveBefore(node: Node, child: Node | null): void;
}

/** Whether `parent` has `moveBefore()`. */
export function canMoveBefore(parent: ParentNode): parent is ParentNode & MoveBeforeParent {
  return 'moveBefore' in parent;
}

/** A valid event envelope. */
export function envelope(type: string, payload: unknown, surface = 'dashboard'): Record<string, unknown> {
  return { source: 'svc-embed', direction: 'event', type, payload, timestamp: 1_700_000_000_000, surface };
}

/**
 * Removes what the tests added to the page (elements, frames, spacers), forgets the sessions their frames spent, and
 * scrolls back to the top.
 */
export function cleanup(): void {
  for (const el of [...document.body.children]) if (el.localName !== 'script') el.remove();
  // What the page's frames spent: each test starts as a new page would, whatever session names another test used.
  forgetSpent();
  scrollTo(0, 0);
}

/**
 * Forgets the sessions spent in this app: the element keeps them on the topmost same-origin window (through `opener`
 * and `parent`), which is this page, or the test runner's page when it runs this one in a frame.
 */
export function forgetSpent(): void {
  for (const view of [window, window.parent, window.top]) {
    try {
      (view as unknown as Record<symbol, Set<unknown> | undefined>)?.[Symbol.for('svc-embed.spent')]?.clear();
    } catch {
      // A cross-origin window holds none of ours.
    }
  }
}

/**
 * A document of its own: a same-origin frame made from `html`, resolved once `done(window)` holds, or after 25 s (a
 * loaded machine can be slow; a test's own limit is 30 s) so that the test fails on what it checks. The frame's window
 * is read afresh each time: its first one is a placeholder that the srcdoc document replaces.
 */
export async function framePage<W extends Window>(html: string, done: (win: W) => boolean): Promise<W> {
  const frame = document.createElement('iframe');
  frame.srcdoc = html;
  document.body.append(frame);
  const win = () => frame.contentWindow as W;
  for (const until = performance.now() + 25_000; !done(win()) && performance.now() < until;)
    await new Promise((r) => setTimeout(r, 20));
  return win();
}
