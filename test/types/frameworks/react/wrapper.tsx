// The @svc-embed/react wrapper (React 18 and 19, server rendering): `onSvcReady`-style handlers, camelCase properties.
import { useRef } from 'react';
import { SvcEmbed, type SvcEmbedProps } from '@svc-embed/react';
import type { DownloadFormat, SvcEmbedElement } from 'svc-embed';

export function Dashboard({ src }: { src: string }) {
  const ref = useRef<SvcEmbedElement>(null);
  return (
    <>
      <SvcEmbed
        ref={ref}
        src={src}
        colorScheme="dark"
        allowExport
        theme={{ primaryColor: '#0f766e' }}
        className="embed"
        style={{ height: 640 }}
        onSvcReady={(e) => {
          const mode: 'signed' | 'private' = e.detail.payload.mode;
          ref.current?.refresh();
          void mode;
        }}
        onSvcDownload={(e) => {
          const format: DownloadFormat = e.detail.payload.format;
          // @ts-expect-error the format is a string
          const n: number = e.detail.payload.format;
          (void format, n);
        }}
        onSvcAiQuery={(e) => void e.detail.payload.query}
        onSvcConfigError={(e) => void e.detail.message}
      />
      <SvcEmbed tenantOrigin="https://acme.example.com" publicId="7f3c9a" session="s" />

      <SvcEmbed
        // @ts-expect-error a theme is an object
        theme={42}
      />
      <SvcEmbed
        // @ts-expect-error allowExport is a boolean
        allowExport="yes"
      />
      <SvcEmbed
        // @ts-expect-error no such event
        onSvcRedy={() => {}}
      />
      <SvcEmbed
        // @ts-expect-error methods are not props
        navigate={() => {}}
      />
      <SvcEmbed
        // @ts-expect-error bare-tag handler names are not the wrapper's
        onsvcReady={() => {}}
      />
    </>
  );
}

// Every event has its handler prop.
const handlers: Required<Pick<SvcEmbedProps, 'onSvcReady' | 'onSvcError' | 'onSvcMessageRejected'>> = {
  onSvcReady: (e) => void e.detail.payload.embedTenant,
  onSvcError: (e) => void e.detail.payload.message,
  onSvcMessageRejected: (e) => void e.detail.reason,
};
void handlers;
