// The svc-embed command's memory at scale: json, ndjson and csv write each page as it arrives, so a listing
// of 120 pages of 4 MB stays under 200 MB of peak RSS in every one of them; the table, which needs every row,
// stops at --max-bytes (64 MiB by default) with exit code 10 and a message that says what to use instead.
// Peak RSS is the child's own (process.resourceUsage().maxRSS, written when it exits).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'packages/api/dist/cli.js');
const PAGES = 120;
const LIMIT_MS = 300_000;
// Writes the peak RSS, in bytes, as the last line of stderr when the process exits.
const RSS_HOOK = `data:text/javascript,${encodeURIComponent(
  "import { writeSync } from 'node:fs'; process.on('exit', () => writeSync(2, `\\nmaxrss=${process.resourceUsage().maxRSS * 1024}\\n`));",
)}`;

let server;
let origin;
let requests = 0;
/** The bytes of one page's body (the cursor's digits aside). */
let pageBytes;

before(async () => {
  // One page of 200 recipients, about 4 MB: each has a 20 kB email. Page n's cursor is "c<n>".
  const big = 'x'.repeat(20_000);
  const items = Array.from({ length: 200 }, (_, i) => ({
    type: 'USER',
    userId: i + 1,
    email: `${big}${i}@example.com`,
    username: `user${i}`,
  }));
  // The first recipient's userId is the page's number, so that no page repeats the one before it (which the client
  // stops as a server that ignores `after`): the same number of digits on every page keeps each page's size.
  items[0].userId = 0;
  const [lead, rest] = `${JSON.stringify({ items }).slice(0, -1)},"pageInfo":`.split('"userId":0,');
  const head = Buffer.from(lead + rest);
  const tail = Buffer.from(rest);
  const page = (n) => Buffer.from(`${lead}"userId":${1000 + n},`);
  server = createServer((req, res) => {
    requests++;
    const after = new URL(req.url, 'http://x').searchParams.get('after');
    const n = after ? Number(after.slice(1)) + 1 : 1;
    const info = JSON.stringify({
      hasNextPage: n < PAGES,
      hasPreviousPage: n > 1,
      startCursor: `c${n}`,
      endCursor: `c${n}`,
    });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(Buffer.concat([page(n), tail, Buffer.from(`${info}}`)]));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  pageBytes = head.length + '"userId":1000,'.length + 90;
  assert.ok(head.length > 4_000_000, String(head.length));
});

after(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
});

/** Runs the command with stdout to /dev/null: {code, stderr, maxRss}. */
async function run(args) {
  const devNull = openSync('/dev/null', 'w');
  try {
    const child = spawn(
      process.execPath,
      [
        '--import',
        RSS_HOOK,
        cli,
        'recipients',
        '--deployment',
        '1',
        '--notification',
        '1',
        '--first',
        '200',
        '--quiet',
        ...args,
      ],
      {
        env: { PATH: process.env.PATH, SVC_BASE_URL: `${origin}/api`, SVC_API_TOKEN: 'memory-test-token' },
        stdio: ['ignore', devNull, 'pipe'],
        timeout: LIMIT_MS,
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', (c, s) => resolve(s ?? c)));
    const maxRss = Number(/maxrss=(\d+)\n$/.exec(stderr)?.[1]);
    return { code, stderr: stderr.replace(/\nmaxrss=\d+\n$/, ''), maxRss };
  } finally {
    closeSync(devNull);
  }
}

describe('memory that stays flat at any size', () => {
  for (const format of ['json', 'ndjson', 'csv']) {
    test(`--format ${format}: ${PAGES} pages of 4 MB, peak RSS under 200 MB`, async (t) => {
      requests = 0;
      const r = await run(['--format', format]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(requests, PAGES);
      t.diagnostic(`peak RSS ${(r.maxRss / 1e6).toFixed(0)} MB for ${PAGES} pages of 4 MB`);
      assert.ok(r.maxRss > 0 && r.maxRss < 200e6, `peak RSS ${r.maxRss}`);
    });
  }

  test('--format table stops at 64 MiB of responses by default: exit 10, a message that suggests csv or ndjson, no more requests', async () => {
    requests = 0;
    const r = await run([]);
    assert.equal(r.code, 10, r.stderr);
    assert.match(
      r.stderr,
      /^svc-embed: the listing passed 64 MiB of responses \(--max-bytes\) before it ended: the table needs every row before it prints one\. Use --format csv or --format ndjson, which write each page as it arrives, or raise --max-bytes\n$/,
    );
    // 64 MiB is passed on page 17 of these; the next request is never sent.
    assert.equal(requests, Math.floor((64 * 1024 * 1024) / pageBytes) + 1);
    assert.ok(r.maxRss < 400e6, `peak RSS ${r.maxRss}`);
  });

  test('--max-bytes sets the limit; it applies to the table only', async () => {
    requests = 0;
    const r = await run(['--max-bytes', '5000000']);
    assert.equal(r.code, 10);
    assert.match(r.stderr, /passed 5000000 bytes of responses/);
    assert.equal(requests, 2);
    const misplaced = await run(['--format', 'csv', '--max-bytes', '5000000']);
    assert.equal(misplaced.code, 2);
    assert.match(misplaced.stderr, /--max-bytes applies to --format table only/);
  });
});
