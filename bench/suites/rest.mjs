// The REST client and the CLI against the raw loop (bench/rest/common.mjs), on a loopback server of
// 10,000 recipients in 50 pages that runs as its own process.
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
const row = (figure, value, floor, goal) => compare(figure, cpu(value), cpu(floor), goal, 'ms');

export async function restSuite({ rounds, runsPerProcess, cliRounds, log }) {
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
    return {
      rows: [
        row('`SvcClient.recipients()`, 10,000 recipients in 50 pages, process CPU', inproc.client, inproc.raw, 1.1),
        row(
          "  the same, against the raw loop with the API's shape (what the checks cost)",
          inproc.client,
          inproc['raw-api'],
        ),
        row(
          "  the raw loop with the API's shape, against the raw loop (abortable requests with a time limit, a `for await` over items)",
          inproc['raw-api'],
          inproc.raw,
        ),
        row('`svc-embed recipients --format json`, end to end, child CPU', runs.cli, runs.raw, 1.05),
      ],
      raw: { inproc, cli: runs, cliOutputBytes: cli.stdout.length },
    };
  } finally {
    server.stop();
  }
}
