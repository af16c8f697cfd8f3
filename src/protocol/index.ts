/**
 * `svc-embed/protocol`: the embed message protocol (spec 2.4, 4.3, 6) with no DOM. Wire names,
 * types, validators for both directions and action/event builders. The `<svc-embed>` element and the
 * simulated tenant both stand on it.
 * @packageDocumentation
 */
export * from './constants.js';
export type * from './types.js';
export * from './validate.js';
