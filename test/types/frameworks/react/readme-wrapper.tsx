// The React and Next.js pages' @svc-embed/react snippet (docs/frameworks), type-checked as written.
'use client';
import { SvcEmbed } from '@svc-embed/react';

export function Sales({ src }: { src: string }) {
  return (
    <SvcEmbed
      src={src}
      colorScheme="dark"
      theme={{ primaryColor: '#0f766e' }}
      onSvcReady={(e) => console.log('ready', e.detail.payload.mode)}
      onSvcDownload={(e) => console.log('exported', e.detail.payload.format)}
    />
  );
}
