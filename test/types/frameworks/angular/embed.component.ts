import { Component, CUSTOM_ELEMENTS_SCHEMA } from '@angular/core';
import 'svc-embed';
import { EmbedHost } from './embed-host';

@Component({
  selector: 'app-embed',
  templateUrl: './embed.component.html',
  schemas: [CUSTOM_ELEMENTS_SCHEMA],
})
export class EmbedComponent extends EmbedHost {}
