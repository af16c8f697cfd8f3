// The version-pinned CDN tags, with the Subresource Integrity that the build wrote to cdn/integrity.json.
import { readFileSync } from 'node:fs';

const read = (path) => JSON.parse(readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8'));

export function regions() {
  const { name, version } = read('package.json');
  const integrity = read('cdn/integrity.json');
  const url = (file) => `https://unpkg.com/${name}@${version}/cdn/${file}`;
  const tag = (file, type) =>
    `<script${type}src="${url(file)}"\n  integrity="${integrity[file]}"\n  crossorigin="anonymous"></script>`;
  const content = [
    'The ES module (Lit inlined):',
    '',
    '```html',
    tag('svc-embed.min.js', ' type="module" '),
    '```',
    '',
    'The classic script, for pages that cannot load modules (tag managers, some CMSes); it sets the global `SvcEmbed`:',
    '',
    '```html',
    tag('svc-embed.classic.min.js', ' '),
    '```',
  ].join('\n');
  // svc-embed/history: an ES module of its own, imported by a module script; the import map pins its integrity.
  const history = [
    '```html',
    tag('svc-embed.min.js', ' type="module" '),
    '<script type="importmap">',
    `  { "integrity": { "${url('svc-embed-history.min.js')}": "${integrity['svc-embed-history.min.js']}" } }`,
    '</script>',
    '<script type="module">',
    `  import { syncHistory } from '${url('svc-embed-history.min.js')}';`,
    "  syncHistory(document.querySelector('svc-embed'), { param: 'sales' });",
    '</script>',
    '```',
  ].join('\n');
  return [
    ...['README.md', 'docs/security.md', 'docs/frameworks/plain-html.md'].map((file) => ({
      file,
      name: 'cdn-tags',
      content,
    })),
    { file: 'docs/history.md', name: 'cdn-history', content: history },
  ];
}
