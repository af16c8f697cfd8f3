// The functions of `svc-embed/prerender` (prerender.ts), without the element: the CDN's prerender bundle uses the
// `<svc-embed>` that the element's own bundle defines.
import type { SvcEmbedElement } from './svc-embed.js';
import type { SvcEmbedProperties } from './framework-types.js';

/** The size of a prerendered embed's berth, in CSS pixels. */
export interface PrerenderSize {
  width?: number;
  height?: number;
}

/** What `show()` reports: the frame lived through the move, or it reloads (the element is `loading` until ready). */
export type ShowResult = 'kept' | 'reloaded';

const NAME = 'svc-embed/prerender';
const DEFAULT_HEIGHT = 600;
/** The parking container of each document, the observer that removes empty berths, and the berths' style sheet. */
const parkings = new WeakMap<Document, { box: HTMLElement; observer: MutationObserver; sheet?: CSSStyleSheet }>();
// A parked element fills its berth, whatever its own size (the element's default height is 600px). A constructed
// sheet, which a Content-Security-Policy without 'unsafe-inline' still allows; it matches parked elements only.
const BERTH_CSS = '[data-svc-embed-parking]>div>svc-embed{width:100%!important;height:100%!important}';

function checkElement(el: unknown, fn: string): asserts el is SvcEmbedElement {
  if ((el as Element | null)?.localName !== 'svc-embed' || typeof (el as SvcEmbedElement).whenReady !== 'function')
    throw new TypeError(`${NAME}: ${fn}: element must be an <svc-embed> element (defined: import 'svc-embed' first)`);
}

function checkSize(value: unknown, what: string, fn: string) {
  if (value !== undefined && !(typeof value == 'number' && Number.isFinite(value) && value > 0))
    throw new TypeError(`${NAME}: ${fn}: ${what} must be a positive number of CSS pixels`);
}

/** The document's parking container, made (and connected) when first needed. */
function parking(doc: Document) {
  const parked = parkings.get(doc);
  if (parked?.box.isConnected) return parked.box;
  if (parked) {
    parked.observer.disconnect();
    doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== parked.sheet);
  }
  const box = doc.createElement('div');
  box.setAttribute('data-svc-embed-parking', '');
  box.setAttribute('aria-hidden', 'true');
  box.inert = true;
  // Laid out, off-screen: the frames load and render at their size, and no scrollbar or hit test ever sees them.
  box.style.cssText =
    'position:fixed;top:0;left:-100000px;width:0;height:0;overflow:visible;pointer-events:none;contain:layout style';
  // A berth whose element left (shown elsewhere, or removed) goes; the container goes with its last berth.
  const observer = new MutationObserver(() => {
    for (const berth of [...box.children]) if (!berth.firstElementChild) berth.remove();
    if (!box.firstElementChild) {
      observer.disconnect();
      box.remove();
      doc.adoptedStyleSheets = doc.adoptedStyleSheets.filter((s) => s !== sheet);
      parkings.delete(doc);
    }
  });
  observer.observe(box, { childList: true, subtree: true });
  let sheet: CSSStyleSheet | undefined;
  try {
    sheet = new (doc.defaultView ?? window).CSSStyleSheet();
    sheet.replaceSync(BERTH_CSS);
    doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
  } catch {
    // No constructed style sheets: a parked element keeps its own size.
  }
  parkings.set(doc, { box, observer, sheet });
  doc.body.append(box);
  return box;
}

/** A berth in the parking container, `width` × `height` CSS pixels: the element's box while parked. */
function berth(doc: Document, { width, height }: PrerenderSize) {
  const box = doc.createElement('div');
  box.style.cssText = `position:absolute;top:0;left:0;width:${width ?? doc.documentElement.clientWidth}px;height:${height ?? DEFAULT_HEIGHT}px`;
  parking(doc).append(box);
  return box;
}

