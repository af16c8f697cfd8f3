// The commands' own help, as the docs show it: the `svc-embed` reference and exit codes in docs/cli.md, and the
// `svc-embed-tenant` reference in docs/tenant.md. Run from the built commands (`npm run build` makes them), with a
// fixed environment, so that the text is the same on every machine: the help holds no port, path or colour, and
// does not depend on the terminal's width.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../..', import.meta.url).pathname;
const API_CLI = 'packages/api/dist/cli.js';
const TENANT_CLI = 'packages/tenant/dist/bin.js';

/** What `node <bin> <args…>` prints on stdout; it must exit with 0. */
function help(bin, ...args) {
  if (!existsSync(join(root, bin))) throw new Error(`${bin} is missing: run "npm run build" first`);
  const text = execFileSync(process.execPath, [bin, ...args], {
    cwd: root,
    encoding: 'utf8',
    // No SVC_* variable, no terminal: nothing of the developer's shell reaches the text.
    env: { PATH: process.env.PATH ?? '', TERM: 'dumb', NO_COLOR: '1', LANG: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return text.trimEnd();
}

const fenced = (text) => `\`\`\`text\n${text}\n\`\`\``;

/** The "Exit codes:" block of a help text as a markdown table. */
function exitCodeTable(text) {
  const block = text.slice(text.indexOf('\nExit codes:\n') + 1);
  const rows = [...block.matchAll(/^ {2}(\d+) +(.+)$/gm)].map(([, code, meaning]) => {
    const cell = meaning.replace(/\|/g, '\\|');
    return `| \`${code}\` | ${cell} |`;
  });
  if (rows.length === 0) throw new Error(`${API_CLI} --help has no exit codes`);
  return ['| code | meaning |', '|---|---|', ...rows].join('\n');
}

export async function regions() {
  const main = help(API_CLI, '--help');
  return [
    { file: 'docs/cli.md', name: 'cli-exit-codes', content: exitCodeTable(main) },
    { file: 'docs/cli.md', name: 'cli-help', content: fenced(main) },
    { file: 'docs/cli.md', name: 'cli-help-recipients', content: fenced(help(API_CLI, 'recipients', '--help')) },
    { file: 'docs/cli.md', name: 'cli-help-scim-users', content: fenced(help(API_CLI, 'scim-users', '--help')) },
    { file: 'docs/tenant.md', name: 'tenant-help', content: fenced(help(TENANT_CLI, '--help')) },
  ];
}
