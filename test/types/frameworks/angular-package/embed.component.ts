import { Component } from '@angular/core';
import { SvcEmbedDirective } from '@svc-embed/angular';
import type { DownloadFormat, EmbedTheme, SvcEventDetail } from 'svc-embed';

@Component({
  selector: 'app-embed',
  templateUrl: './embed.component.html',
  imports: [SvcEmbedDirective],
})
export class EmbedComponent {
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
