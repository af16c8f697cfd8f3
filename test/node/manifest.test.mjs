// The Custom Elements Manifest, checked against the code instead of trusted: its events against SvcEmbedEventMap
// (names and detail types, read with the TypeScript compiler), its attributes and properties against the element's
// `static properties`, its methods against the class's public methods. Then the editor data made from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

// The analyzer step of `npm run build`, in a directory of its own so that the tracked files are not rewritten under
// the other tests' feet: the sources linked in, and a package.json (the analyzer's config loader walks up looking for
// one, and loops for ever at / when there is none).
function analyze(env, { terminal = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'svc-embed-cem-'));
  try {
    symlinkSync(new URL('src', root).pathname, join(dir, 'src'));
    writeFileSync(join(dir, 'package.json'), '{ "type": "module", "private": true }');
    const cli = new URL('node_modules/@custom-elements-manifest/analyzer/cem.js', root).pathname;
    const args = [cli, 'analyze', '--quiet', '--config', new URL('custom-elements-manifest.config.mjs', root).pathname];
    const options = { cwd: dir, env, encoding: 'utf8', timeout: 120_000 };
    if (!terminal) {
      const run = spawnSync(process.execPath, args, options);
      assert.equal(run.status, 0, run.stderr);
      return { stdout: run.stdout, stderr: run.stderr };
    }
    // util-linux `script` gives the analyzer a pseudo-terminal as stdout.
    const command = [process.execPath, ...args].map((a) => `'${a}'`).join(' ');
    return {
      stdout: execFileSync('script', ['-qec', command, '/dev/null'], { ...options, stdio: ['ignore', 'pipe', 'pipe'] }),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ESC = '\x1b';
// A colour terminal's environment, whatever this run's: no NO_COLOR, nothing forcing colour on or off, and no CI
// variable (with CI set, Node counts a terminal as two colours unless it knows the CI by name).
const colourTerminal = { ...process.env, TERM: 'xterm-256color' };
for (const name of ['NO_COLOR', 'FORCE_COLOR', 'NODE_DISABLE_COLORS', 'CI', 'CI_NAME', 'TEAMCITY_VERSION', 'TF_BUILD'])
  delete colourTerminal[name];
const hasScript = spawnSync('script', ['--version']).status === 0;

test('the manifest step of the build writes no colour codes into a pipe or a file, even for a colour terminal', () => {
  const { stdout, stderr } = analyze(colourTerminal);
  assert.match(stdout, /Generated "web-types\.json"/);
  assert.match(stdout, /Generated "html-custom-data\.json"/);
  assert.ok(!stdout.includes(ESC), JSON.stringify(stdout));
  assert.ok(!stderr.includes(ESC), JSON.stringify(stderr));
});

test(
  'the manifest step honours NO_COLOR on a terminal, and keeps its colour there otherwise',
  { skip: !hasScript && 'no `script` (util-linux) for a pseudo-terminal' },
  () => {
    const coloured = analyze(colourTerminal, { terminal: true }).stdout;
    assert.match(coloured, /Generated "web-types\.json"/);
    assert.ok(coloured.includes(`${ESC}[32m`), JSON.stringify(coloured));
    const plain = analyze({ ...colourTerminal, NO_COLOR: '1' }, { terminal: true }).stdout;
    assert.match(plain, /Generated "web-types\.json"/);
    assert.ok(!plain.includes(ESC), JSON.stringify(plain));
  },
);
