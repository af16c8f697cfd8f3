// Runs every suite (the linters, browser tests in Chromium, Firefox ESR and WebKit, then the Node suites) and
// closes with the one line CI reads: "N passed, N failed[, N skipped]". Off a terminal or with NO_COLOR, the
// output is plain: no colour codes, no progress redraws (scripts/plain-output.mjs).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { plainWriter, wantsPlain } from './plain-output.mjs';

const root = new URL('..', import.meta.url).pathname;
// A directory of this run's own, so two runs at once never read each other's counts.
const results = mkdtempSync(join(tmpdir(), 'svc-embed-test-'));
process.on('exit', () => rmSync(results, { recursive: true, force: true }));

// A signal that reaches this process alone (say `kill <pid>` of this script) is passed on
// to the running suite, which then stops its browsers and servers; no later suite starts.
let child;
let interrupted;
for (const [signal, code] of [
  ['SIGINT', 130],
  ['SIGTERM', 143],
  ['SIGHUP', 129],
]) {
  process.on(signal, () => {
    interrupted ??= { signal, code };
    if (child) child.kill(signal);
    else process.exit(code);
  });
}

// Plain output: every tool is told NO_COLOR, and what it writes passes through a filter for those that colour or
// redraw regardless. Otherwise the tools write to the terminal themselves.
const plain = wantsPlain(process.stdout);

function run(cmd, args) {
  const env = { ...process.env, SVC_TEST_RESULTS: results, ...(plain ? { NO_COLOR: '1' } : {}) };
  child = spawn(cmd, args, { cwd: root, stdio: plain ? ['inherit', 'pipe', 'pipe'] : 'inherit', env });
  if (plain) {
    for (const [from, to] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      const writer = plainWriter(to);
      from.setEncoding('utf8').on('data', (d) => writer.write(d));
      from.on('end', () => writer.end());
    }
  }
  return new Promise((resolve) => {
    child.once('error', (e) => {
      console.error(`[test] cannot run ${cmd}: ${e.message}`);
      resolve(1);
    });
    child.once('close', (status) => {
      child = undefined;
      if (interrupted) {
        console.error(`[test] interrupted by ${interrupted.signal}`);
        process.exit(interrupted.code);
      }
      resolve(status ?? 1);
    });
  });
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
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
  failures.push(...(counts.failures ?? []));
  if (status !== 0 && !counts.failed) {
    console.error(`[test] ${name}: the runner exited ${status}`);
    crashed++;
  }
}

if (!process.env.SVC_SKIP_BUILD) {
  const status = await run('npm', ['run', '--silent', 'build']);
  if (status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
}

// `node scripts/test.mjs browser|node [file …]`: one half, on the files given (all of them by default).
const [only, ...chosen] = process.argv.slice(2);

// The linters (ESLint with zero warnings, then Prettier's check) count as one check each.
if (!only || only === 'lint') {
  for (const [name, args] of [
    ['eslint', ['run', '--silent', 'lint:eslint']],
    ['prettier', ['run', '--silent', 'lint:prettier']],
  ]) {
    const status = await run('npm', args);
    if (status === 0) totals.passed++;
    else {
      totals.failed++;
      failures.push({ where: 'lint', test: name, message: `npm run lint:${name} exited ${status}` });
    }
  }
}

if (!only || only === 'browser') {
  collect(
    'browser',
    await run(process.execPath, [
      join(root, 'node_modules/@web/test-runner/dist/bin.js'),
      '--config',
      'web-test-runner.config.mjs',
      ...(only === 'browser' && chosen.length ? ['--files', ...chosen] : []),
    ]),
  );
}

if (!only || only === 'node') {
  const dir = join(root, 'test/node');
  const files =
    only === 'node' && chosen.length
      ? chosen
      : readdirSync(dir)
          .filter((f) => f.endsWith('.test.mjs'))
          .sort()
          .map((f) => join(dir, f));
  if (files.length) {
    collect(
      'node',
      await run(process.execPath, [
        '--test',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        '--test-reporter=./test/support/count-reporter.mjs',
        `--test-reporter-destination=${join(results, 'node.json')}`,
        ...files,
      ]),
    );
  }
}

const failed = totals.failed + crashed;
// The failures again, next to the totals: a log read from its end shows what failed, not only how many.
for (const f of failures) console.log(`[test] failed: ${f.where} :: ${f.test}${f.message ? ` :: ${f.message}` : ''}`);
console.log(`${totals.passed} passed, ${failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(failed ? 1 : 0);
