// `npm run bench`: every suite of issue 11, one table on stdout, and bench/results.json.
//
//   npm run bench                  the full run (several minutes)
//   npm run bench -- --quick       fewer rounds, about 6 minutes on 2 loaded cores once the peers are cached
//   --only rest,sizes,messages,lifecycle,first-load   some suites only
//   --first-load-probes           the first-load row also loads the SSR markup without the bundle, and the bare
//                                  iframe with the bundle
//   --browsers chromium,firefox,firefox-1p   (the default; chromium,firefox with --quick; firefox-1p is Firefox
//                                  in one content process, message path only; CHROME_PATH, FIREFOX_PATH override)
//
// Builds first when dist/ or cdn/ is missing or older than src/. Measures whatever is built: the
// element from cdn/svc-embed.min.js, the client and the CLI from dist/.
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { LABELS, launch } from './lib/browsers.mjs';
import { startPages } from './lib/pages-server.mjs';
import { buildIfStale, root } from './lib/proc.mjs';
import { table } from './lib/table.mjs';
import { firstLoadSuite } from './suites/first-load.mjs';
import { mountSuite, readySuite, renewalSuite, routesSuite } from './suites/lifecycle.mjs';
import { messageSuite } from './suites/messages.mjs';
import { restSuite } from './suites/rest.mjs';
import { minify, sizeSuite } from './suites/sizes.mjs';

const { values: opts } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string', default: 'sizes,rest,messages,lifecycle,first-load' },
    browsers: { type: 'string' },
    // The first-load row's two probes (the SSR markup without the bundle, the bare iframe with it).
    'first-load-probes': { type: 'boolean', default: false },
    out: { type: 'string', default: join(root, 'bench/results.json') },
  },
});
const only = new Set(opts.only.split(','));
const browsers = (opts.browsers ?? (opts.quick ? 'chromium,firefox' : 'chromium,firefox,firefox-1p'))
  .split(',')
  .filter(Boolean);

// Rounds per suite. Each round runs every variant once, in an order rotated round by round.
const CONFIG = opts.quick
  ? {
      rest: { rounds: 4, runsPerProcess: 5, cliRounds: 4, millionRounds: 1 },
      messages: { rounds: 3, burst: 10_000, synthetic: 10_000, flood: 100_000 },
      mount: { rounds: 5, cycles: 50, leakCycles: 200 },
      ready: { rounds: 8 },
      renewal: { rounds: 2 },
      routes: { rounds: 6, leakSwitches: 200 },
      firstLoad: { rounds: 6 },
    }
  : // A synthetic run lasts about 0.1 s, and one burst of load from elsewhere moves it by tens of percent:
    // its median takes three times the rounds.
    {
      rest: { rounds: 21, runsPerProcess: 10, cliRounds: 21, millionRounds: 3 },
      messages: { rounds: 21, syntheticRounds: 63, burst: 10_000, synthetic: 10_000, flood: 100_000 },
      mount: { rounds: 41, cycles: 100, leakCycles: 1000 },
      ready: { rounds: 40 },
      // A round films two renewals of sessions of 12 s (ahead of expiry, and after it): about half a minute.
      renewal: { rounds: 3 },
      routes: { rounds: 21, leakSwitches: 1000 },
      // A round is six page loads in new tabs (three variants, the bundle at once and 100 ms late).
      firstLoad: { rounds: 21 },
    };

const started = Date.now();
const log = (text) =>
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${text}\n`);

/** Runs one suite; a failure becomes a row that says so, and the other suites still run. */
async function attempt(label, rows, raw, run) {
  try {
    const result = await run();
    rows.push(...result.rows);
    raw[label] = result.raw;
  } catch (err) {
    log(`${label} failed: ${err?.stack ?? err}`);
    rows.push({ figure: label, note: `failed: ${String(err?.message ?? err).split('\n')[0]}`, ok: false });
  }
}

buildIfStale(log);
const rows = [];
const raw = {};
// The load average (1, 5, 15 minutes) at the start and the end says how shared the machine was.
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  node: process.version,
  platform: `${process.platform} ${process.arch}`,
  browsers: {},
  loadAverage: { start: loadavg() },
};
let sizes;

if (only.has('sizes')) {
  sizes = await sizeSuite({ log });
}
if (only.has('rest')) {
  await attempt('rest', rows, raw, () => restSuite({ ...CONFIG.rest, log }));
}
if (only.has('messages') || only.has('lifecycle') || only.has('first-load')) {
  const pages = await startPages({ '/lit-floor.js': await minify(join(root, 'bench/floor/lit-element.js')) });
  try {
    for (const name of browsers) {
      let browser;
      try {
        log(`${name}: starting…`);
        browser = await launch(name);
        machine.browsers[name] = await browser.version();
        const ctx = { browser, name, label: LABELS[name], pages, log };
        if (only.has('messages'))
          await attempt(`messages-${name}`, rows, raw, () => messageSuite({ ...ctx, ...CONFIG.messages }));
        if (only.has('lifecycle') && name !== 'firefox-1p') {
          if (name === 'chromium') {
            await attempt('mount-chromium', rows, raw, () => mountSuite({ ...ctx, ...CONFIG.mount }));
            await attempt('routes-chromium', rows, raw, () => routesSuite({ ...ctx, ...CONFIG.routes }));
          }
          await attempt(`renewal-${name}`, rows, raw, () => renewalSuite({ ...ctx, ...CONFIG.renewal }));
          await attempt(`ready-${name}`, rows, raw, () => readySuite({ ...ctx, ...CONFIG.ready }));
        }
        if (only.has('first-load') && name !== 'firefox-1p')
          await attempt(`first-load-${name}`, rows, raw, () =>
            firstLoadSuite({ ...ctx, ...CONFIG.firstLoad, probes: opts['first-load-probes'] }),
          );
      } catch (err) {
        log(`${name} failed: ${err?.stack ?? err}`);
        rows.push({ figure: name, note: `failed: ${String(err?.message ?? err).split('\n')[0]}`, ok: false });
      } finally {
        await browser?.close().catch(() => {});
      }
    }
  } finally {
    await pages.close();
  }
}

machine.loadAverage.end = loadavg();
const result = {
  date: new Date(started).toISOString(),
  mode: opts.quick ? 'quick' : 'full',
  durationS: Math.round((Date.now() - started) / 1000),
  machine,
  config: CONFIG,
  rows,
  sizes,
  raw,
};
writeFileSync(opts.out, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(table(result));
log(`done in ${result.durationS} s; ${opts.out}`);
