// A web-test-runner reporter that writes the totals (over every browser) and the failures to a JSON
// file, and prints one line per browser, so scripts/test.mjs can close the run with the failures
// named again and "N passed, N failed".
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { oneLine } from './count-reporter.mjs';

function countSuite(suite, counts, failures, where, path) {
  for (const t of suite.tests) {
    if (t.skipped) counts.skipped++;
    else if (t.passed) counts.passed++;
    else {
      counts.failed++;
      failures.push({ where, test: [...path, t.name].join(' > '), message: oneLine(t.error?.message) });
    }
  }
  for (const s of suite.suites) countSuite(s, counts, failures, where, [...path, s.name]);
}

export function countReporter(file) {
  return {
    onTestRunFinished({ sessions }) {
      const total = { passed: 0, failed: 0, skipped: 0, failures: [] };
      const perBrowser = new Map();
      for (const session of sessions) {
        const counts = { passed: 0, failed: 0, skipped: 0 };
        const where = `${session.browser.name} ${relative(process.cwd(), session.testFile)}`;
        if (session.testResults) countSuite(session.testResults, counts, total.failures, where, []);
        // A file that failed to load or threw outside a test has errors but maybe no failed test.
        if (!session.passed && counts.failed === 0) {
          counts.failed++;
          total.failures.push({ where, test: '(the file itself)', message: oneLine(session.errors?.[0]?.message) });
        }
        const b = perBrowser.get(session.browser.name) ?? { passed: 0, failed: 0, skipped: 0 };
        for (const k of Object.keys(counts)) {
          b[k] += counts[k];
          total[k] += counts[k];
        }
        perBrowser.set(session.browser.name, b);
      }
      for (const [name, c] of perBrowser) {
        console.log(
          `[browser] ${name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`,
        );
      }
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(total));
    },
  };
}
