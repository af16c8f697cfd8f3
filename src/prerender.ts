/**
 * `svc-embed/prerender`: embeds made ahead of time and shown in the next frame. `prerender()` makes an ordinary
 * `<svc-embed>` and connects it in the document's parking container, off-screen at the size it will be shown, where it
 * loads, handshakes and takes its state. `show()` moves it into a container of the page, with `moveBefore()` where the
 * browser has it (the frame lives on: Chromium), else with `insertBefore()` (the frame reloads, and the element
 * restores its state and the viewer's path at the new ready). `park()` moves it back, still live.
 *
 * The parking container is one per document: `position: fixed` outside the viewport (it never covers the page, and a
 * fixed box never scrolls it), `inert` and `aria-hidden`. Each parked element has a berth in it of the size it was
 * shown at (or the size given to `prerender()`), so its dashboard is laid out as it will be seen. An empty berth, and
 * then an empty container, are removed: an element removed from the page leaves nothing behind.
 *
 * Importing it defines `<svc-embed>` when it is not defined yet, so it works alone. The CDN's prerender bundle does
 * not: load the element's bundle first.
 * @packageDocumentation
 */
import './define.js';

export * from './prerender-core.js';
