// React 19 renders <svc-embed> itself: properties as properties, `onsvc-*` as listeners. Typed by svc-embed/jsx.
import { useRef } from 'react';
import type { DownloadFormat, SvcEmbedElement } from 'svc-embed';

export function Dashboard({ session }: { session: string }) {
  const ref = useRef<SvcEmbedElement>(null);
  return (
    <>
      <svc-embed
        ref={ref}
        src={`https://acme.example.com/embed/dashboard/7f3c9a?session=${session}`}
        color-scheme="dark"
        allow-export
        locale="de-DE"
        theme={{ primaryColor: '#0f766e', borderRadius: 8 }}
        title="Sales"
        className="embed"
        style={{ height: 640 }}
        onsvc-ready={(e) => {
          const mode: 'signed' | 'private' = e.detail.payload.mode;
          ref.current?.navigate('/dashboards/sales');
          void mode;
        }}
        onsvc-download={(e) => {
          const format: DownloadFormat = e.detail.payload.format;
          // @ts-expect-error the format is a string
          const n: number = e.detail.payload.format;
          (void format, n);
        }}
        onsvc-config-error={(e) => void e.detail.reason.toUpperCase()}
        onsvc-message-rejected={(e) => void e.detail.reason}
      />
      <svc-embed
        tenant-origin="https://acme.example.com"
        public-id="7f3c9a"
        session={session}
        colorScheme="light"
        allowExport={false}
      />
      <svc-embed tenantOrigin="https://acme.example.com" publicId="7f3c9a" />

      {/* Wrong prop types */}
      <svc-embed
        // @ts-expect-error a theme is an object
        theme={42}
      />
      {/* @ts-expect-error allow-export is a boolean (reported on the tag: the name has a hyphen) */}
      <svc-embed allow-export="yes" />
      <svc-embed
        // @ts-expect-error allowExport is a boolean
        allowExport="true"
      />
      {/* @ts-expect-error a handler takes the event's own type */}
      <svc-embed onsvc-download={(e: CustomEvent<number>) => void e} />
      <svc-embed
        // @ts-expect-error a color scheme is light, dark or auto
        colorScheme="purple"
      />
      {/* @ts-expect-error color-scheme is light, dark or auto (reported on the tag: the name has a hyphen) */}
      <svc-embed color-scheme="purple" />

      {/* Unknown props: TypeScript checks names without a hyphen */}
      <svc-embed
        // @ts-expect-error no such property
        colorSchem="dark"
      />
      <svc-embed
        // @ts-expect-error the wrapper's handler names are not the bare tag's
        onSvcReady={() => {}}
      />
    </>
  );
}
