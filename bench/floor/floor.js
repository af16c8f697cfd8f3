// The size floor: what any element built on @lit/reactive-element ships at least. The base class, `css`,
// and one trivial element with a style and a reactive property, bundled and minified like
// cdn/svc-embed.min.js (rollup, node-resolve, terser).
import { ReactiveElement, css } from '@lit/reactive-element';

class TrivialElement extends ReactiveElement {
  static styles = css`:host{display:block}`;
  static properties = { src: {} };
}

if (!customElements.get('trivial-element')) customElements.define('trivial-element', TrivialElement);
