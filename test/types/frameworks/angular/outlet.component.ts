// The Angular page's prerender outlet (docs/frameworks/angular.md), type-checked as written.
import { Component, ElementRef, Input, inject } from '@angular/core';
import type { SvcEmbedElement } from 'svc-embed';
import { park, show } from 'svc-embed/prerender';

@Component({
  selector: 'app-embed-outlet',
  template: '',
})
export class EmbedOutletComponent {
  private readonly host: HTMLElement = inject(ElementRef).nativeElement;
  private shown?: SvcEmbedElement;

  // A new embed parks the one shown, while this component's element is still in the document.
  @Input({ required: true }) set embed(embed: SvcEmbedElement) {
    if (this.shown) park(this.shown);
    show(embed, this.host);
    this.shown = embed;
  }
}
