import { SvcEmbedElement } from './svc-embed.js';

// Guarded: a second copy of the bundle on the page, or a server render without a registry, never throws.
if (typeof customElements !== 'undefined' && !customElements.get('svc-embed')) {
  customElements.define('svc-embed', SvcEmbedElement);
}

declare global {
  interface HTMLElementTagNameMap {
    'svc-embed': SvcEmbedElement;
  }
}
