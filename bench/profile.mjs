// `npm run bench:profile`: where the time goes, from V8's sampling profiler, for <svc-embed>, the REST
// client and each floor the bench compares them with (bench/README.md).
// - Chromium (CDP Profiler in the host page): a top-down call tree per variant, in µs per message or per
//   mount/unmount cycle, without the branches under 1% of the total.
// - Node (`rest`): the client's work is spread over many async continuations, so the self time per listing
//   by where the code is (the client, fetch, Node, V8, the natives), and the client's own functions.
//
// - Node (`cli`): `svc-embed recipients` and its raw loop, each a process of its own under `node --cpu-prof`, at
//   10,000 recipients (--format json) and at 1,000,000 (json, ndjson, csv): the functions with the most self time.
//
//   npm run bench:profile                          every figure but cli
//   npm run bench:profile -- --only synthetic,burst,cycles,rest,cli --interval 50
//
// Like the bench, it builds first when dist/ or cdn/ is missing or older than src/. Sampling slows the
// code down, so the times are larger than the bench's; what the profile shows is the split. The element is
// profiled from an unminified bundle of the same modules (dist/cdn.js), so that its functions keep their
// names; it runs the same code as cdn/svc-embed.min.js.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { rollup } from 'rollup';
import { launch, openHost } from './lib/browsers.mjs';
import { startPages } from './lib/pages-server.mjs';
import { buildIfStale, root, runNode, startServer } from './lib/proc.mjs';
import { minify } from './suites/sizes.mjs';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string', default: 'burst,synthetic,cycles,rest' },
    interval: { type: 'string', default: '50' },
  },
});

// What each figure runs, per variant, and how many units (messages or cycles) one run has.
const FIGURES = {
  burst: {
    variants: ['bare', 'dispatch', 'validate', 'element'],
    unit: 'message',
    n: 10_000,
    runs: 3,
    setup: true,
    run: (page, n) => page.evaluate((n) => window.bench.burst(n), n),
  },
  synthetic: {
    variants: ['dispatch', 'validate', 'element'],
    unit: 'message',
    n: 20_000,
    runs: 3,
    setup: true,
    run: (page, n) => page.evaluate((n) => window.bench.synthetic(n), n),
  },
  cycles: {
    variants: ['bare', 'lit', 'element'],
    unit: 'cycle',
    n: 200,
    runs: 3,
    setup: false,
    run: (page, n, variant) => page.evaluate((v, n) => window.bench.cycles(v, n), variant, n),
  },
};

async function unminified(input) {
  const build = await rollup({ input, plugins: [nodeResolve({ browser: true })], onwarn: () => {} });
  try {
    return (await build.generate({ format: 'es' })).output[0].code;
  } finally {
    await build.close();
  }
}

/** A call frame's name as the tree shows it: the function, and the file it is in. */
function label({ functionName, url }) {
  // The harness's own evaluations come as pptr: URLs of a few hundred characters.
  const file = url.startsWith('pptr:') ? 'harness' : url.slice(url.lastIndexOf('/') + 1);
  return file ? `${functionName || '(anonymous)'}  ${file}` : functionName || '(anonymous)';
}

/**
 * The profile as a tree of labels (calls of one function from one place merged), each node with the
 * sampled time under it, in µs.
 */
function callTree(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + profile.timeDeltas[i]));
  const build = (node) => {
    const tree = { label: label(node.callFrame), us: self.get(node.id) ?? 0, children: new Map() };
    for (const id of node.children ?? []) {
      const child = build(byId.get(id));
      const same = tree.children.get(child.label);
      if (same) merge(same, child);
      else tree.children.set(child.label, child);
      tree.us += child.us;
    }
    return tree;
  };
  return build(profile.nodes[0]);
}

function merge(into, from) {
  into.us += from.us;
  for (const [key, child] of from.children) {
    const same = into.children.get(key);
    if (same) merge(same, child);
    else into.children.set(key, child);
  }
}

