// What the framework tests (react, preact, vue, svelte) check alike: each framework renders <svc-embed> with the
// same theme and the dark color scheme, and must hand both to the element so that the peer receives them.
import { expect } from '@open-wc/testing';
import { frameOf, peerReport, windowOf } from './helpers.js';
import type { SvcEmbedElement, SvcEmbedEventMap } from '../../src/index.js';

/** The theme every framework page sets: an object, so it can only arrive as a property. */
export const theme = { primaryColor: '#0f766e', borderRadius: 8 };

/** An svc-ready handler to give the framework, and the first event it receives. */
export function readyHandler() {
  let onReady!: (e: SvcEmbedEventMap['svc-ready']) => void;
  const event = new Promise<SvcEmbedEventMap['svc-ready']>((resolve) => (onReady = resolve));
  return { onReady, event };
}

/** A new container at the end of the page. */
export function container(): HTMLElement {
  return document.body.appendChild(document.createElement('div'));
}

/**
 * The element got the theme as a property and allow-export as bound, and at ready the peer received exactly the
 * theme and the color scheme. A client render writes no theme attribute; a server render may have (`themeAttribute`).
 */
export async function expectDelivered(
  el: SvcEmbedElement,
  allowExport: boolean,
  themeAttribute: string | null = null,
): Promise<void> {
  expect(el.theme).to.deep.equal(theme);
  expect(el.getAttribute('theme')).to.equal(themeAttribute);
  expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal(allowExport ? 'true' : null);
  const sent = (await peerReport(windowOf(el))).map((r) => [r.data.type, r.data.payload]);
  expect(sent).to.deep.equal([
    ['svc:action:set-theme', theme],
    ['svc:action:set-color-scheme', { scheme: 'dark' }],
  ]);
}
