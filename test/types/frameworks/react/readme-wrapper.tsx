// The React and Next.js pages' @svc-embed/react snippet (docs/frameworks), type-checked as written.
'use client';
import { SvcEmbed } from '@svc-embed/react';
import type { SvcSessionProvider } from 'svc-embed';

export function Sales({ src, sessionProvider }: { src: string; sessionProvider?: SvcSessionProvider }) {
  return (
    <SvcEmbed
      src={src}
      sessionProvider={sessionProvider}
      colorScheme="dark"
      theme={{ primaryColor: '#0f766e' }}
      onSvcReady={(e) => console.log('ready', e.detail.payload.mode)}
      onSvcDownload={(e) => console.log('exported', e.detail.payload.format)}
    />
  );
}