function print(tree, units) {
  const total = tree.us - (tree.children.get('(idle)')?.us ?? 0);
  const lines = [];
  const walk = (node, depth) => {
    const kids = [...node.children.values()]
      .filter((c) => c.label !== '(idle)' && c.us >= total / 100)
      .sort((a, b) => b.us - a.us);
    for (const child of kids) {
      const share = `${((child.us / total) * 100).toFixed(1)}%`.padStart(6);
      lines.push(`${(child.us / units).toFixed(2).padStart(9)} µs ${share}  ${'  '.repeat(depth)}${child.label}`);
      walk(child, depth + 1);
    }
  };
  walk(tree, 0);
  return { total: total / units, lines };
}

/** Where a sampled function's code is, for the REST profile. */
function place({ functionName, url }) {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(program)') return 'V8 and native code outside any JS function';
  if (url.includes('/packages/api/dist/')) return 'the client (packages/api/dist/)';
  if (url.includes('/bench/rest/')) return "the bench's own loop (bench/rest/)";
  if (url.includes('undici')) return 'fetch (undici)';
  if (url.startsWith('node:')) return 'Node (streams, timers, events, buffers)';
  return url ? 'other JavaScript' : `native: ${functionName}`;
}

/** The REST client and its floors, each listing 10 times after 4 warm-ups in a process of its own. */
async function profileRest() {
  const server = await startServer(join(root, 'bench/rest/server.mjs'));
  const dir = await mkdtemp(join(tmpdir(), 'svc-embed-profile-'));
  const runs = 10;
  try {
    for (const variant of ['raw', 'raw-api', 'client']) {
      const out = join(dir, `${variant}.cpuprofile`);
      await runNode([
        join(root, 'bench/rest/inproc.mjs'),
        `${server.origin}/api`,
        variant,
        '4',
        String(runs),
        out,
        opts.interval,
      ]);
      const profile = JSON.parse(await readFile(out, 'utf8'));
      const byPlace = new Map();
      const own = new Map();
      let total = 0;
      const byId = new Map(profile.nodes.map((node) => [node.id, node]));
      profile.samples.forEach((id, i) => {
        const frame = byId.get(id).callFrame;
        if (frame.functionName === '(idle)') return;
        const us = profile.timeDeltas[i];
        total += us;
        const where = place(frame);
        byPlace.set(where, (byPlace.get(where) ?? 0) + us);
        if (where.startsWith('the client')) own.set(label(frame), (own.get(label(frame)) ?? 0) + us);
      });
      const ms = (us) =>
        `${(us / runs / 1000).toFixed(2).padStart(7)} ms ${`${((us / total) * 100).toFixed(1)}%`.padStart(6)}`;
      const lines = [...byPlace]
        .filter(([, us]) => us >= total / 100)
        .sort((a, b) => b[1] - a[1])
        .map(([where, us]) => `${ms(us)}  ${where}`);
      const mine = [...own]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 8)
        .map(([name, us]) => `${ms(us)}    ${name}`);
      process.stdout.write(
        `\nrest, ${variant}: ${(total / runs / 1000).toFixed(2)} ms per listing sampled, self time by where (idle left out)\n` +
          `${lines.join('\n')}\n${mine.length ? `  the client's own functions:\n${mine.join('\n')}\n` : ''}`,
      );
    }
  } finally {
    server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** Self time by function of a .cpuprofile, in ms, the biggest first (idle left out). */
function selfTimes(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id).callFrame;
    if (frame.functionName === '(idle)') return;
    const us = profile.timeDeltas[i] ?? 0;
    total += us;
    self.set(label(frame), (self.get(label(frame)) ?? 0) + us);
  });
  return { total: total / 1000, top: [...self].sort((a, b) => b[1] - a[1]).map(([name, us]) => [name, us / 1000]) };
}

/**
 * `svc-embed recipients` and the raw loop it is measured against, each under `node --cpu-prof` (a process per
 * run, as in the bench): at 10,000 recipients in json, then at 1,000,000 in each streamed format. The sampler
 * counts the time a sample lands in a function, also while the process waits for the CPU: on a loaded machine,
 * read the split, and the bench's child CPU for the cost.
 */
