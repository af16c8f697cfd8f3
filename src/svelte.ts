/**
 * `svc-embed/svelte`: types `<svc-embed>` for svelte-check. Opt in with `/// <reference types="svc-embed/svelte" />`
 * in `src/app.d.ts`.
 *
 * Both spellings type-check (`color-scheme="dark"`, `colorScheme={scheme}`); handlers are Svelte 5's
 * `onsvc-ready={(e) => …}`, and Svelte 4's `on:svc-ready`.
 * @packageDocumentation
 */
import type { HTMLAttributes } from 'svelte/elements';
import type { SvcEmbedElement } from './svc-embed.js';
import type { SvcEmbedEventMap } from './events.js';
import type {
  SvcEmbedAttributes,
  SvcEmbedEventAttributes,
  SvcEmbedListener,
  SvcEmbedProperties,
} from './framework-types.js';

/** Svelte 4's `on:svc-ready` directives. */
type SvelteDirectives = { [K in keyof SvcEmbedEventMap as `on:${K}`]?: SvcEmbedListener<K> };

/**
 * What `<svc-embed>` takes in Svelte markup. Svelte sets an attribute it cannot match to a property to the text of its
 * value: `allow-export={false}` writes `allow-export="false"`, which the element reads as false.
 */
export type SvcEmbedSvelteProps = SvcEmbedProperties & SvcEmbedAttributes & SvcEmbedEventAttributes & SvelteDirectives;

/** `<svc-embed>` in Svelte markup: Svelte's HTML attributes, the element's properties and handlers. */
export type SvcEmbedSvelteElement = Omit<HTMLAttributes<SvcEmbedElement>, keyof SvcEmbedSvelteProps> &
  SvcEmbedSvelteProps;

declare module 'svelte/elements' {
  interface SvelteHTMLElements {
    'svc-embed': SvcEmbedSvelteElement;
  }
}
