// The reference tables of docs/element.md, written from the Custom Elements Manifest (custom-elements.json),
// which the build reads from the element's JSDoc. Edit the JSDoc in src/svc-embed.ts, not the tables.
import { readFileSync } from 'node:fs';

const FILE = 'docs/element.md';

/** The `<svc-embed>` declaration of the manifest. */
export function element() {
  const manifest = JSON.parse(readFileSync(new URL('../../custom-elements.json', import.meta.url), 'utf8'));
  for (const mod of manifest.modules) for (const d of mod.declarations ?? []) if (d.tagName === 'svc-embed') return d;
  throw new Error('custom-elements.json has no <svc-embed>: run "npm run build" first');
}

/** One table cell: one line, pipes escaped. */
export const cell = (text) => (text ?? '').replace(/\s*\n\s*/g, ' ').replace(/\|/g, '\\|');
export const code = (text) => (text ? `\`${cell(text)}\`` : '');
/** A type as the host writes it: `null` and `undefined` are what unsetting takes, shown once in the prose. */
export const shownType = (text) =>
  text
    ?.split('|')
    .map((t) => t.trim())
    .filter((t) => t !== 'null' && t !== 'undefined')
    .join(' | ');

export function table(head, rows) {
  return [`| ${head.join(' | ')} |`, `|${head.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.join(' | ')} |`)]
    .join('\n')
    .concat('\n');
}

export function regions() {
  const el = element();
  const members = el.members.filter((m) => m.privacy !== 'private' && !m.static);
  const fields = members.filter((m) => m.kind === 'field');
  const attributeOf = new Map(el.attributes.map((a) => [a.fieldName, a.name]));
  const properties = table(
    ['attribute', 'property', 'type', 'default', 'description'],
    fields.map((f) => [
      attributeOf.has(f.name) ? code(attributeOf.get(f.name)) : '—',
      code(f.name) + (f.readonly ? ' (read-only)' : ''),
      code(shownType(f.type?.text)),
      f.default === undefined ? '' : code(f.default),
      cell(f.description),
    ]),
  );
  const events = table(
    ['event', '`detail` type', 'description'],
    el.events.map((e) => [code(e.name), code(e.type?.text), cell(e.description)]),
  );
  const methods = table(
    ['method', 'returns', 'description'],
    members
      .filter((m) => m.kind === 'method')
      .map((m) => [
        code(
          `${m.name}(${(m.parameters ?? []).map((p) => `${p.name}${p.optional ? '?' : ''}: ${p.type?.text}`).join(', ')})`,
        ),
        code(m.return?.type?.text),
        cell(m.description),
      ]),
  );
  const named = (list) =>
    table(
      ['name', 'description'],
      (list ?? []).map((x) => [code(x.name), cell(x.description)]),
    );
  return [
    { file: FILE, name: 'properties', content: properties },
    { file: FILE, name: 'events', content: events },
    { file: FILE, name: 'methods', content: methods },
    { file: FILE, name: 'slots', content: named(el.slots) },
    { file: FILE, name: 'parts', content: named(el.cssParts) },
    { file: FILE, name: 'states', content: named(el.cssStates) },
  ];
}
