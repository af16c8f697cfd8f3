/**
 * `svc-embed/jsx`: types `<svc-embed>` in JSX: React 19 (`React.JSX`), Preact (`preact.JSX`) and the global `JSX`
 * namespace. Opt in with `"types": ["svc-embed/jsx"]` in tsconfig.json, or once with `import type {} from 'svc-embed/jsx'`.
 *
 * Both spellings type-check: `color-scheme="dark"` and `colorScheme="dark"`; handlers are `onsvc-ready={(e) => …}`,
 * the form React 19 and Preact listen to. With React 18, or any server-rendered React, use `@svc-embed/react`.
 * @packageDocumentation
 */
import type { SvcEmbedElement } from './svc-embed.js';
import type { SvcEmbedAttributes, SvcEmbedEventAttributes, SvcEmbedProperties } from './framework-types.js';

/** What `<svc-embed>` takes in JSX besides the common HTML attributes of the JSX library. */
export type SvcEmbedJsxProps = SvcEmbedProperties &
  SvcEmbedAttributes &
  SvcEmbedEventAttributes & {
    /** A ref to the element: a callback or an object with `current`. */
    ref?: ((element: SvcEmbedElement | null) => void | (() => void)) | { current: SvcEmbedElement | null } | null;
  };

// The common HTML attributes are those the library gives a plain element (`abbr`), read from its own
// IntrinsicElements, so this file names no React or Preact type: it compiles whichever of them is installed.
type JsxElement<Intrinsic> = (Intrinsic extends { abbr: infer Common }
  ? Omit<Common, keyof SvcEmbedJsxProps>
  : unknown) &
  SvcEmbedJsxProps;

declare global {
  namespace React.JSX {
    interface IntrinsicElements {
      'svc-embed': JsxElement<React.JSX.IntrinsicElements>;
    }
  }
  namespace preact.JSX {
    interface IntrinsicElements {
      'svc-embed': JsxElement<preact.JSX.IntrinsicElements>;
    }
  }
  namespace JSX {
    interface IntrinsicElements {
      'svc-embed': JsxElement<JSX.IntrinsicElements>;
    }
  }
}
