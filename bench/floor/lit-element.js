// The mount/unmount floor of any element built on @lit/reactive-element: a shadow root with a style, an
// iframe made with <svc-embed>'s attributes in the first update, and a window `message` listener while
// connected. Nothing else: no overlays, no status, no timer. The lifecycle suite bundles and minifies it
// like cdn/svc-embed.min.js and serves it to the host page as /lit-floor.js.
import { ReactiveElement, css } from '@lit/reactive-element';
import { elementLikeFrame } from '../pages/embed-frame.js';

class LitFloorElement extends ReactiveElement {
  static styles = css`:host{display:block;position:relative;height:600px}iframe{display:block;width:100%;height:100%;border:0}`;
  static properties = { src: {} };
  #frame;
  #view;
  #onMessage = () => {};

  connectedCallback() {
    super.connectedCallback();
    (this.#view = this.ownerDocument.defaultView).addEventListener('message', this.#onMessage);
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#view.removeEventListener('message', this.#onMessage);
  }

  update(changed) {
    super.update(changed);
    if (this.#frame || !this.src) return;
    this.#frame = elementLikeFrame(this.ownerDocument, this.src);
    this.renderRoot.prepend(this.#frame);
  }
}

if (!customElements.get('bench-lit-floor')) customElements.define('bench-lit-floor', LitFloorElement);
