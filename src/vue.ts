/**
 * `svc-embed/vue`: types `<svc-embed>` in Vue templates for vue-tsc. Opt in with `"types": ["svc-embed/vue"]`
 * in tsconfig.json (and tell the compiler it is a custom element: `isCustomElement: (tag) => tag === 'svc-embed'`).
 *
 * Both spellings type-check: vue-tsc reads `color-scheme="dark"` as `colorScheme`, as Vue does. `@svc-ready="(e) => …"`
 * gets the event's type through the `onSvcReady` prop that vue-tsc derives from it.
 * @packageDocumentation
 */
import type { DefineComponent } from 'vue';
import type { SvcEmbedHandlerProps, SvcEmbedProperties } from './framework-types.js';

/** The props of `<svc-embed>` in a Vue template, `onSvcReady`-style handlers included. */
export type SvcEmbedVueProps = SvcEmbedProperties & SvcEmbedHandlerProps;

/** `<svc-embed>` as vue-tsc sees it: a component with these props. */
export type SvcEmbedVueComponent = DefineComponent<SvcEmbedVueProps>;

declare module 'vue' {
  interface GlobalComponents {
    'svc-embed': SvcEmbedVueComponent;
  }
}
