// The Custom Elements Manifest (custom-elements.json), read from the element's JSDoc and `static properties`,
// and the editor data generated from it: web-types.json (JetBrains) and html-custom-data.json (VS Code).
// test/node/manifest.test.mjs checks it against SvcEmbedEventMap and the element's properties.
import { customElementJetBrainsPlugin } from 'custom-element-jet-brains-integration';
import { customElementVsCodePlugin } from 'custom-element-vs-code-integration';
import { readFileSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';

// The published modules: src/x.ts is shipped as dist/x.js.
const published = (path) => path.replace(/^\/?src\/(.*)\.[jt]s$/, 'dist/$1.js');

// The numbers of src/limits.ts, by name: the analyzer does not follow imports, so a default that names one of them
// (readyTimeout's DEFAULT_TIMEOUT) is written as its value.
const LIMITS = Object.fromEntries(
  [...readFileSync(new URL('./src/limits.ts', import.meta.url), 'utf8').matchAll(/export const (\w+) = (\d+);/g)].map(
    ([, name, value]) => [name, value],
  ),
);

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
          for (const m of [...(declaration.members ?? []), ...(declaration.attributes ?? [])])
            if (Object.hasOwn(LIMITS, m.default)) m.default = LIMITS[m.default];
          // The analyzer also reports `this.dispatchEvent(new CustomEvent(name, …))` in the private emitter,
          // naming the event after the variable; documented events are those with a `@fires` description.
          if (declaration.events) declaration.events = declaration.events.filter((e) => e.description);
        }
      }
    },
  };
}

// The two editor-data plugins print their "Generated …" lines (and their errors) through console.log with a colour
// code in the format string, whatever `hideLogs` says and wherever stdout goes. Colour is for a terminal only, and
// never with NO_COLOR set (https://no-color.org): otherwise their hooks run with console output stripped of it.
const colour = process.stdout.isTTY === true && process.stdout.hasColors() && !process.env.NO_COLOR;

/** `write` (console.log and the like) with its string arguments stripped of terminal escape codes. */
function plain(write) {
  return (...args) => write(...args.map((a) => (typeof a === 'string' ? stripVTControlCharacters(a) : a)));
}

function plainUnlessColour(plugin) {
  if (colour) return plugin;
  const wrapped = { ...plugin };
  for (const [key, hook] of Object.entries(plugin)) {
    if (typeof hook !== 'function') continue;
    wrapped[key] = (...args) => {
      const { log, warn, error } = console;
      Object.assign(console, { log: plain(log), warn: plain(warn), error: plain(error) });
      try {
        return hook(...args); // the analyzer calls the phase hooks without awaiting them
      } finally {
        Object.assign(console, { log, warn, error });
      }
    };
  }
  return wrapped;
}

const editorData = { outdir: '.', hideLogs: true };

export default {
  globs: ['src/svc-embed.ts', 'src/define.ts'],
  outdir: '.',
  litelement: true,
  packagejson: false,
  plugins: [
    publicApiOnly(),
    plainUnlessColour(
      customElementJetBrainsPlugin({ ...editorData, webTypesFileName: 'web-types.json', packageJson: false }),
    ),
    plainUnlessColour(
      customElementVsCodePlugin({ ...editorData, htmlFileName: 'html-custom-data.json', cssFileName: null }),
    ),
  ],
};