/** Moves `el` before `before` in `parent`, keeping it live where the browser can; what happened to its frame. */
function move(el: SvcEmbedElement, parent: Node, before: Node | null): ShowResult {
  const frame = el.shadowRoot?.querySelector('iframe');
  const win = frame?.contentWindow;
  const to = parent as ParentNode & { moveBefore?: (node: Node, child: Node | null) => void };
  // moveBefore() needs both places in one connected document; anything else is an ordinary insertion.
  if (
    typeof to.moveBefore === 'function' &&
    el.isConnected &&
    parent.isConnected &&
    parent.ownerDocument === el.ownerDocument
  )
    to.moveBefore(el, before);
  else parent.insertBefore(el, before);
  // Firefox gives the frame a new document (a new window) at once; a re-insertion gives it a new one too.
  // An element that has not made its frame yet (shown in the task that prerendered it) loses nothing.
  return !frame || (win && frame.isConnected && frame.contentWindow === win) ? 'kept' : 'reloaded';
}

/**
 * Makes an `<svc-embed>` with `properties` (any of its properties, `sessionProvider` included), connects it in the
 * document's parking container, `size` CSS pixels large (default: the viewport's width, 600 high), and returns it. It
 * loads there like any connected element. `loading: 'lazy'` is ignored (it would never load off-screen), with a
 * warning.
 * @throws TypeError when `properties` is not a plain object or names no property of the element, or `size` is not
 * positive numbers; Error when `<svc-embed>` is not defined.
 */
export function prerender(
  properties: SvcEmbedProperties,
  size: PrerenderSize = {},
  doc: Document = document,
): SvcEmbedElement {
  const Element = customElements.get('svc-embed') as typeof SvcEmbedElement | undefined;
  if (!Element)
    throw new Error(
      `${NAME}: prerender: <svc-embed> is not defined; import 'svc-embed' (or load its CDN script) first`,
    );
  if (properties === null || typeof properties != 'object' || Array.isArray(properties))
    throw new TypeError(
      `${NAME}: prerender(properties, size): properties must be an object of the element's properties`,
    );
  checkSize(size?.width, 'size.width', 'prerender');
  checkSize(size?.height, 'size.height', 'prerender');
  const el = doc.createElement('svc-embed');
  for (const [key, value] of Object.entries(properties)) {
    if (!Element.elementProperties.has(key))
      throw new TypeError(
        `${NAME}: prerender: "${key}" is not a property of <svc-embed>; give its properties (src, theme, sessionProvider, …)`,
      );
    if (key === 'loading' && value === 'lazy') {
      console.warn(`${NAME}: ignoring loading="lazy" for a prerendered <svc-embed>: it would never load while parked`);
      continue;
    }
    (el as unknown as Record<string, unknown>)[key] = value;
  }
  berth(doc, size).append(el);
  return el;
}

/**
 * Moves `element` into `container`, before `before` (default: at the end). Returns `'kept'` when its frame lived
 * through the move (`moveBefore()`: Chromium), else `'reloaded'` (Firefox's `moveBefore()`, and browsers without
 * it): the element is then `loading` until the new document says ready, and restores the state and the viewer's path.
 * @throws TypeError when `element` is not an `<svc-embed>`, `container` is not a node that takes children, or `before`
 * is not one of its children.
 */
export function show(element: SvcEmbedElement, container: ParentNode, before: Node | null = null): ShowResult {
  checkElement(element, 'show');
  // Not `instanceof Node`: a container in another same-origin window's document (a pop-out) is a Node of that realm.
  if (typeof (container as Node | null)?.nodeType != 'number' || !('insertBefore' in container))
    throw new TypeError(`${NAME}: show(element, container, before): container must be an element to show it in`);
  if (before !== null && before.parentNode !== container)
    throw new TypeError(`${NAME}: show(element, container, before): before must be a child of container, or null`);
  if (element.parentNode === container && element.nextSibling === before) return 'kept';
  return move(element, container, before);
}

/**
 * Moves `element` back into the parking container, still live, at the size it has now (so a shown element keeps the
 * size it was shown at). Returns what `show()` does. A parked element stays parked.
 */
export function park(element: SvcEmbedElement): ShowResult {
  checkElement(element, 'park');
  const doc = element.ownerDocument;
  const box = parkings.get(doc)?.box;
  if (box && element.parentElement?.parentElement === box) return 'kept';
  const { width, height } = element.getBoundingClientRect();
  return move(element, berth(doc, width && height ? { width, height } : {}), null);
}
