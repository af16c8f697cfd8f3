import { Component } from '@angular/core';
import { SvcEmbedDirective } from '@svc-embed/angular';
import { EmbedHost } from '../angular/embed-host';

@Component({
  selector: 'app-embed',
  templateUrl: './embed.component.html',
  imports: [SvcEmbedDirective],
})
export class EmbedComponent extends EmbedHost {}
