// The REST client and the CLI against the raw loop (bench/rest/common.mjs), on a loopback server of
// 10,000 recipients in 50 pages that runs as its own process; then the CLI's streamed formats on a listing of
// 1,000,000 recipients (5,000 pages of 200), for its peak RSS and its CPU against the raw loop that writes
// the same bytes (bench/rest/raw-stream.mjs).
import { join } from 'node:path';
import { alternate, compare } from '../lib/stats.mjs';
import { measureNode, root, runNode, startServer } from '../lib/proc.mjs';
import { TOKEN } from '../rest/common.mjs';

const CLI_ARGS = [
  join(root, 'packages/api/dist/cli.js'),
  'recipients',
  '--deployment',
  '1',
  '--notification',
  '1',
  '--first',
  '200',
  '--format',
  'json',
];
const RAW_CLI = [join(root, 'bench/rest/raw-cli.mjs')];

const cpu = (runs) => runs.map((m) => m.cpuMs);
const MILLION = 1_000_000;
const MB = (runs) => runs.map((m) => m.maxRssBytes / 1e6);
const row = (figure, value, floor, goal) => compare(figure, cpu(value), cpu(floor), goal, 'ms');

/** The million-recipient rows: each streamed format, CPU against its raw loop, and the peak RSS of both. */
async function millionRows(millionRounds, log) {
  const server = await startServer(join(root, 'bench/rest/server.mjs'), [String(MILLION)]);
  try {
    const env = { ...process.env, SVC_API_TOKEN: TOKEN, SVC_BASE_URL: `${server.origin}/api` };
    const rows = [];
    const raw = {};
    for (const format of ['json', 'ndjson', 'csv']) {
      const args = [...CLI_ARGS.slice(0, -1), format];
      const floor = [join(root, 'bench/rest/raw-stream.mjs'), format];
      log(
        `CLI, ${MILLION.toLocaleString('en')} recipients, --format ${format}: ${millionRounds} rounds of two processes…`,
      );
      let digests;
      const runs = await alternate(
        ['cli', 'raw'],
        millionRounds,
        async (variant) => {
          const m = await measureNode(variant === 'cli' ? args : floor, { env, digest: true });
          digests = { ...digests, [variant]: m.sha256 };
          return { cpuMs: m.cpuMs, maxRssBytes: m.maxRssBytes, outBytes: m.outBytes };
        },
        { warmup: 0 },
      );
      // The floor must write exactly what the CLI writes, or the comparison would be of different work.
      if (digests.cli !== digests.raw)
        throw new Error(`--format ${format}: the raw loop and the CLI wrote different bytes`);
      rows.push(
        row(
          `\`svc-embed recipients --format ${format}\`, ${MILLION.toLocaleString('en')} recipients in 5,000 pages, child CPU`,
          runs.cli,
          runs.raw,
          1.1,
        ),
        // The goal is the raw loop's own peak: Node 20's fetch alone takes more than the 100 MB of the first goal here.
        {
          ...compare(`  the same, peak RSS, against the raw loop's`, MB(runs.cli), MB(runs.raw), 1, 'MB'),
          goalText: "≤ the raw loop's peak",
          note: `${runs.cli[0].outBytes.toLocaleString('en')} B written`,
        },
      );
      raw[format] = runs;
    }
    return { rows, raw };
  } finally {
    server.stop();
  }
}

export async function restSuite({ rounds, runsPerProcess, cliRounds, millionRounds, log }) {
  const server = await startServer(join(root, 'bench/rest/server.mjs'));
  try {
    const baseUrl = `${server.origin}/api`;
    log(`REST client: ${rounds} rounds of three processes…`);
    // Each round is a process per variant; its figure is the mean of its runs, so that the collections
    // of the old generation, which come every few listings, are counted at their share.
    const inproc = await alternate(
      ['client', 'raw', 'raw-api'],
      rounds,
      async (variant) => {
        const runs = JSON.parse(
          await runNode([join(root, 'bench/rest/inproc.mjs'), baseUrl, variant, '4', String(runsPerProcess)]),
        );
        return { cpuMs: runs.reduce((a, b) => a + b, 0) / runs.length, runs };
      },
      { warmup: 0 },
    );

    const env = { ...process.env, SVC_API_TOKEN: TOKEN, SVC_BASE_URL: baseUrl };
    // The floor must print exactly what the CLI prints, or the comparison would be of different work.
    const [cli, raw] = [await measureNode(CLI_ARGS, { env }), await measureNode(RAW_CLI, { env })];
    if (!cli.stdout.equals(raw.stdout)) throw new Error('the raw loop and the CLI printed different output');
    log(`CLI: ${cliRounds} rounds of two processes…`);
    const runs = await alternate(['cli', 'raw'], cliRounds, async (variant) => {
      const m = await measureNode(variant === 'cli' ? CLI_ARGS : RAW_CLI, { env });
      return { cpuMs: m.cpuMs, wallMs: m.wallMs };
    });
    const million = await millionRows(millionRounds, log);
    return {
      rows: [
        // The goal is against the raw loop with the API's shape: abortable requests with a time limit and a
        // `for await` over items are the API itself, and cost what they cost in any client that offers it.
        row('`SvcClient.recipients()`, 10,000 recipients in 50 pages, process CPU', inproc.client, inproc.raw),
        row(
          "  the same, against the raw loop with the API's shape (what the checks cost)",
          inproc.client,
          inproc['raw-api'],
          1.1,
        ),
        row(
          "  the raw loop with the API's shape, against the raw loop (abortable requests with a time limit, a `for await` over items)",
          inproc['raw-api'],
          inproc.raw,
        ),
        row('`svc-embed recipients --format json`, end to end, child CPU', runs.cli, runs.raw, 1.05),
        ...million.rows,
      ],
      raw: { inproc, cli: runs, cliOutputBytes: cli.stdout.length, million: million.raw },
    };
  } finally {
    server.stop();
  }
}
