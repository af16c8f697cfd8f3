// The Angular page's snippet (docs/frameworks/angular.md), type-checked as written.
import { Component } from '@angular/core';
import { SvcEmbedDirective } from '@svc-embed/angular';
import type { DownloadFormat, EmbedTheme } from 'svc-embed';

@Component({
  selector: 'app-sales',
  imports: [SvcEmbedDirective],
  template: `
    <svc-embed [src]="src" colorScheme="dark" [theme]="theme"
      (svcReady)="mode = $event.detail.payload.mode"
      (svcDownload)="format = $event.detail.payload.format"></svc-embed>
  `,
})
export class SalesComponent {
  src = 'https://acme.example.com/embed/dashboard/7f3c9a?session=SESSION_ID';
  theme: EmbedTheme = { primaryColor: '#0f766e' };
  mode = '';
  format?: DownloadFormat;
}
