/**
 * `@svc-embed/protocol` (also `svc-embed/protocol`): the embed message protocol (docs/protocol.md) with no DOM and
 * no dependencies. Wire names, types, validators for both directions and action/event builders, and the rules every
 * svc-embed package shares (loopback hosts, unsafe characters, public ids, sessions, SCIM URNs, allowed host
 * origins). The `<svc-embed>`
 * element, the REST client and the simulated tenant all stand on it.
 * @packageDocumentation
 */
export * from './constants.js';
export type * from './types.js';
export * from './validate.js';
export * from './rules.js';
export * from './origins.js';
