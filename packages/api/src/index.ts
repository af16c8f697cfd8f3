/**
 * `@svc-embed/api`: a typed client of the service's REST recipients listing (spec 4.1) and SCIM user
 * listing (spec 4.2), on the standard `fetch` with zero runtime dependencies and no DOM.
 * @packageDocumentation
 */
export { SvcClient, ScimApi } from './client.js';
export { SvcApiError } from './errors.js';
export type { SvcApiErrorCode, SvcApiErrorInit } from './errors.js';
export { MAX_FIRST } from './validate.js';
export type * from './types.js';
