// What the docs tests read from the repository's markdown: its files, headings (as GitHub makes their anchors),
// links, and fenced code blocks with the comment that marks each.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

// Folders with no docs of ours: installed packages, build output, caches, fixtures' own packages.
const SKIP = new Set(['node_modules', '.git', 'dist', 'cdn', '.cache', '.test-results', 'screenshots']);

/** Every markdown file of the repository, relative to its root, with `/` separators. */
export function markdownFiles(dir = root) {
  const files = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...markdownFiles(path));
    else if (entry.name.endsWith('.md')) files.push(relative(root, path).split('\\').join('/'));
  }
  return files.sort();
}

export const read = (file) => readFileSync(join(root, file), 'utf8');

/** The text with fenced code blocks blanked out (line count kept), so that nothing inside them is read as markdown. */
export function withoutCode(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[ \t]*$/gm, (block) => block.replace(/[^\n]/g, ''));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2, … */
export function anchors(text) {
  const seen = new Map();
  const result = new Set();
  for (const [, heading] of withoutCode(text).matchAll(/^#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const slug = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link's text
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    result.add(n ? `${slug}-${n}` : slug);
  }
  for (const [, id] of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) result.add(id);
  return result;
}

/** Every inline link and image target outside code: [{ target, line }]. */
export function links(text) {
  const out = [];
  const lines = withoutCode(text)
    .split('\n')
    .map((l) => l.replace(/`[^`]*`/g, ''));
  lines.forEach((l, i) => {
    for (const [, target] of l.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) out.push({ target, line: i + 1 });
  });
  return out;
}

/**
 * Every fenced code block: its language, code, the line it starts on, the HTML comment on the line just above it
 * (its mark: who runs or checks it), and whether it sits inside a generated region.
 */
export function codeBlocks(text) {
  const blocks = [];
  const lines = text.split('\n');
  let generated = false;
  for (let i = 0; i < lines.length; i++) {
    if (/^<!-- generated: /.test(lines[i])) generated = true;
    if (/^<!-- end generated: /.test(lines[i])) generated = false;
    const open = /^(```|~~~)(\S*)/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !lines[i].startsWith(open[1]); i++) body.push(lines[i]);
    const above = lines[start - 1] ?? '';
    blocks.push({
      lang: open[2],
      code: body.join('\n') + '\n',
      line: start + 1,
      mark: /^<!--.*-->$/.test(above.trim()) ? above.trim() : '',
      generated,
    });
  }
  return blocks;
}
