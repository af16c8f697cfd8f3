import { Directive, ElementRef, Input, inject, output, type OnChanges, type SimpleChanges } from '@angular/core';
// The element's package: importing it defines <svc-embed>.
import 'svc-embed';
import type { PascalCase, SvcEmbedElement, SvcEmbedEventMap, SvcEmbedPropertyName } from 'svc-embed';

/** `svc-ready` → `svcReady`: the output name of a DOM event (Angular reads dashes in `(a-b)` as one name). */
export type SvcEmbedOutputName<K extends keyof SvcEmbedEventMap> = Uncapitalize<PascalCase<K>>;

/**
 * The DOM event behind every output. The compiler holds it to `SvcEmbedEventMap`: an event missing here, an extra
 * one or a misspelt name is a type error.
 */
const EVENTS = {
  svcReady: 'svc-ready',
  svcView: 'svc-view',
  svcNavigate: 'svc-navigate',
  svcDashboardLoaded: 'svc-dashboard-loaded',
  svcDownload: 'svc-download',
  svcDrilldown: 'svc-drilldown',
  svcAiQuery: 'svc-ai-query',
  svcError: 'svc-error',
  svcMessageRejected: 'svc-message-rejected',
  svcConfigError: 'svc-config-error',
  svcStatus: 'svc-status',
  svcAction: 'svc-action',
  svcSessionRenewalFailed: 'svc-session-renewal-failed',
} as const satisfies { [K in keyof SvcEmbedEventMap as SvcEmbedOutputName<K>]: K };

type Events = typeof EVENTS;

/**
 * `<svc-embed>` in Angular templates, type-checked: an input for every property of the element, typed as the
 * element types it, and an output for every event, emitting the element's typed `CustomEvent`. With
 * `strictTemplates`, `[colorScheme]="'purple'"`, `[theme]="42"` and a misspelt input are compile errors.
 *
 * Import it instead of adding `CUSTOM_ELEMENTS_SCHEMA`; importing it also defines the element.
 */
@Directive({ selector: 'svc-embed' })
export class SvcEmbedDirective implements OnChanges {
  // The types are the element's own (indexed access), so a change to the element reaches the template checker.
  /** The element's `src`: the full embed URL. */
  @Input() src?: SvcEmbedElement['src'];
  /** The element's `tenantOrigin`: a bare origin, used with `publicId`. */
  @Input() tenantOrigin?: SvcEmbedElement['tenantOrigin'];
  /** The element's `publicId`: the dashboard's public id. */
  @Input() publicId?: SvcEmbedElement['publicId'];
  /** The element's `session`: the session id from the session-generation API. */
  @Input() session?: SvcEmbedElement['session'];
  /** The element's `allowExport`: shows the CSV download control. */
  @Input() allowExport?: SvcEmbedElement['allowExport'];
  /** The element's `colorScheme`. */
  @Input() colorScheme?: SvcEmbedElement['colorScheme'];
  /** The element's `locale`: a BCP 47 language tag. */
  @Input() locale?: SvcEmbedElement['locale'];
  /** The element's `filter`: build it with `filterParam()`. */
  @Input() filter?: SvcEmbedElement['filter'];
  /** The element's `path`: the in-embed path the embed opens at; a change after ready navigates. */
  @Input() path?: SvcEmbedElement['path'];
  /** The element's `theme`: assign a new object to apply a change. */
  @Input() theme?: SvcEmbedElement['theme'];
  /** The element's `title`: the accessible name of the iframe. */
  @Input() title?: SvcEmbedElement['title'];
  /** The element's `readyTimeout`, in milliseconds. */
  @Input() readyTimeout?: SvcEmbedElement['readyTimeout'];
  /** The element's `loading`, passed to the iframe. */
  @Input() loading?: SvcEmbedElement['loading'];
  /** The element's `debug`: logs with `console.debug`. */
  @Input() debug?: SvcEmbedElement['debug'];
  /** The element's `sessionProvider`: returns a fresh session id from your backend. */
  @Input() sessionProvider?: SvcEmbedElement['sessionProvider'];
  /** The element's `sessionExpiresAt`: when the host's session expires. */
  @Input() sessionExpiresAt?: SvcEmbedElement['sessionExpiresAt'];
  /** The element's `sessionExpiresIn`: when the host's session expires, in seconds from when it was given. */
  @Input() sessionExpiresIn?: SvcEmbedElement['sessionExpiresIn'];

  /** `svc-ready`. */
  readonly svcReady = output<SvcEmbedEventMap[Events['svcReady']]>();
  /** `svc-view`. */
  readonly svcView = output<SvcEmbedEventMap[Events['svcView']]>();
  /** `svc-navigate`. */
  readonly svcNavigate = output<SvcEmbedEventMap[Events['svcNavigate']]>();
  /** `svc-dashboard-loaded`. */
  readonly svcDashboardLoaded = output<SvcEmbedEventMap[Events['svcDashboardLoaded']]>();
  /** `svc-download`. */
  readonly svcDownload = output<SvcEmbedEventMap[Events['svcDownload']]>();
  /** `svc-drilldown`. */
  readonly svcDrilldown = output<SvcEmbedEventMap[Events['svcDrilldown']]>();
  /** `svc-ai-query`. */
  readonly svcAiQuery = output<SvcEmbedEventMap[Events['svcAiQuery']]>();
  /** `svc-error`. */
  readonly svcError = output<SvcEmbedEventMap[Events['svcError']]>();
  /** `svc-message-rejected`. */
  readonly svcMessageRejected = output<SvcEmbedEventMap[Events['svcMessageRejected']]>();
  /** `svc-config-error`. */
  readonly svcConfigError = output<SvcEmbedEventMap[Events['svcConfigError']]>();
  /** `svc-status`. */
  readonly svcStatus = output<SvcEmbedEventMap[Events['svcStatus']]>();
  /** `svc-action`. */
  readonly svcAction = output<SvcEmbedEventMap[Events['svcAction']]>();
  readonly svcSessionRenewalFailed = output<SvcEmbedEventMap[Events['svcSessionRenewalFailed']]>();

  readonly #element: SvcEmbedElement = inject<ElementRef<SvcEmbedElement>>(ElementRef).nativeElement;

  constructor() {
    for (const [name, type] of Object.entries(EVENTS) as [keyof Events, Events[keyof Events]][]) {
      // Each output re-emits the element's own event object, so `$event` is the typed CustomEvent.
      this.#element.addEventListener(type, (event) => this[name].emit(event as never));
    }
  }

  /** Sets every bound input on the element as a property (Angular has bound it to this directive instead). */
  ngOnChanges(changes: SimpleChanges): void {
    for (const [name, change] of Object.entries(changes)) {
      (this.#element as unknown as Record<string, unknown>)[name] = change.currentValue;
    }
  }
}

// A property of the element with no input above is a compile error here that names it.
const everyProperty: Record<Exclude<SvcEmbedPropertyName, keyof SvcEmbedDirective>, never> = {};
// An event with no output above, likewise.
const everyEvent: Record<Exclude<keyof Events, keyof SvcEmbedDirective>, never> = {};
void everyProperty;
void everyEvent;
