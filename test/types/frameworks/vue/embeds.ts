// The Vue page's prerendered embeds (docs/frameworks/vue.md), type-checked as written.
import 'svc-embed';
import { prerender } from 'svc-embed/prerender';

// Made once, when the app starts: they load while the viewer is elsewhere.
export const sales = prerender(
  { src: 'http://127.0.0.1:8001/embed/dashboard/sales-overview?session=demo-acme', colorScheme: 'dark' },
  { width: 1200, height: 640 },
);
export const support = prerender(
  { src: 'http://127.0.0.1:8001/embed/dashboard/support-ops?session=demo-acme', colorScheme: 'dark' },
  { width: 1200, height: 640 },
);
