// Compiled by `tsc --noEmit` in test/node/package.test.mjs: the TypeScript snippets of the docs, as written
// (test/node/docs.test.mjs checks that each marked block is here). An untyped `e.detail` would not compile.
import 'svc-embed';

const el = document.querySelector('svc-embed')!; // an SvcEmbedElement: HTMLElementTagNameMap types it, no cast
el.addEventListener('svc-download', (e) => console.log(e.detail.payload.format)); // 'csv' | 'xlsx' | 'png' | 'pdf'
