/** @jsxImportSource preact */
// Preact reads `preact.JSX`: the same props and `onsvc-*` handlers as React 19.
import type { DownloadFormat } from 'svc-embed';

export const embed = (
  <div>
    <svc-embed
      src="https://acme.example.com/embed/dashboard/7f3c9a"
      color-scheme="dark"
      allowExport
      theme={{ primaryColor: '#0f766e' }}
      onsvc-download={(e) => {
        const format: DownloadFormat = e.detail.payload.format;
        // @ts-expect-error the format is a string
        const n: number = e.detail.payload.format;
        (void format, n);
      }}
    />
    <svc-embed
      // @ts-expect-error a theme is an object
      theme={42}
    />
    {/* @ts-expect-error allow-export is a boolean (reported on the tag: the name has a hyphen) */}
    <svc-embed allow-export="yes" />
  </div>
);
