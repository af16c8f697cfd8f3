// Bundle sizes: raw, gzip -9 and brotli (quality 11) of the CDN bundles, of the @lit/reactive-element
// floor built the same way, and of the peers' published bundles, fetched at bench time with `npm pack`
// into bench/.cache/ (never dependencies of the project).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';
import { root } from '../lib/proc.mjs';

const CACHE = join(root, 'bench/.cache');
// The minifier settings of rollup.config.mjs, so that every bundle minified here is minified alike.
const TERSER = { ecma: 2022, module: true, compress: { passes: 2 }, format: { comments: false } };

/**
 * The peers, pinned. `file` is measured as published; with `minify` it is first minified with TERSER;
 * with `bundle` the package's CommonJS entry is first bundled (esbuild, unminified) with its dependencies.
 */
export const PEERS = [
  {
    name: 'Superset embedded SDK',
    pkg: '@superset-ui/embedded-sdk',
    version: '0.4.0',
    file: 'bundle/index.js',
    note: 'a function, no element, no validation',
  },
  { name: 'Looker embed SDK', pkg: '@looker/embed-sdk', version: '2.0.8', file: 'dist/main.js' },
  { name: 'Power BI client', pkg: 'powerbi-client', version: '2.24.1', file: 'dist/powerbi.min.js' },
  {
    name: 'Tableau Embedding API',
    pkg: '@tableau/embedding-api',
    version: '3.16.1',
    file: 'lib/src/EmbeddingApi.js',
    bundle: true,
    minify: true,
    note: 'bundled + minified here',
  },
  {
    name: 'ThoughtSpot visual embed SDK',
    pkg: '@thoughtspot/visual-embed-sdk',
    version: '1.52.0',
    file: 'dist/tsembed.es.js',
    minify: true,
    note: 'minified here',
  },
];

function sizes(code) {
  const buf = Buffer.from(code);
  return {
    raw: buf.length,
    gzip: gzipSync(buf, { level: 9 }).length,
    brotli: brotliCompressSync(buf, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: buf.length },
    }).length,
  };
}

/** `input` bundled with its dependencies and minified like the CDN bundles. */
export async function minify(input, plugins = []) {
  const build = await rollup({ input, plugins: [...plugins, nodeResolve({ browser: true })], onwarn: () => {} });
  try {
    const { output } = await build.generate({ format: 'es', plugins: [terser(TERSER)] });
    return output[0].code;
  } finally {
    await build.close();
  }
}

/** The package unpacked in the cache (npm pack, then tar), or the reason it could not be. */
function unpacked({ pkg, version }) {
  const dir = join(CACHE, 'peers', `${pkg.replace('/', '+')}@${version}`);
  if (existsSync(join(dir, 'package/package.json'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tarball = execFileSync('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', dir], {
    cwd: dir,
    encoding: 'utf8',
  })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['-xzf', join(dir, tarball), '-C', dir]);
  return dir;
}

async function peerCode(peer) {
  const file = join(unpacked(peer), 'package', peer.file);
  if (peer.bundle) {
    const { build } = await import('esbuild');
    const out = join(CACHE, 'peers', `${peer.pkg.replace('/', '+')}.bundle.mjs`);
    await build({
      entryPoints: [file],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      outfile: out,
      logLevel: 'silent',
    });
    return minify(out);
  }
  return peer.minify ? minify(file) : readFileSync(file, 'utf8');
}

export async function sizeSuite({ log, peers = true }) {
  const bundles = [];
  for (const file of ['cdn/svc-embed.min.js', 'cdn/svc-embed.classic.min.js']) {
    if (existsSync(join(root, file))) bundles.push({ name: file, ...sizes(readFileSync(join(root, file))) });
  }
  log('sizes: the @lit/reactive-element floor…');
  const floor = {
    name: '@lit/reactive-element + css + a trivial element (the floor)',
    ...sizes(await minify(join(root, 'bench/floor/floor.js'))),
  };
  const peerSizes = [];
  // A pinned package never changes, so its sizes are kept between runs (keyed by how they were made).
  const cacheFile = join(CACHE, 'peers/sizes.json');
  const cached = existsSync(cacheFile) ? JSON.parse(readFileSync(cacheFile, 'utf8')) : {};
  if (peers) {
    for (const peer of PEERS) {
      const key = JSON.stringify([peer.pkg, peer.version, peer.file, !!peer.bundle, !!peer.minify, TERSER]);
      const entry = { name: peer.name, pkg: `${peer.pkg}@${peer.version}`, file: peer.file, note: peer.note };
      try {
        if (!cached[key]) {
          log(`sizes: ${peer.pkg}@${peer.version}…`);
          cached[key] = sizes(await peerCode(peer));
        }
        peerSizes.push({ ...entry, ...cached[key] });
      } catch (err) {
        peerSizes.push({ ...entry, error: String(err?.message ?? err).split('\n')[0] });
      }
    }
    mkdirSync(join(CACHE, 'peers'), { recursive: true });
    writeFileSync(cacheFile, `${JSON.stringify(cached, null, 2)}\n`);
  }
  return { bundles, floor, peers: peerSizes };
}
