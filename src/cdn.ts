/**
 * The entry of the CDN bundles: defines `<svc-embed>` and exports the element class and `filterParam`,
 * what a page without a build step needs. The validators and builders of the protocol are in the npm
 * package (`svc-embed/protocol`).
 * @packageDocumentation
 */
import './define.js';

export { SvcEmbedElement } from './svc-embed.js';
export { filterParam } from './protocol/validate.js';
