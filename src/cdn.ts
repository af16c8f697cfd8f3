/**
 * The entry of the CDN bundles: defines `<svc-embed>` and exports the element class, what a page without a
 * build step needs. `filterParam` and the rest of the protocol module are in the npm package
 * (`svc-embed/protocol`), and a page without a build step can import them as a module from
 * `https://unpkg.com/@svc-embed/protocol/dist/index.js`.
 * @packageDocumentation
 */
import './define.js';

export { SvcEmbedElement } from './svc-embed.js';
export { SvcEmbedError } from './error.js';
