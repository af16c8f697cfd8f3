// A web-test-runner plugin for the framework tests (test/browser/{react,preact,vue,svelte}.test.ts).
// - Serves each module under test/browser/fixtures/ as one browser bundle made by esbuild: React ships
//   CommonJS only, Vue's template compiler wants build flags, and .svelte files need the Svelte compiler.
//   The element's own modules (src/) stay out of the bundles and load as the other tests load them, so the page
//   registers one element class. @svc-embed/react is bundled: it imports React, which only a bundle can give.
// - Renders a fixture on the server, in a Node process of its own (Lit's DOM shim and the frameworks stay out of
//   this one), as a framework's server would: GET /__frameworks/ssr/<name>?props=<JSON> runs
//   fixtures/<name>-server.ts(x), which prints the HTML.
import { build } from 'esbuild';
import { compile } from 'svelte/compiler';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { promisify } from 'node:util';

const root = new URL('../../', import.meta.url).pathname;
const src = join(root, 'src') + sep;
const FIXTURES = '/test/browser/fixtures/';

/** Compiles .svelte files, for the client or the server. */
const svelte = (generate) => ({
  name: 'svelte',
  setup(b) {
    b.onLoad({ filter: /\.svelte$/ }, async ({ path }) => ({
      contents: compile(await readFile(path, 'utf8'), { filename: path, generate }).js.code,
      loader: 'js',
      resolveDir: dirname(path),
    }));
  },
});

/**
 * Leaves the element's modules to the dev server (by the URL the other tests load them from), whether a fixture
 * imports them by path or, as @svc-embed/react does, by the package name `svc-embed`.
 */
const elementFromDevServer = {
  name: 'element-from-dev-server',
  setup(b) {
    b.onResolve({ filter: /^svc-embed$/ }, () => ({ path: '/src/index.ts', external: true }));
    b.onResolve({ filter: /^svc-embed\/prerender$/ }, () => ({ path: '/src/prerender.ts', external: true }));
    b.onResolve({ filter: /^\.\.?\/.*\.js$/ }, ({ path, resolveDir }) => {
      const file = join(resolveDir, path).replace(/\.js$/, '.ts');
      if (!file.startsWith(src) || !existsSync(file)) return undefined;
      return { path: '/' + relative(root, file).split(sep).join('/'), external: true };
    });
  },
};

const common = {
  bundle: true,
  format: 'esm',
  target: 'es2022',
  jsx: 'automatic',
  tsconfig: join(root, 'tsconfig.json'),
  logLevel: 'silent',
  write: false,
};

async function browserBundle(entry) {
  const result = await build({
    ...common,
    entryPoints: [entry],
    platform: 'browser',
    // The full Vue build, whose runtime compiler reads templates and `isCustomElement`.
    alias: { vue: 'vue/dist/vue.esm-bundler.js' },
    define: {
      'process.env.NODE_ENV': '"development"',
      __VUE_OPTIONS_API__: 'true',
      __VUE_PROD_DEVTOOLS__: 'false',
      __VUE_PROD_HYDRATION_MISMATCH_DETAILS__: 'false',
    },
    plugins: [svelte('client'), elementFromDevServer],
  });
  return result.outputFiles[0].text;
}

// Inside node_modules, so the server entries find their packages; one directory per run, so that runs side by
// side never read each other's builds.
const cache = join(root, 'node_modules/.cache/svc-embed-tests', String(process.pid));
const servers = new Map();
/** Builds a fixture's server entry for Node, once per run. */
function serverEntry(name) {
  const source = ['.ts', '.tsx'].map((ext) => join(root, FIXTURES, `${name}-server${ext}`)).find(existsSync);
  if (!source) throw new Error(`no server fixture named ${name}`);
  const outfile = join(cache, `${name}-server.mjs`);
  if (!servers.has(name)) {
    servers.set(
      name,
      build({
        ...common,
        entryPoints: [source],
        platform: 'node',
        packages: 'external',
        write: true,
        outfile,
        plugins: [svelte('server')],
      }).then(() => outfile),
    );
  }
  return servers.get(name);
}

export function frameworksPlugin() {
  return {
    name: 'svc-embed-frameworks',
    async serverStop() {
      await rm(cache, { recursive: true, force: true });
    },
    async serve(context) {
      const ssr = /^\/__frameworks\/ssr\/([a-z]+)$/.exec(context.path);
      if (ssr) {
        const props = context.URL.searchParams.get('props');
        const { stdout } = await promisify(execFile)(process.execPath, [await serverEntry(ssr[1]), props], {
          cwd: root,
        });
        return { body: stdout, type: 'text/plain' };
      }
      // A fixture imported as ./fixtures/x.js: x.ts (which the esbuild plugin may already have named) or x.tsx.
      if (!context.path.startsWith(FIXTURES) || !/\.(js|tsx?)$/.test(context.path)) return undefined;
      const base = join(root, context.path.slice(1).replace(/\.(js|tsx?)$/, ''));
      const entry = ['.ts', '.tsx'].map((ext) => base + ext).find(existsSync);
      return entry ? { body: await browserBundle(entry), type: 'js' } : undefined;
    },
  };
}
