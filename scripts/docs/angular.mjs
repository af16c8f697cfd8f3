// The inputs and outputs of docs/frameworks/angular.md, written from the Custom Elements Manifest: an input per
// property of the element that a template may set, and an output per event. SvcEmbedDirective holds the same lists
// to the element's types at compile time; this checks that its source has each, so that the page cannot name one it
// lacks, nor leave one out.
import { readFileSync } from 'node:fs';
import { cell, code, element, shownType, table } from './element.mjs';

const FILE = 'docs/frameworks/angular.md';
const DIRECTIVE = 'packages/angular/src/svc-embed.directive.ts';

/** `svc-ready` → `svcReady`, as the directive names the output of a DOM event. */
const outputName = (event) => event.replace(/-([a-z])/g, (_, c) => c.toUpperCase());

export function regions() {
  const el = element();
  const directive = readFileSync(new URL(`../../${DIRECTIVE}`, import.meta.url), 'utf8');
  const inputs = el.members.filter((m) => m.kind === 'field' && m.privacy !== 'private' && !m.static && !m.readonly);
  for (const f of inputs) {
    if (!new RegExp(`@Input\\(\\) ${f.name}\\?:`).test(directive))
      throw new Error(`${DIRECTIVE} has no @Input() ${f.name}, a property of the element`);
  }
  for (const e of el.events) {
    if (!new RegExp(`readonly ${outputName(e.name)} = output<`).test(directive))
      throw new Error(`${DIRECTIVE} has no output ${outputName(e.name)}, for the element's ${e.name}`);
  }
  return [
    {
      file: FILE,
      name: 'angular-inputs',
      content: table(
        ['input', 'type', 'the element\u2019s property'],
        inputs.map((f) => [code(`[${f.name}]`), code(shownType(f.type?.text)), cell(f.description)]),
      ),
    },
    {
      file: FILE,
      name: 'angular-outputs',
      content: table(
        ['output', 'event', '`$event.detail` type'],
        el.events.map((e) => [code(`(${outputName(e.name)})`), code(e.name), code(e.type?.text)]),
      ),
    },
  ];
}
