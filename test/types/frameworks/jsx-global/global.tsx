// A JSX library without a namespace of its own: TypeScript reads the global JSX namespace.
import type { DownloadFormat } from 'svc-embed';

declare function h(tag: string, props: object | null, ...children: unknown[]): unknown;

export const embed = (
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
);
// @ts-expect-error a theme is an object
export const wrongTheme = <svc-embed theme={42} />;
// @ts-expect-error allow-export is a boolean
export const wrongBoolean = <svc-embed allow-export="yes" />;
void h;
