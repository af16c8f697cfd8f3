/**
 * `@svc-embed/angular`: `SvcEmbedDirective`, typed inputs and outputs for `<svc-embed>` in Angular templates.
 * @packageDocumentation
 */
export { SvcEmbedDirective, type SvcEmbedOutputName } from './svc-embed.directive.js';
