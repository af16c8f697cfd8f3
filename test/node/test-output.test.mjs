// `npm test` off a terminal (a file, a pipe, a CI log) or with NO_COLOR: no colour codes, no progress redraws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { plainWriter, wantsPlain } from '../../scripts/plain-output.mjs';
import { unavailable } from '../support/browsers.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ESC = '\x1b';

/** What `plainWriter` writes for `chunks`, written one by one. */
function through(chunks) {
  let out = '';
  const writer = plainWriter({ write: (s) => (out += s) });
  for (const c of chunks) writer.write(c);
  writer.end();
  return out;
}

test('wantsPlain: off a terminal, with NO_COLOR set (not empty) or with TERM=dumb', () => {
  assert.equal(wantsPlain({ isTTY: false }, {}), true);
  assert.equal(wantsPlain({}, {}), true);
  assert.equal(wantsPlain({ isTTY: true }, { TERM: 'xterm-256color' }), false);
  assert.equal(wantsPlain({ isTTY: true }, { NO_COLOR: '1' }), true);
  assert.equal(wantsPlain({ isTTY: true }, { NO_COLOR: '' }), false, 'no-color.org: set and not empty');
  assert.equal(wantsPlain({ isTTY: true }, { TERM: 'dumb' }), true);
});

test('plainWriter drops colours, cursor moves, erasing and titles, even split across writes; text stays whole', () => {
  const summary = ` Custom Elements Manifest ${ESC}[2m[Chromium]${ESC}[0m${ESC}[0m${ESC}[0m\n   ${ESC}[32m✓${ESC}[89m${ESC}[0m${ESC}[0m lists`;
  assert.equal(through([summary]), ' Custom Elements Manifest [Chromium]\n   ✓ lists');
  // Cut at every position: the same output, with nothing of an escape left over.
  const text = `a${ESC}[2K${ESC}[1A${ESC}[2K${ESC}[Gb ${ESC}]0;title\x07c ${ESC}]8;;https://x${ESC}\\d ${ESC}[?25l✓\r\n`;
  for (let i = 0; i <= text.length; i++) assert.equal(through([text.slice(0, i), text.slice(i)]), 'ab c d ✓\r\n', i);
  // A redraw with a carriage return becomes a line of its own; CRLF stays.
  assert.equal(through(['0/2 files\r1/2 files\r', '\n2/2\r', '\n']), '0/2 files\n1/2 files\r\n2/2\r\n');
  // An ESC at the very end, never completed, is dropped.
  assert.equal(through(['done', ESC]), 'done');
});

const files = ['browser', 'test/browser/manifest.test.ts'];
const env = { ...process.env, SVC_SKIP_BUILD: '1', BROWSERS: 'chromium' };
delete env.NO_COLOR;
delete env.FORCE_COLOR;
const hasScript = spawnSync('script', ['--version']).status === 0;

test(
  'scripts/test.mjs into a file, and on a terminal with NO_COLOR: no escape, no redraw, the last line CI reads',
  { skip: unavailable('chromium'), timeout: 300_000 },
  () => {
    const piped = spawnSync(process.execPath, ['scripts/test.mjs', ...files], { cwd: root, env, encoding: 'utf8' });
    assert.equal(piped.status, 0, piped.stdout + piped.stderr);
    for (const out of [piped.stdout, piped.stderr]) {
      assert.ok(!out.includes(ESC), JSON.stringify(out));
      assert.ok(!out.includes('\r'), JSON.stringify(out));
    }
    assert.match(piped.stdout, /\n1 passed, 0 failed\n$/);
    if (!hasScript) return;
    // A pseudo-terminal (util-linux `script`), whose line discipline ends lines with CRLF.
    const command = `NO_COLOR=1 ${process.execPath} scripts/test.mjs ${files.join(' ')}`;
    const tty = spawnSync('script', ['-qec', command, '/dev/null'], {
      cwd: root,
      env: { ...env, TERM: 'xterm-256color' },
      encoding: 'utf8',
    });
    assert.equal(tty.status, 0, tty.stdout);
    assert.ok(!tty.stdout.includes(ESC), JSON.stringify(tty.stdout));
    assert.ok(!/\r(?!\n)/.test(tty.stdout), JSON.stringify(tty.stdout));
    assert.match(tty.stdout, /\r\n1 passed, 0 failed\r\n$/);
  },
);
