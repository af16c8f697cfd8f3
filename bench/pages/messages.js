// The traffic of the message suites: six valid events of different types, sent round-robin, and the
// DOM event name each becomes. Shared by the embed (which posts them) and the host (synthetic events).
const envelope = (type, payload) => ({
  source: 'svc-embed',
  direction: 'event',
  type,
  payload,
  timestamp: 1767225600000,
  surface: 'dashboard',
});

export const READY = envelope('svc:event:ready', {
  embedTenant: 'acme',
  deploymentId: 1,
  mode: 'signed',
  surface: 'dashboard',
  publicId: 'sales-overview',
});

export const MESSAGES = [
  envelope('svc:event:navigate', {
    path: '/dashboard/sales-overview?tab=2',
    previousPath: '/dashboard/sales-overview',
  }),
  envelope('svc:event:view', {
    surface: 'dashboard',
    path: '/dashboard/sales-overview',
    publicId: 'sales-overview',
    title: 'Sales overview',
  }),
  envelope('svc:event:dashboard-loaded', { publicId: 'sales-overview', widgetCount: 12, loadDurationMs: 843.5 }),
  envelope('svc:event:download', {
    format: 'csv',
    target: 'widget',
    widgetId: 'w-42',
    title: 'Revenue by region',
    rowCount: 1200,
  }),
  envelope('svc:event:drilldown', { member: 'orders.status', value: 'shipped', widgetId: 'w-7' }),
  envelope('svc:event:ai-query', {
    query: 'revenue by region last quarter',
    status: 'completed',
    chatId: 'c-1',
    agentId: 'a-1',
  }),
];

/** `svc:event:ready` → `svc-ready`, for every type above. */
export const NAMES = Object.fromEntries([READY, ...MESSAGES].map(({ type }) => [type, `svc-${type.slice(10)}`]));
