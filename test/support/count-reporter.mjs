// node:test reporter that writes {passed, failed, skipped, failures} as JSON: scripts/test.mjs adds
// it up and names each failure again just before its last line.
import { relative } from 'node:path';

/** An error message as one line of at most 300 characters, for the failure lines (here and wtr-count-reporter.mjs). */
export const oneLine = (message) =>
  String(message ?? '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 300);

export default async function* countReporter(source) {
  const counts = { passed: 0, failed: 0, skipped: 0, failures: [] };
  for await (const event of source) {
    // Suites (describe) report too; count only leaf tests.
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    if (event.data.details?.type === 'suite') continue;
    if (event.data.skip || event.data.todo) counts.skipped++;
    else if (event.type === 'test:pass') counts.passed++;
    else {
      counts.failed++;
      const error = event.data.details?.error;
      counts.failures.push({
        where: `node ${event.data.file ? relative(process.cwd(), event.data.file) : ''}`.trim(),
        test: event.data.name,
        message: oneLine(error?.cause?.message ?? error?.message),
      });
    }
  }
  yield JSON.stringify(counts);
}
