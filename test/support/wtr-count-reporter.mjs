// A web-test-runner reporter that writes the totals (over every browser) to a JSON file, and
// prints one line per browser, so scripts/test.mjs can close the run with "N passed, N failed".
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

function countSuite(suite, counts) {
  for (const t of suite.tests) {
    if (t.skipped) counts.skipped++;
    else if (t.passed) counts.passed++;
    else counts.failed++;
  }
  for (const s of suite.suites) countSuite(s, counts);
}

export function countReporter(file) {
  return {
    onTestRunFinished({ sessions }) {
      const total = { passed: 0, failed: 0, skipped: 0 };
      const perBrowser = new Map();
      for (const session of sessions) {
        const counts = { passed: 0, failed: 0, skipped: 0 };
        if (session.testResults) countSuite(session.testResults, counts);
        // A file that failed to load or threw outside a test has errors but maybe no failed test.
        if (!session.passed && counts.failed === 0) counts.failed++;
        const b = perBrowser.get(session.browser.name) ?? { passed: 0, failed: 0, skipped: 0 };
        for (const k of Object.keys(counts)) {
          b[k] += counts[k];
          total[k] += counts[k];
        }
        perBrowser.set(session.browser.name, b);
      }
      for (const [name, c] of perBrowser) {
        console.log(`[browser] ${name}: ${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`);
      }
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(total));
    },
  };
}
