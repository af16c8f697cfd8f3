/** The `source` of every message of the protocol, in either direction (docs/protocol.md, "The envelope"). */
export const SOURCE = 'svc-embed';

/** The wire names of the events the embed sends to its host (docs/protocol.md, "Events"). */
export const EVENT_TYPES = [
  'svc:event:ready',
  'svc:event:view',
  'svc:event:navigate',
  'svc:event:dashboard-loaded',
  'svc:event:download',
  'svc:event:drilldown',
  'svc:event:ai-query',
  'svc:event:error',
] as const;

/** The wire names of the actions the host sends into the embed (docs/protocol.md, "Actions"). */
export const ACTION_TYPES = [
  'svc:action:set-color-scheme',
  'svc:action:set-theme',
  'svc:action:set-locale',
  'svc:action:set-filter',
  'svc:action:navigate',
  'svc:action:refresh',
] as const;

export const SURFACES = ['dashboard', 'app', 'chat'] as const;
export const COLOR_SCHEMES = ['light', 'dark', 'auto'] as const;
export const AUTH_MODES = ['signed', 'private'] as const;
export const DOWNLOAD_FORMATS = ['csv', 'xlsx', 'png', 'pdf'] as const;
export const DOWNLOAD_TARGETS = ['widget', 'dashboard'] as const;
export const AI_QUERY_STATUSES = ['submitted', 'completed', 'error'] as const;

/** `svc:event:ready` -> `svc-ready`: the DOM event name the element dispatches for a wire event. */
export const domEventName = <T extends (typeof EVENT_TYPES)[number]>(type: T) =>
  `svc-${type.slice(10)}` as T extends `svc:event:${infer N}` ? `svc-${N}` : never;
