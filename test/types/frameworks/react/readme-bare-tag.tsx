// The React page's React 19 snippet (docs/frameworks/react.md, the bare tag), type-checked as written.
import 'svc-embed';

export function Sales({ src }: { src: string }) {
  return (
    <svc-embed
      src={src}
      color-scheme="dark"
      theme={{ primaryColor: '#0f766e' }}
      onsvc-ready={(e) => console.log('ready', e.detail.payload.mode)}
      onsvc-download={(e) => console.log('exported', e.detail.payload.format)}
    />
  );
}

// The React page's usage line, as written.
// prettier-ignore
export const usage = (
<Sales src="http://127.0.0.1:8001/embed/dashboard/sales-overview?session=demo-acme" />
);
