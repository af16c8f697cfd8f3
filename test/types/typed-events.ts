// Compiled by `tsc --noEmit` in test/node/package.test.mjs: consumers get typed details without casts.
import type { ColorScheme, DownloadFormat, SvcEmbedElement } from '../../src/index.js';

declare const el: SvcEmbedElement;

el.addEventListener('svc-download', (e) => {
  const format: DownloadFormat = e.detail.payload.format;
  const rows: number | undefined = e.detail.payload.rowCount;
  const wire: 'svc:event:download' = e.detail.type;
  void [format, rows, wire];
  // @ts-expect-error a download payload has no `query`
  void e.detail.payload.query;
});

el.addEventListener('svc-ready', (e) => {
  const mode: 'signed' | 'private' = e.detail.payload.mode;
  const tenant: string | null = e.detail.payload.embedTenant;
  void [mode, tenant];
});

el.addEventListener('svc-message-rejected', (e) => void e.detail.reason.toUpperCase());
el.addEventListener('svc-config-error', (e) => {
  const reason:
    | 'relative-url'
    | 'invalid-url'
    | 'unsupported-protocol'
    | 'insecure-protocol'
    | 'credentials-in-url'
    | 'opaque-origin'
    | 'invalid-tenant-origin'
    | 'invalid-public-id'
    | 'invalid-session' = e.detail.reason;
  void reason;
});

document.addEventListener('svc-ai-query', (e) => void e.detail.payload.status);

const fromTagMap: SvcEmbedElement = document.createElement('svc-embed');
fromTagMap.colorScheme = 'dark';
fromTagMap.theme = { primaryColor: '#000', borderRadius: 4 };
fromTagMap.navigate('/x');
// @ts-expect-error navigate takes a string path
fromTagMap.navigate(42);

// The element's color schemes are exactly the protocol's, in both directions: no hand-kept copy can drift.
type Scheme = NonNullable<SvcEmbedElement['colorScheme']>;
const schemes: [Scheme, ColorScheme] = ['auto', 'light'];
const same: [ColorScheme extends Scheme ? true : false, Scheme extends ColorScheme ? true : false] = [true, true];
void [schemes, same];
// @ts-expect-error a color scheme is light, dark or auto
fromTagMap.colorScheme = 'purple';
