/**
 * `svc-embed/ssr`: server-rendered `<svc-embed>` markup whose frame starts loading with the HTML. No DOM: it runs in
 * Node, in a worker and at the edge.
 *
 * `renderEmbed(attributes)` returns the element with a declarative shadow root that holds its frame: the frame the
 * element would make (the same resolved URL, `sandbox`, `allow`, `title`, `referrerpolicy`, `loading`), its loading
 * and error boxes and its style. When the element's code runs, it adopts that frame without a second request, and
 * replays what the frame said before (kept by `EARLY_SCRIPT`), through its gate. A source the element would refuse
 * renders no frame: the element then reports it, as without a server.
 * @packageDocumentation
 */
import { pathProblem } from '@svc-embed/protocol';
import { resolveEmbedUrl } from './embed-url.js';
import { CSS, EARLY, FRAME, TITLE } from './frame.js';

/** An attribute's value: `true` writes it empty, `false`, `null` and `undefined` leave it out; an object is JSON. */
export type AttributeValue = string | number | boolean | null | undefined | object;

/** The options of `renderEmbed()`. */
export interface RenderOptions {
  /** A CSP nonce for the early-message script and the style element. */
  nonce?: string;
  /**
   * Writes `EARLY_SCRIPT` before the element (default `true`). It runs once per page however often it is written;
   * leave it out where the page writes it once itself, in its `<head>`.
   */
  early?: boolean;
  /**
   * Writes `<link rel="preconnect">` to the tenant origin before the element (default `true`, except for
   * `loading: 'lazy'`, whose frame may load long after the connection would have closed).
   */
  preconnect?: boolean;
}

/**
 * Keeps the messages that the frame of a server-rendered `<svc-embed>` posts before the element is defined (at most
 * 100), for the element to replay through its gate when it adopts the frame. It keeps only messages whose source is
 * the frame of an `<svc-embed>` on the page, and nothing once the element is defined. Runs once per page. Plain
 * ES5 syntax: an engine without declarative shadow DOM runs it too.
 */
export const EARLY_SCRIPT = `(function(w,k){if(!w.Symbol||w[k=Symbol.for("${EARLY}")])return;var q=w[k]=[];w.addEventListener("message",function(e){var c=w.customElements,a,i,r,f;if(q.length>99||!c||c.get("svc-embed"))return;for(a=document.getElementsByTagName("svc-embed"),i=0;i<a.length;i++){r=a[i].shadowRoot;f=r&&r.querySelector("iframe");if(f&&f.contentWindow===e.source)return void q.push(e)}})})(window)`;

/** The CSP source that allows `EARLY_SCRIPT` in `script-src` (its SHA-256), where no nonce is used. */
export const EARLY_SCRIPT_HASH = "'sha256-WdN+h8/jjsxjPFiAlNpgvCU+bsdOT4XN0vVjqSHGLyA='";

/** The CSP source that allows the shadow root's `<style>` in `style-src` (its SHA-256), where no nonce is used. */
export const STYLE_HASH = "'sha256-VDcqs1QRdGU8Jt2bSLX4cWGDZAFr17T3vnjTebiuBx4='";

const NAME = 'svc-embed/ssr';
// A name the HTML parser reads as one attribute name, and not an event handler: names come from code, but a handler
// would run script in the page.
// Lower case: the parser lowers a name's case, and `colorScheme` would become `colorscheme`, which the element ignores.
const ATTRIBUTE = /^[a-z_][a-z\d_.:-]*$/;

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** An attribute's text as the element reads it, or null when it is absent. */
function text(value: AttributeValue): string | null {
  if (value == null || value === false) return null;
  if (value === true) return '';
  return typeof value == 'object' ? JSON.stringify(value) : String(value);
}

/** ` name="value"` for each attribute present, escaped. */
const attrs = (entries: Array<[string, string | null]>) =>
  entries.map(([name, value]) => (value === null ? '' : value ? ` ${name}="${escape(value)}"` : ` ${name}`)).join('');

