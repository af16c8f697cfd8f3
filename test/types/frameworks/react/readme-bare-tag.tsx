// The README's React 19 snippet (the bare tag), type-checked as written.
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
