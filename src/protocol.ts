/**
 * `svc-embed/protocol`: the embed message protocol and the shared rules, with no DOM. The same module as
 * `@svc-embed/protocol`, which the element, the REST client and the simulated tenant all import.
 * @packageDocumentation
 */
export * from '@svc-embed/protocol';
