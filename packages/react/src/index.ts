'use client';
/**
 * `@svc-embed/react`: `<SvcEmbed>`, a React component for `<svc-embed>` (React 18 and 19), built with `@lit/react`.
 * It sets every property as a property and listens with `onSvcReady`-style props, also after server rendering
 * and hydration, where React leaves a bare custom element's properties and listeners unset.
 * @packageDocumentation
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
// The element's package: importing it defines <svc-embed>.
import { SvcEmbedElement } from 'svc-embed';
import type { PascalCase, SvcEmbedEventMap, SvcEmbedHandlerProps, SvcEmbedProperties } from 'svc-embed';

/**
 * The handler prop of every event. The compiler holds it to `SvcEmbedEventMap`: an event missing here, an
 * extra one or a misspelt name is a type error.
 */
const EVENTS = {
  onSvcReady: 'svc-ready',
  onSvcView: 'svc-view',
  onSvcNavigate: 'svc-navigate',
  onSvcDashboardLoaded: 'svc-dashboard-loaded',
  onSvcDownload: 'svc-download',
  onSvcDrilldown: 'svc-drilldown',
  onSvcAiQuery: 'svc-ai-query',
  onSvcError: 'svc-error',
  onSvcMessageRejected: 'svc-message-rejected',
  onSvcConfigError: 'svc-config-error',
  onSvcStatus: 'svc-status',
  onSvcAction: 'svc-action',
  onSvcSessionRenewalFailed: 'svc-session-renewal-failed',
} as const satisfies { [K in keyof SvcEmbedEventMap as `on${PascalCase<K>}`]: K };

/** The props of `<SvcEmbed>`: the HTML attributes React knows, every property of the element, and a handler per event. */
export type SvcEmbedProps = Omit<
  React.HTMLAttributes<SvcEmbedElement>,
  keyof SvcEmbedProperties | keyof SvcEmbedHandlerProps
> &
  SvcEmbedProperties &
  SvcEmbedHandlerProps &
  React.RefAttributes<SvcEmbedElement>;

// Reading observedAttributes finalizes the class, so @lit/react finds its properties on the prototype even when
// another copy of the element (the CDN bundle, say) was registered first.
void SvcEmbedElement.observedAttributes;

/** `<svc-embed>` as a React component. */
export const SvcEmbed: React.ForwardRefExoticComponent<SvcEmbedProps> = createComponent({
  react: React,
  tagName: 'svc-embed',
  elementClass: SvcEmbedElement,
  events: EVENTS as { [P in keyof typeof EVENTS]: EventName<SvcEmbedEventMap[(typeof EVENTS)[P]]> },
  displayName: 'SvcEmbed',
});
