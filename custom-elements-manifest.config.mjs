// The Custom Elements Manifest (custom-elements.json), read from the element's JSDoc and `static properties`,
// and the editor data generated from it: web-types.json (JetBrains) and html-custom-data.json (VS Code).
// test/node/manifest.test.mjs checks it against SvcEmbedEventMap and the element's properties.
import { customElementJetBrainsPlugin } from 'custom-element-jet-brains-integration';
import { customElementVsCodePlugin } from 'custom-element-vs-code-integration';

// The published modules: src/x.ts is shipped as dist/x.js.
const published = (path) => path.replace(/^\/?src\/(.*)\.[jt]s$/, 'dist/$1.js');

/** The public API, as published: module paths in dist/, no `#private` members, only the events declared with `@fires`. */
function publicApiOnly() {
  return {
    name: 'svc-embed-public-api-only',
    packageLinkPhase({ customElementsManifest }) {
      for (const mod of customElementsManifest.modules) {
        mod.path = published(mod.path);
        for (const ex of mod.exports ?? [])
          if (ex.declaration?.module) ex.declaration.module = published(ex.declaration.module);
        for (const declaration of mod.declarations ?? []) {
          if (declaration.members) declaration.members = declaration.members.filter((m) => m.privacy !== 'private');
          // The analyzer also reports `this.dispatchEvent(new CustomEvent(name, …))` in the private emitter,
          // naming the event after the variable; documented events are those with a `@fires` description.
          if (declaration.events) declaration.events = declaration.events.filter((e) => e.description);
        }
      }
    },
  };
}

const editorData = { outdir: '.', hideLogs: true };

export default {
  globs: ['src/svc-embed.ts', 'src/define.ts'],
  outdir: '.',
  litelement: true,
  packagejson: false,
  plugins: [
    publicApiOnly(),
    customElementJetBrainsPlugin({ ...editorData, webTypesFileName: 'web-types.json', packageJson: false }),
    customElementVsCodePlugin({ ...editorData, htmlFileName: 'html-custom-data.json', cssFileName: null }),
  ],
};
