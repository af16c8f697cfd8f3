// Runs every suite (browser tests in Chromium and Firefox ESR, then the Node suites) and closes
// with the one line CI reads: "N passed, N failed[, N skipped]".
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
// A directory of this run's own, so two runs at once never read each other's counts.
const results = mkdtempSync(join(tmpdir(), 'svc-embed-test-'));
process.on('exit', () => rmSync(results, { recursive: true, force: true }));

const run = (cmd, args) =>
  spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, SVC_TEST_RESULTS: results } }).status;

const totals = { passed: 0, failed: 0, skipped: 0 };
let crashed = 0;

function collect(name, status) {
  const file = join(results, `${name}.json`);
  if (!existsSync(file)) {
    console.error(`[test] ${name}: the runner exited ${status} without reporting results`);
    crashed++;
    return;
  }
  const counts = JSON.parse(readFileSync(file, 'utf8'));
  for (const k of Object.keys(totals)) totals[k] += counts[k] ?? 0;
  if (status !== 0 && !counts.failed) {
    console.error(`[test] ${name}: the runner exited ${status}`);
    crashed++;
  }
}

if (!process.env.SVC_SKIP_BUILD) {
  const status = run('npm', ['run', '--silent', 'build']);
  if (status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

const only = process.argv[2];

if (!only || only === 'browser') {
  collect('browser', run(process.execPath, [join(root, 'node_modules/@web/test-runner/dist/bin.js'), '--config', 'web-test-runner.config.mjs']));
}

if (!only || only === 'node') {
  const dir = join(root, 'test/node');
  const files = readdirSync(dir).filter((f) => f.endsWith('.test.mjs')).sort().map((f) => join(dir, f));
  if (files.length) {
    collect('node', run(process.execPath, [
      '--test',
      '--test-reporter=spec', '--test-reporter-destination=stdout',
      '--test-reporter=./test/support/count-reporter.mjs', `--test-reporter-destination=${join(results, 'node.json')}`,
      ...files,
    ]));
  }
}

const failed = totals.failed + crashed;
console.log(`${totals.passed} passed, ${failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