function read(input: Record<string, AttributeValue>) {
  if (input === null || typeof input != 'object' || Array.isArray(input))
    throw new TypeError(`${NAME}: renderEmbed(attributes): attributes must be an object of attribute names and values`);
  const entries: Array<[string, string | null]> = [];
  for (const [name, value] of Object.entries(input)) {
    if (!ATTRIBUTE.test(name) || /^on/i.test(name))
      throw new TypeError(
        `${NAME}: renderEmbed(attributes): "${name}" is not an attribute it writes: use attribute names, in lower case (color-scheme, not colorScheme: letters, digits, "-", "_", ".", ":"), and no event handler (on…)`,
      );
    entries.push([name, text(value)]);
  }
  const get = (name: string) => entries.find(([n]) => n === name)?.[1] ?? null;
  return { entries, get };
}

/** The embed URL's origin for these attributes, or undefined when the element would load nothing or refuse it. */
function resolve(get: (name: string) => string | null) {
  const allowExport = get('allow-export');
  const result = resolveEmbedUrl({
    src: get('src'),
    tenantOrigin: get('tenant-origin'),
    publicId: get('public-id'),
    session: get('session'),
    allowExport: allowExport !== null && allowExport !== 'false',
  });
  return result && 'url' in result ? result : undefined;
}

/**
 * `<link rel="preconnect">` to the tenant origin of these attributes, for the page's `<head>`: the connection starts
 * before the body is parsed. Empty when there is nothing to load, or the source would be refused.
 * @throws TypeError as `renderEmbed()` does.
 */
export function renderPreconnect(attributes: Record<string, AttributeValue>): string {
  const result = resolve(read(attributes).get);
  return result ? `<link rel="preconnect" href="${escape(result.origin)}">` : '';
}

/**
 * The HTML of an `<svc-embed>` with these attributes (names as the element's attributes, such as `src`,
 * `color-scheme`, `allow-export`, `style`), and its frame in a declarative shadow root, escaped. Before it, unless
 * `options` leave them out: `<link rel="preconnect">` to the tenant origin and `EARLY_SCRIPT`. A source the element
 * would refuse (insecure, relative, invalid) renders the element alone: no frame, and the element reports why.
 * @throws TypeError when `attributes` is not an object, or a name is not an attribute name or is an event handler.
 */
export function renderEmbed(attributes: Record<string, AttributeValue>, options: RenderOptions = {}): string {
  const { entries, get } = read(attributes);
  const result = resolve(get);
  const nonce = options.nonce ? ` nonce="${escape(options.nonce)}"` : '';
  const loading = get('loading');
  const frameLoading = loading === 'lazy' || loading === 'eager' ? loading : null;
  let head = '';
  let shadow = '';
  if (result) {
    if (options.preconnect ?? frameLoading !== 'lazy')
      head += `<link rel="preconnect" href="${escape(result.origin)}">`;
    if (options.early ?? true) head += `<script${nonce}>${EARLY_SCRIPT}</script>`;
    const path = get('path');
    const frame = attrs([
      ...FRAME,
      ['title', get('title') || TITLE],
      ['src', result.url],
      ['part', 'frame'],
      ['loading', frameLoading],
      // A load that must show a path is covered until it does, from the first paint.
      ['held', path && !pathProblem(path) ? '' : null],
    ]);
    shadow =
      `<template shadowrootmode="open"><iframe${frame}></iframe>` +
      `<div part="loading"><slot name="loading"></slot></div>` +
      `<div part="error" role="alert" hidden><slot name="error"><span></span></slot></div>` +
      `<style${nonce}>${CSS}</style></template>`;
    if (!entries.some(([name]) => name === 'aria-busy')) entries.push(['aria-busy', 'true']);
  }
  return `${head}<svc-embed${attrs(entries)}>${shadow}</svc-embed>`;
}
