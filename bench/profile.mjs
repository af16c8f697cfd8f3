// `npm run bench:profile`: where the host page's time goes, from V8's sampling profiler in Chromium (CDP
// Profiler), for <svc-embed> and each floor the bench compares it with. It prints a top-down call tree
// per variant, in µs per message or per mount/unmount cycle, and omits branches under 1% of the total.
//
//   npm run bench:profile                          every figure
//   npm run bench:profile -- --only synthetic,burst,cycles
//
// Like the bench, it builds first when dist/ or cdn/ is missing or older than src/.
// The profiler's own sampling slows the page down, so the times are larger than the bench's; what the
// tree shows is the split. The element is profiled from an unminified bundle of the same modules
// (dist/cdn.js), so that its functions keep their names; it runs the same code as cdn/svc-embed.min.js.
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { rollup } from 'rollup';
import { launch, openHost } from './lib/browsers.mjs';
import { startPages } from './lib/pages-server.mjs';
import { buildIfStale, root } from './lib/proc.mjs';
import { minify } from './suites/sizes.mjs';

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string', default: 'burst,synthetic,cycles' },
    interval: { type: 'string', default: '50' },
  },
});

// What each figure runs, per variant, and how many units (messages or cycles) one run has.
const FIGURES = {
  burst: { variants: ['bare', 'dispatch', 'validate', 'element'], unit: 'message', n: 10_000, runs: 3, setup: true,
    run: (page, n) => page.evaluate((n) => window.bench.burst(n), n) },
  synthetic: { variants: ['dispatch', 'validate', 'element'], unit: 'message', n: 20_000, runs: 3, setup: true,
    run: (page, n) => page.evaluate((n) => window.bench.synthetic(n), n) },
  cycles: { variants: ['bare', 'lit', 'element'], unit: 'cycle', n: 200, runs: 3, setup: false,
    run: (page, n, variant) => page.evaluate((v, n) => window.bench.cycles(v, n), variant, n) },
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
    const kids = [...node.children.values()].filter((c) => c.label !== '(idle)' && c.us >= total / 100).sort((a, b) => b.us - a.us);
    for (const child of kids) {
      const share = `${((child.us / total) * 100).toFixed(1)}%`.padStart(6);
      lines.push(`${(child.us / units).toFixed(2).padStart(9)} µs ${share}  ${'  '.repeat(depth)}${child.label}`);
      walk(child, depth + 1);
    }
  };
  walk(tree, 0);
  return { total: total / units, lines };
}

const only = opts.only.split(',');
buildIfStale((text) => process.stderr.write(`[profile] ${text}\n`));
const pages = await startPages({
  '/lit-floor.js': await minify(join(root, 'bench/floor/lit-element.js')),
  '/cdn/svc-embed.min.js': await unminified(join(root, 'dist/cdn.js')),
});
const browser = await launch('chromium');
try {
  for (const name of only) {
    const figure = FIGURES[name];
    if (!figure) throw new Error(`unknown figure ${name}: one of ${Object.keys(FIGURES).join(', ')}`);
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
        process.stdout.write(`\n${name}, ${variant}: ${total.toFixed(2)} µs per ${figure.unit} sampled (idle left out)\n${lines.join('\n')}\n`);
      } finally {
        await page.close();
      }
    }
  }
} finally {
  await browser.close();
  await pages.close();
}
