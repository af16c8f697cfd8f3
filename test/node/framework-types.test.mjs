// The framework typings as users meet them: the fixtures under test/types/frameworks/ import `svc-embed` from
// node_modules (a link to this package, so its `exports` and dist/ typings are what resolves), with each
// framework's one-line opt-in, and are checked by the framework's own checker.
// Negative cases: `// @ts-expect-error` (tsc) and `<!-- @vue-expect-error -->` (vue-tsc) fail the check when
// no error follows; svelte-check and ngc have no such comment in markup, so there an `expect-error` marker
// comment names the line after it, and the test requires an error on exactly the marked lines.
import { describe, test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('../../', import.meta.url).pathname;
const types = join(root, 'test/types/frameworks');

function run(bin, args) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', bin), ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    // eslint-disable-next-line no-control-regex -- strips the ESC colour sequences of the checkers' output
    child.on('close', (status) => resolve({ status, output: output.replace(/\x1b\[[0-9;]*m/g, '') }));
  });
}

/** `file:line` of every line that follows an `expect-error` marker in these files, with the marker's text. */
function markedLines(dir, files) {
  const marked = new Map();
  for (const file of files) {
    readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .forEach((line, i) => {
        const marker = /<!-- expect-error: (.*?) -->/.exec(line);
        if (marker) marked.set(`${file}:${i + 2}`, marker[1]);
      });
  }
  return marked;
}

/** ngc's errors in an Angular fixture project: `file:line` → the first line of the diagnostic (`TS2322: …`). */
async function ngcErrors(project) {
  const { output } = await run('@angular/compiler-cli/bundles/src/bin/ngc.js', ['-p', project]);
  const errors = new Map(
    [...output.matchAll(/^(?:.*\/)?([\w.-]+\.(?:html|ts))[:(](\d+)[:,]\d+\)?:? - error (.*)$/gm)].map(
      ([, f, l, message]) => [`${f}:${l}`, message],
    ),
  );
  return { errors, output };
}

before(() => {
  // What `npm install svc-embed` gives the fixtures: node_modules/svc-embed is this package.
  const link = join(types, 'node_modules/svc-embed');
  mkdirSync(join(types, 'node_modules'), { recursive: true });
  if (!lstatSync(link, { throwIfNoEntry: false })) symlinkSync('../../../..', link, 'dir');
});

describe('framework typings', { concurrency: true }, () => {
  test('React 19 JSX, Preact and the @svc-embed/react wrapper (tsc)', async () => {
    const { status, output } = await run('typescript/bin/tsc', ['-p', 'test/types/frameworks/react']);
    assert.equal(status, 0, output);
  });

  test('the global JSX namespace, in a project without React or Preact types (tsc)', async () => {
    const { status, output } = await run('typescript/bin/tsc', ['-p', 'test/types/frameworks/jsx-global']);
    assert.equal(status, 0, output);
  });

  test('a Vue SFC (vue-tsc, strictTemplates)', async () => {
    const { status, output } = await run('vue-tsc/bin/vue-tsc.js', ['-p', 'test/types/frameworks/vue']);
    assert.equal(status, 0, output);
  });

  test('Svelte 5 components (svelte-check): errors on exactly the marked lines', async () => {
    const dir = join(types, 'svelte/src');
    const { output } = await run('svelte-check/bin/svelte-check', [
      '--workspace',
      'test/types/frameworks/svelte',
      '--tsconfig',
      './tsconfig.json',
      '--output',
      'machine',
    ]);
    assert.match(output, /COMPLETED/, output);
    const errors = new Set([...output.matchAll(/ ERROR "src\/([^"]+)" (\d+):\d+ /g)].map(([, f, l]) => `${f}:${l}`));
    const expected = markedLines(dir, ['Dashboard.svelte', 'Legacy.svelte', 'Mistakes.svelte']);
    assert.ok(expected.size >= 6, 'the negative cases are there');
    assert.deepEqual([...errors].sort(), [...expected.keys()].sort(), output);
  });

  test('an Angular template (ngc, strictTemplates): $event typed through GlobalEventHandlersEventMap', async () => {
    const { errors, output } = await ngcErrors('test/types/frameworks/angular');
    const expected = markedLines(join(types, 'angular'), ['embed.component.html']);
    assert.ok(expected.size >= 2, 'the negative cases are there');
    assert.deepEqual([...errors.keys()].sort(), [...expected.keys()].sort(), output);
  });

  // The marker names the diagnostic the line must give, from its start: a wrong value, a wrong type, an unknown
  // input, and an unknown output whose `$event.detail` is read (Angular binds an unknown output as a DOM event,
  // so `$event` is a plain Event: that is the diagnostic there is); `$event.detail.payload` is typed.
  test('@svc-embed/angular (ngc, strictTemplates): typed inputs and outputs, the expected diagnostic on each marked line', async () => {
    const { errors, output } = await ngcErrors('test/types/frameworks/angular-package');
    const expected = markedLines(join(types, 'angular-package'), ['embed.component.html']);
    assert.ok(expected.size >= 7, 'the negative cases are there');
    assert.deepEqual([...errors.keys()].sort(), [...expected.keys()].sort(), output);
    for (const [line, diagnostic] of expected)
      assert.ok(errors.get(line).startsWith(diagnostic), `${line}: ${errors.get(line)}`);
  });
});
