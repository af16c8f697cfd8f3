// The React page's prerendered embeds (docs/frameworks/react.md and docs/prerender.md), type-checked as written.
import { useState } from 'react';
import { SvcEmbedOutlet, usePrerenderedEmbed } from '@svc-embed/react';

const TENANT = 'http://127.0.0.1:8001/embed/dashboard';

export function App() {
  const [route, setRoute] = useState<'sales' | 'support'>('sales');
  // Above the routes: made once, live across route changes.
  const sales = usePrerenderedEmbed({
    src: `${TENANT}/sales-overview?session=demo-acme`,
    onSvcReady: (e) => console.log('sales ready', e.detail.payload.mode),
  });
  const support = usePrerenderedEmbed({ src: `${TENANT}/support-ops?session=demo-acme` });
  return (
    <>
      <nav>
        <button onClick={() => setRoute('sales')}>Sales</button>
        <button onClick={() => setRoute('support')}>Support</button>
      </nav>
      {route === 'sales' ? (
        <SvcEmbedOutlet embed={sales} style={{ height: 640 }} />
      ) : (
        <SvcEmbedOutlet embed={support} style={{ height: 640 }} />
      )}
    </>
  );
}
