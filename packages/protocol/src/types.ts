import type {
  ACTION_TYPES,
  AI_QUERY_STATUSES,
  AUTH_MODES,
  COLOR_SCHEMES,
  DOWNLOAD_FORMATS,
  DOWNLOAD_TARGETS,
  EVENT_TYPES,
  SURFACES,
} from './constants.js';

export type EventType = (typeof EVENT_TYPES)[number];
export type ActionType = (typeof ACTION_TYPES)[number];
export type Surface = (typeof SURFACES)[number];
export type ColorScheme = (typeof COLOR_SCHEMES)[number];
export type AuthMode = (typeof AUTH_MODES)[number];
export type DownloadFormat = (typeof DOWNLOAD_FORMATS)[number];
export type DownloadTarget = (typeof DOWNLOAD_TARGETS)[number];
export type AiQueryStatus = (typeof AI_QUERY_STATUSES)[number];

export interface ReadyPayload {
  embedTenant: string | null;
  deploymentId: number | null;
  mode: AuthMode;
  surface: Surface;
  publicId?: string;
}
export interface ViewPayload {
  surface: Surface;
  path: string;
  publicId?: string;
  title?: string;
}
export interface NavigatePayload {
  path: string;
  previousPath?: string;
}
export interface DashboardLoadedPayload {
  publicId?: string;
  widgetCount?: number;
  loadDurationMs?: number;
}
export interface DownloadPayload {
  format: DownloadFormat;
  target: DownloadTarget;
  widgetId?: string;
  title?: string;
  rowCount?: number;
}
export interface DrilldownPayload {
  member: string;
  value?: unknown;
  widgetId?: string;
}
export interface AiQueryPayload {
  query: string;
  status: AiQueryStatus;
  chatId?: string;
  agentId?: string;
}
export interface ErrorPayload {
  message: string;
  name?: string;
  context?: string;
  fatal?: boolean;
}

/** The payload of each event, by wire type (docs/protocol.md, "Events"). */
export interface EventPayloadMap {
  'svc:event:ready': ReadyPayload;
  'svc:event:view': ViewPayload;
  'svc:event:navigate': NavigatePayload;
  'svc:event:dashboard-loaded': DashboardLoadedPayload;
  'svc:event:download': DownloadPayload;
  'svc:event:drilldown': DrilldownPayload;
  'svc:event:ai-query': AiQueryPayload;
  'svc:event:error': ErrorPayload;
}

/**
 * An embed theme (the session-generation API's `embedTheme`). The spec names the common fields;
 * others pass through as long as they are plain JSON-like data.
 */
export interface EmbedTheme {
  primaryColor?: string;
  borderRadius?: string | number;
  font?: string;
  [field: string]: unknown;
}

/** The payload of each action, by wire type (docs/protocol.md, "Actions"). */
export interface ActionPayloadMap {
  'svc:action:set-color-scheme': { scheme: ColorScheme };
  'svc:action:set-theme': EmbedTheme;
  'svc:action:set-locale': { locale: string };
  'svc:action:set-filter': { filterUrlParameter: string };
  'svc:action:navigate': { path: string };
  'svc:action:refresh': Record<string, never>;
}

/** What an event carries besides `source` and `direction`: the `detail` of the element's DOM events. */
export interface EventDetail<T extends EventType = EventType> {
  /** The wire type, e.g. `svc:event:download`. */
  type: T;
  /** The surface the event relates to. */
  surface: Surface;
  /** When the embed created the message, in epoch milliseconds. */
  timestamp: number;
  /** Only the spec's fields for this type; unknown fields are dropped. */
  payload: EventPayloadMap[T];
}

/** Why an incoming event was refused: the field and the rule, and the type when it is a known one. */
export interface EventRejection {
  /** The field and the rule it broke, e.g. `payload.format: must be one of csv, xlsx, png, pdf`. Never echoes data. */
  reason: string;
  /** The wire type, when it was one of the known event types. */
  type?: EventType;
}

/** Any valid event's detail, discriminated on `type`. */
export type AnyEventDetail = { [T in EventType]: EventDetail<T> }[EventType];

/** An event envelope, embed -> host (docs/protocol.md, "The envelope"): `surface` is always present. */
export interface EventEnvelope<T extends EventType = EventType> {
  source: 'svc-embed';
  direction: 'event';
  type: T;
  payload: EventPayloadMap[T];
  timestamp: number;
  surface: Surface;
}

/** An action envelope, host -> embed (docs/protocol.md, "The envelope"): never a `surface`. */
export interface ActionEnvelope<T extends ActionType = ActionType> {
  source: 'svc-embed';
  direction: 'action';
  type: T;
  payload: ActionPayloadMap[T];
  timestamp: number;
}

/** Any valid event, discriminated on `type`. */
export type AnyEventEnvelope = { [T in EventType]: EventEnvelope<T> }[EventType];
/** Any valid action, discriminated on `type`. */
export type AnyActionEnvelope = { [T in ActionType]: ActionEnvelope<T> }[ActionType];

/** The result of validating an incoming message: the clean message, or why it was refused. */
export type Validated<M extends { type: string }> =
  { ok: true; message: M } | { ok: false; reason: string; type?: M['type'] };
