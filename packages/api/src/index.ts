/**
 * `@svc-embed/api`: a typed client of the service's REST recipients listing (docs/api.md, "Recipients") and SCIM
 * user listing (docs/api.md, "SCIM users"), on the standard `fetch`, with no DOM (undici is
 * loaded only to go through a proxy, docs/api.md, "Proxies and certificates").
 * @packageDocumentation
 */
export { SvcClient, ScimApi } from './client.js';
export { SvcApiError } from './errors.js';
export type { SvcApiErrorCode, SvcApiErrorInit } from './errors.js';
export { MAX_FIRST } from './validate.js';
export type * from './types.js';
