// What the Angular fixtures' templates bind to: the same host state with and without @svc-embed/angular.
import type { DownloadFormat, EmbedTheme, SvcEventDetail } from 'svc-embed';

export class EmbedHost {
  src = 'https://acme.example.com/embed/dashboard/7f3c9a';
  theme: EmbedTheme = { primaryColor: '#0f766e' };
  format?: DownloadFormat;
  count = 0;

  onReady(detail: SvcEventDetail<'svc:event:ready'>) {
    void detail.payload.mode;
  }
  onDownload(format: DownloadFormat) {
    this.format = format;
  }
  takesNumber(n: number) {
    this.count = n;
  }
  renew = async () => 'SESSION_ID';
}
