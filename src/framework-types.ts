/**
 * The types behind the framework entries (`svc-embed/jsx`, `svc-embed/vue`, `svc-embed/svelte`,
 * `@svc-embed/react`). Every one is derived from the element class and from `SvcEmbedEventMap`, so a new
 * property or event reaches every framework with no edit here.
 * @packageDocumentation
 */
import type { SvcEmbedElement } from './svc-embed.js';
import type { SvcEmbedEventMap } from './events.js';

/** `colorScheme` → `color-scheme`: the attribute spelling of a camelCase property name. */
export type KebabCase<S extends string> = S extends `${infer Head}${infer Rest}`
  ? `${Head extends Lowercase<Head> ? Head : `-${Lowercase<Head>}`}${KebabCase<Rest>}`
  : S;

/** `svc-ai-query` → `SvcAiQuery`: the name Vue and the React wrapper put after `on`. */
export type PascalCase<S extends string> = S extends `${infer Head}-${infer Rest}`
  ? `${Capitalize<Head>}${PascalCase<Rest>}`
  : Capitalize<S>;

/** The name of every reactive property of `<svc-embed>`: the keys of its `static properties`. */
export type SvcEmbedPropertyName = keyof typeof SvcEmbedElement.properties & keyof SvcEmbedElement;

/** Every reactive property, camelCase, typed as the element types it. */
export type SvcEmbedProperties = { [K in SvcEmbedPropertyName]?: SvcEmbedElement[K] };

/**
 * The kebab-case attribute spelling (`color-scheme`, `allow-export`, `public-id`) of every reactive property
 * whose value fits an attribute and whose name has a capital; the others are spelt the same either way.
 */
export type SvcEmbedAttributes = {
  [
    K in SvcEmbedPropertyName as K extends KebabCase<K>
      ? never
      : NonNullable<SvcEmbedElement[K]> extends string | number | boolean
        ? KebabCase<K>
        : never
  ]?: SvcEmbedElement[K];
};

/** A typed listener for one event of `SvcEmbedEventMap`. */
export type SvcEmbedListener<K extends keyof SvcEmbedEventMap> = (event: SvcEmbedEventMap[K]) => void;

/** `onSvcReady`-style handlers, one per event: the React wrapper's props, and what vue-tsc derives from `@svc-ready`. */
export type SvcEmbedHandlerProps = {
  [K in keyof SvcEmbedEventMap as `on${PascalCase<K>}`]?: SvcEmbedListener<K>;
};

/** `onsvc-ready`-style handlers, one per event: React 19, Preact and Svelte 5 listen to `on` + the DOM name. */
export type SvcEmbedEventAttributes = {
  [K in keyof SvcEmbedEventMap as `on${K}`]?: SvcEmbedListener<K>;
};
