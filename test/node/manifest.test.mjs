// The Custom Elements Manifest, checked against the code instead of trusted: its events against SvcEmbedEventMap
// (names and detail types, read with the TypeScript compiler), its attributes and properties against the element's
// `static properties`, its methods against the class's public methods. Then the editor data made from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { SvcEmbedElement } from 'svc-embed';

const root = new URL('../../', import.meta.url);
const read = (file) => JSON.parse(readFileSync(new URL(file, root), 'utf8'));
const pkg = read('package.json');
const manifest = read(pkg.customElements);
const element = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'svc-embed');

const program = ts.createProgram([new URL('src/index.ts', root).pathname], {
  strict: true,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  useDefineForClassFields: false,
  noEmit: true,
});
const checker = program.getTypeChecker();
/** A declaration named `name` in src/`file`. */
function declaration(file, name) {
  const source = program.getSourceFile(new URL(`src/${file}`, root).pathname);
  return source.statements.find((s) => s.name?.text === name);
}
// Type text as the JSDoc writes it: single quotes, no spaces.
const normal = (text) => text.replaceAll('"', "'").replace(/\s+/g, '');
const kebab = (name) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

test('package.json names the manifest, and it describes <svc-embed> as published (dist/)', () => {
  assert.equal(pkg.customElements, 'custom-elements.json');
  assert.ok(pkg.files.includes('custom-elements.json'));
  assert.ok(element, 'svc-embed is declared');
  assert.equal(element.name, 'SvcEmbedElement');
  const definition = manifest.modules
    .flatMap((m) => m.exports ?? [])
    .find((e) => e.kind === 'custom-element-definition');
  assert.deepEqual(definition, {
    kind: 'custom-element-definition',
    name: 'svc-embed',
    declaration: { name: 'SvcEmbedElement', module: 'dist/svc-embed.js' },
  });
  for (const m of manifest.modules) assert.match(m.path, /^dist\/.*\.js$/);
});

test('events: exactly those of SvcEmbedEventMap, each with the detail type of its event', () => {
  const map = checker.getTypeAtLocation(declaration('events.ts', 'SvcEmbedEventMap'));
  const expected = map.getProperties().map((event) => {
    const detail = checker.getTypeOfSymbolAtLocation(event, event.valueDeclaration).getProperty('detail');
    return { name: event.name, type: normal(checker.typeToString(checker.getTypeOfSymbol(detail))) };
  });
  assert.ok(expected.length >= 10);
  const actual = element.events.map((e) => ({ name: e.name, type: normal(e.type?.text ?? '') }));
  assert.deepEqual(
    actual.sort((a, b) => a.name.localeCompare(b.name)),
    expected.sort((a, b) => a.name.localeCompare(b.name)),
  );
  for (const e of element.events) assert.ok(e.description, `${e.name} is described`);
});

test('attributes and properties: exactly the static properties, each attribute the kebab-case of its property', () => {
  const properties = Object.entries(SvcEmbedElement.properties);
  assert.ok(properties.length >= 10);
  const fields = new Map(element.members.filter((m) => m.kind === 'field').map((m) => [m.name, m]));
  const expectedAttributes = [];
  for (const [name, options] of properties) {
    assert.ok(fields.has(name), `property ${name} is in the manifest`);
    assert.ok(fields.get(name).description, `property ${name} is described`);
    if (options.attribute === false) {
      assert.equal(fields.get(name).attribute, undefined, name);
      continue;
    }
    // The framework typings derive the attribute spelling from the property name the same way.
    assert.equal(options.attribute ?? name, kebab(name), `${name}'s attribute`);
    assert.equal(fields.get(name).attribute, kebab(name), `${name}'s attribute in the manifest`);
    expectedAttributes.push({ name: kebab(name), fieldName: name });
  }
  const attributes = element.attributes.map(({ name, fieldName }) => ({ name, fieldName }));
  assert.deepEqual(
    attributes.sort((a, b) => a.name.localeCompare(b.name)),
    expectedAttributes.sort((a, b) => a.name.localeCompare(b.name)),
  );
  // Besides the reactive properties, only read-only accessors (`ready`): nothing private.
  for (const [name, field] of fields) {
    if (!Object.hasOwn(SvcEmbedElement.properties, name))
      assert.equal(field.readonly, true, `${name} is reactive or read-only`);
    assert.notEqual(field.privacy, 'private', name);
  }
});

test('methods: exactly the public methods the class declares', () => {
  const cls = declaration('svc-embed.ts', 'SvcEmbedElement');
  const hidden =
    ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Override | ts.ModifierFlags.Static;
  const expected = cls.members
    .filter((m) => ts.isMethodDeclaration(m) && ts.isIdentifier(m.name) && !(ts.getCombinedModifierFlags(m) & hidden))
    .map((m) => m.name.text);
  assert.ok(expected.includes('navigate'));
  const actual = element.members.filter((m) => m.kind === 'method').map((m) => m.name);
  assert.deepEqual(actual.sort(), expected.sort());
  for (const m of element.members.filter((x) => x.kind === 'method'))
    assert.ok(m.description, `${m.name} is described`);
});

test('slots, CSS parts and CSS states are described', () => {
  assert.ok(element.cssParts.some((p) => p.name === 'frame'));
  for (const list of ['slots', 'cssParts', 'cssStates']) {
    for (const item of element[list] ?? [])
      assert.ok(item.name && item.description, `${list}: ${item.name} is described`);
  }
});

test('web-types.json (JetBrains) and html-custom-data.json (VS Code) carry every attribute and event', () => {
  assert.equal(pkg['web-types'], './web-types.json');
  for (const file of ['web-types.json', 'html-custom-data.json']) assert.ok(pkg.files.includes(file), file);
  const attributes = element.attributes.map((a) => a.name).sort();
  const events = element.events.map((e) => e.name).sort();

  const webTypes = read('web-types.json').contributions.html.elements.find((e) => e.name === 'svc-embed');
  assert.deepEqual(webTypes.attributes.map((a) => a.name).sort(), attributes);
  assert.deepEqual(webTypes.js.events.map((e) => e.name).sort(), events);
  assert.deepEqual(
    webTypes.js.properties.map((p) => p.name).sort(),
    element.members
      .filter((m) => m.kind === 'field')
      .map((m) => m.name)
      .sort(),
  );

  const vscode = read('html-custom-data.json').tags.find((t) => t.name === 'svc-embed');
  assert.deepEqual(vscode.attributes.map((a) => a.name).sort(), attributes);
  for (const name of events) assert.ok(vscode.description.includes(name), `${name} is in the VS Code description`);
});
