'use client';
/**
 * `@svc-embed/react`: `<SvcEmbed>`, a React component for `<svc-embed>` (React 18 and 19), built with `@lit/react`.
 * It sets every property as a property and listens with `onSvcReady`-style props, also after server rendering
 * and hydration, where React leaves a bare custom element's properties and listeners unset.
 * `usePrerenderedEmbed()` and `<SvcEmbedOutlet>` show embeds prerendered with `svc-embed/prerender`.
 * @packageDocumentation
 */
import * as React from 'react';
import { createComponent, type EventName } from '@lit/react';
// The element's package: importing it defines <svc-embed>.
import { SvcEmbedElement } from 'svc-embed';
import type { PascalCase, SvcEmbedEventMap, SvcEmbedHandlerProps, SvcEmbedProperties } from 'svc-embed';
import { park, prerender, show, type PrerenderSize } from 'svc-embed/prerender';

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

/** A layout effect in the browser; nothing on the server, where effects do not run (and React 18 would warn). */
const useLayoutEffect = typeof document === 'undefined' ? () => {} : React.useLayoutEffect;

/** The props of `usePrerenderedEmbed()`: every property of the element, a handler per event, and the parked size. */
export type PrerenderedEmbedProps = SvcEmbedProperties &
  SvcEmbedHandlerProps & {
    /** The size it is laid out at while parked before it is first shown (see `prerender()`). */
    size?: PrerenderSize;
  };

const isHandler = (key: string): key is keyof typeof EVENTS => Object.hasOwn(EVENTS, key);

/**
 * A prerendered `<svc-embed>` owned by the calling component: made once, outside render, with `svc-embed/prerender`,
 * parked and loading until an `<SvcEmbedOutlet>` shows it. Its properties follow `props` at every render (an unchanged
 * value is a no-op for the element), and its handlers are the latest ones. Removed, with everything it holds, when
 * the component unmounts. Returns the element, or `null` during server rendering and before the first layout effect.
 * Keep it above your routes, so that it lives across them, and render an outlet in each route.
 */
export function usePrerenderedEmbed(props: PrerenderedEmbedProps): SvcEmbedElement | null {
  const [element, setElement] = React.useState<SvcEmbedElement | null>(null);
  const latest = React.useRef(props);
  const assigned = React.useRef(new Set<string>());
  // Every render: the latest props, for the handlers and for the assignment below.
  useLayoutEffect(() => {
    latest.current = props;
  });
  // Once: the element, made with the props of its first render. StrictMode's second mount makes another and the
  // cleanup removes the first, so one element per hook remains.
  useLayoutEffect(() => {
    const { size, ...rest } = latest.current;
    const properties = Object.fromEntries(Object.entries(rest).filter(([key]) => !isHandler(key)));
    const el = prerender(properties, size);
    assigned.current = new Set(Object.keys(properties));
    for (const [prop, name] of Object.entries(EVENTS) as Array<[keyof typeof EVENTS, string]>)
      el.addEventListener(name, (event) => (latest.current[prop] as ((e: Event) => void) | undefined)?.(event));
    setElement(el);
    return () => {
      el.remove();
      setElement(null);
    };
  }, []);
  // Every render: the properties in step with props; one taken away goes back to undefined.
  useLayoutEffect(() => {
    if (!element) return;
    const given = new Set<string>();
    for (const [key, value] of Object.entries(props)) {
      if (key === 'size' || isHandler(key)) continue;
      given.add(key);
      (element as unknown as Record<string, unknown>)[key] = value;
    }
    for (const key of assigned.current)
      if (!given.has(key)) (element as unknown as Record<string, unknown>)[key] = undefined;
    assigned.current = given;
  });
  return element;
}

/** The props of `<SvcEmbedOutlet>`. */
export interface SvcEmbedOutletProps {
  /** The element from `usePrerenderedEmbed()` (`null` shows nothing). */
  embed: SvcEmbedElement | null;
  className?: string;
  style?: React.CSSProperties;
}

/**
 * Shows a prerendered embed while mounted: a `<div>` (with `className` and `style`) that the element is moved into,
 * with `moveBefore()` where the browser keeps the frame. Unmounted, it parks the element again, before React removes
 * the `<div>`: the frame lives on where the browser can keep it.
 */
export function SvcEmbedOutlet({ embed, className, style }: SvcEmbedOutletProps): React.ReactElement {
  const box = React.useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const container = box.current;
    if (!embed || !container) return;
    show(embed, container);
    // A layout effect's cleanup runs before React takes the <div> out of the document.
    return () => {
      if (embed.parentNode === container) park(embed);
    };
  }, [embed]);
  return React.createElement('div', { ref: box, className, style });
}