async function profileCli() {
  const { TOKEN } = await import('./rest/common.mjs');
  const dir = await mkdtemp(join(tmpdir(), 'svc-embed-profile-'));
  const cli = (format) => [
    join(root, 'packages/api/dist/cli.js'),
    ...['recipients', '--deployment', '1', '--notification', '1', '--first', '200', '--format', format],
  ];
  const cases = [
    [10_000, 'json', [join(root, 'bench/rest/raw-cli.mjs')]],
    ...['json', 'ndjson', 'csv'].map((f) => [1_000_000, f, [join(root, 'bench/rest/raw-stream.mjs'), f]]),
  ];
  try {
    for (const count of [10_000, 1_000_000]) {
      const server = await startServer(join(root, 'bench/rest/server.mjs'), [String(count)]);
      const env = { ...process.env, SVC_API_TOKEN: TOKEN, SVC_BASE_URL: `${server.origin}/api` };
      try {
        for (const [n, format, raw] of cases.filter(([n]) => n === count)) {
          for (const [variant, args] of [
            ['svc-embed', cli(format)],
            ['raw loop', raw],
          ]) {
            const out = join(dir, `${variant}-${n}-${format}`);
            const flags = ['--cpu-prof', '--cpu-prof-dir', out, '--cpu-prof-interval', opts.interval];
            // stdout is a pipe, as in the bench, and drained: a million recipients are hundreds of MB.
            const child = spawn(process.execPath, [...flags, ...args], {
              cwd: root,
              env,
              stdio: ['ignore', 'pipe', 'ignore'],
            });
            child.stdout.resume();
            const [code] = await once(child, 'close');
            if (code !== 0) throw new Error(`${variant} --format ${format} exited with ${code}`);
            const [file] = await readdir(out);
            const { total, top } = selfTimes(JSON.parse(await readFile(join(out, file), 'utf8')));
            const lines = top
              .slice(0, 12)
              .map(
                ([name, ms]) =>
                  `${ms.toFixed(1).padStart(9)} ms ${`${((ms / total) * 100).toFixed(1)}%`.padStart(6)}  ${name}`,
              );
            process.stdout.write(
              `\ncli, ${variant}, ${n.toLocaleString('en')} recipients, --format ${format}: ${total.toFixed(0)} ms sampled, ` +
                `the most self time (idle left out)\n${lines.join('\n')}\n`,
            );
          }
        }
      } finally {
        server.stop();
      }
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const only = opts.only.split(',');
const unknown = only.filter((name) => name !== 'rest' && name !== 'cli' && !FIGURES[name]);
if (unknown.length)
  throw new Error(
    `unknown figure ${unknown.join(', ')}: one of ${[...Object.keys(FIGURES), 'rest', 'cli'].join(', ')}`,
  );
buildIfStale((text) => process.stderr.write(`[profile] ${text}\n`));

/** Profiles the browser figures of `names` in one Chromium. */
async function profileBrowser(names) {
  const pages = await startPages({
    '/lit-floor.js': await minify(join(root, 'bench/floor/lit-element.js')),
    '/cdn/svc-embed.min.js': await unminified(join(root, 'dist/cdn.js')),
  });
  let browser;
  try {
    browser = await launch('chromium');
    for (const name of names) {
      const figure = FIGURES[name];
      for (const variant of figure.variants) {
        const page = await openHost(browser, pages, figure.setup ? variant : undefined);
        try {
          const cdp = await page.createCDPSession();
          // Warm up: the code is optimised before the profile starts.
          for (let i = 0; i < 2; i++) await figure.run(page, figure.n, variant);
          await cdp.send('Profiler.enable');
          await cdp.send('Profiler.setSamplingInterval', { interval: Number(opts.interval) });
          await cdp.send('Profiler.start');
          for (let i = 0; i < figure.runs; i++) await figure.run(page, figure.n, variant);
          const { profile } = await cdp.send('Profiler.stop');
          const { total, lines } = print(callTree(profile), figure.n * figure.runs);
          process.stdout.write(
            `\n${name}, ${variant}: ${total.toFixed(2)} µs per ${figure.unit} sampled (idle left out)\n${lines.join('\n')}\n`,
          );
        } finally {
          await page.close();
        }
      }
    }
  } finally {
    await browser?.close();
    await pages.close();
  }
}

const inBrowser = only.filter((name) => name !== 'rest' && name !== 'cli');
if (inBrowser.length) await profileBrowser(inBrowser);
if (only.includes('rest')) await profileRest();
if (only.includes('cli')) await profileCli();
