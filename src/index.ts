/**
 * `svc-embed`: registers `<svc-embed>` on import and exports the element class, its event types and
 * the protocol helpers.
 * @packageDocumentation
 */
import './define.js';

export { SvcEmbedElement } from './svc-embed.js';
export { SvcEmbedError } from './error.js';
export type * from './events.js';
export type * from './framework-types.js';
export type { ConfigErrorReason } from './embed-url.js';
export * from '@svc-embed/protocol';
