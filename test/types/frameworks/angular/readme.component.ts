// The Angular page's snippet (docs/frameworks/angular.md), type-checked as written.
import { Component, CUSTOM_ELEMENTS_SCHEMA } from '@angular/core';
import 'svc-embed';

@Component({
  selector: 'app-sales',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
  template: `
    <svc-embed [src]="src" color-scheme="dark" [theme]="theme"
      (svc-ready)="mode = $event.detail.payload.mode"
      (svc-download)="format = $event.detail.payload.format"></svc-embed>
  `,
})
export class SalesComponent {
  src = 'https://acme.example.com/embed/dashboard/7f3c9a?session=SESSION_ID';
  theme = { primaryColor: '#0f766e' };
  mode = '';
  format = '';
}
