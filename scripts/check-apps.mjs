// `npm run check:apps [-- next nuxt …]`: each framework page followed as a new user would, on today's starters.
// For every framework it writes a fresh app (the starter's files, written here: no template is downloaded), puts
// in the code blocks of the framework's page as the page says, installs the packed tarballs of this repository
// plus the framework from the npm registry, runs the framework's type check and production build, serves the
// build and loads it in headless Chromium against the simulated tenant. It ends with a table.
// Not part of `npm test`: it installs whole frameworks (about 1 GB, several minutes).
import { spawn } from 'node:child_process';
import {
  createReadStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTenant } from '@svc-embed/tenant';
import { codeBlocks } from '../test/support/markdown.mjs';
import { launch } from '../test/support/browsers.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const ORIGIN_IN_DOCS = 'http://127.0.0.1:8001';
const PLACEHOLDER_URL = 'https://acme.example.com/embed/dashboard/7f3c9a?session=SESSION_ID';

// The newest of each framework that installs, type-checks and builds on Node 20.19 (our floor). Nuxt 4.4 and
// later, SvelteKit 3 and Angular 22 need Node 22.
const V = {
  typescript: '~5.9.3',
  react: '19.3.1',
  typesReact: '^19.3.0',
  vite: '8.3.8',
  pluginReact: '6.3.0',
  pluginVue: '6.0.11',
  vue: '3.5.45',
  vueTsc: '3.3.14',
  next: '16.4.6',
  nuxt: '4.3.1',
  svelte: '5.57.3',
  kit: '2.70.4',
  pluginSvelte: '7.3.1',
  adapterAuto: '7.0.1',
  svelteCheck: '4.7.8',
  angular: '21.2.26',
  angularCli: '21.2.27',
  angular19: '~19.2.0',
};

/** The code of the first block of a docs page whose mark or code contains `text`. */
function block(page, text) {
  const found = codeBlocks(readFileSync(join(root, page), 'utf8')).find(
    (b) => b.mark.includes(text) || b.code.includes(text),
  );
  if (!found) throw new Error(`${page} has no code block with ${text}`);
  return found.code;
}

const json = (value) => JSON.stringify(value, null, 2) + '\n';

/** A package.json naming our tarballs (file: paths) and the framework's pinned versions. */
function manifest(name, { tarballs, deps = {}, dev = {}, scripts = {} }) {
  const ours = Object.fromEntries(tarballs.map((n) => [n, `file:${packed[n]}`]));
  return json({
    name,
    private: true,
    type: 'module',
    scripts,
    dependencies: { ...ours, ...deps },
    devDependencies: dev,
  });
}

const viteIndex = (entry) =>
  `<!doctype html>\n<html lang="en">\n  <head><meta charset="UTF-8" /><title>app</title></head>\n  <body>\n    <div id="app"></div><div id="root"></div>\n    <script type="module" src="${entry}"></script>\n  </body>\n</html>\n`;

/** create-vite's tsconfig.app.json, with the page's `types` entry added to the starter's list. */
const viteTsconfig = (types, include, extra = {}) =>
  json({
    compilerOptions: {
      target: 'es2022',
      lib: ['ES2022', 'DOM', 'DOM.Iterable'],
      module: 'ESNext',
      moduleResolution: 'bundler',
      ...extra,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['vite/client', types],
    },
    include,
  });

/**
 * An Angular CLI app: Angular 21 as \`ng new\` makes it today (zoneless), or Angular 19 as its \`ng new\` made it
 * (zone.js), the oldest major of @svc-embed/angular's peer range.
 */
function angularApp({ core, cli, typescript, zoneless }) {
  const change = zoneless ? 'provideZonelessChangeDetection' : 'provideZoneChangeDetection';
  return {
    label: 'Angular',
    versions: { Angular: '@angular/core' },
    page: 'docs/frameworks/angular.md',
    files: () => ({
      'package.json': manifest('angular', {
        tarballs: ['@svc-embed/angular', 'svc-embed', '@svc-embed/protocol'],
        deps: {
          '@angular/common': core,
          '@angular/compiler': core,
          '@angular/core': core,
          '@angular/platform-browser': core,
          rxjs: '~7.8.0',
          tslib: '^2.3.0',
          ...(zoneless ? {} : { 'zone.js': '~0.15.0' }),
        },
        dev: {
          '@angular/build': cli,
          '@angular/cli': cli,
          '@angular/compiler-cli': core,
          typescript: typescript,
        },
      }),
      'angular.json': json({
        version: 1,
        cli: { analytics: false },
        projects: {
          app: {
            projectType: 'application',
            root: '',
            sourceRoot: 'src',
            architect: {
              build: {
                builder: '@angular/build:application',
                options: {
                  outputPath: 'dist/app',
                  browser: 'src/main.ts',
                  tsConfig: 'tsconfig.app.json',
                  index: 'src/index.html',
                  polyfills: zoneless ? [] : ['zone.js'],
                },
              },
            },
          },
        },
      }),
      'tsconfig.json': json({
        compilerOptions: {
          strict: true,
          skipLibCheck: true,
          isolatedModules: true,
          experimentalDecorators: true,
          target: 'ES2022',
          module: 'preserve',
        },
        angularCompilerOptions: {
          strictInjectionParameters: true,
          strictInputAccessModifiers: true,
          strictTemplates: true,
        },
      }),
      'tsconfig.app.json': json({
        extends: './tsconfig.json',
        compilerOptions: { outDir: './out-tsc/app', types: [] },
        include: ['src/**/*.ts'],
      }),
      'src/index.html': `<!doctype html>\n<html lang="en">\n  <head><meta charset="utf-8" /><title>app</title><base href="/" /></head>\n  <body><app-root></app-root></body>\n</html>\n`,
      'src/main.ts': `import { bootstrapApplication } from '@angular/platform-browser';\nimport { ${change} } from '@angular/core';\nimport { App } from './app/app';\n\nbootstrapApplication(App, { providers: [${change}()] }).catch((err) => console.error(err));\n`,
      // The root shows what the page's component received from its (svcReady) output, so the check sees the
      // outputs work as well as the inputs.
      'src/app/app.ts': `import { Component, viewChild } from '@angular/core';\nimport { SalesComponent } from './sales.component';\n\n@Component({\n  selector: 'app-root',\n  imports: [SalesComponent],\n  template: '<app-sales /><output id="ready-mode">{{ sales()?.mode }}</output>',\n})\nexport class App {\n  sales = viewChild(SalesComponent);\n}\n`,
      'src/app/sales.component.ts': block(
        'docs/frameworks/angular.md',
        'checked: test/types/frameworks/angular-package/readme.component.ts',
      ),
    }),
    typecheck: ['ngc', '-p', 'tsconfig.app.json', '--noEmit'],
    build: ['ng', 'build'],
    serve: { dir: 'dist/app/browser', output: '#ready-mode' },
  };
}

// Each framework: its page, the files of its starter with the page's blocks where the page puts them, and the
// commands the page (or the starter) runs.
const APPS = {
  'react-vite': {
    label: 'React + Vite',
    versions: { React: 'react', Vite: 'vite' },
    page: 'docs/frameworks/react.md',
    files: () => ({
      'package.json': manifest('react-vite', {
        tarballs: ['svc-embed', '@svc-embed/protocol'],
        deps: { react: V.react, 'react-dom': V.react },
        dev: {
          vite: V.vite,
          '@vitejs/plugin-react': V.pluginReact,
          typescript: V.typescript,
          '@types/react': V.typesReact,
          '@types/react-dom': V.typesReact,
        },
      }),
      'index.html': viteIndex('/src/main.tsx'),
      'vite.config.ts': `import { defineConfig } from 'vite';\nimport react from '@vitejs/plugin-react';\n\nexport default defineConfig({ plugins: [react()] });\n`,
      'tsconfig.app.json': viteTsconfig('svc-embed/jsx', ['src'], { jsx: 'react-jsx' }),
      'src/main.tsx': `import { createRoot } from 'react-dom/client';\nimport App from './App';\n\ncreateRoot(document.getElementById('root')!).render(<App />);\n`,
      'src/Sales.tsx': block('docs/frameworks/react.md', 'export function Sales'),
      'src/App.tsx': `import { Sales } from './Sales';\n\nexport default function App() {\n  return (\n    ${block('docs/frameworks/react.md', '<Sales src=').trim()}\n  );\n}\n`,
    }),
    typecheck: ['tsc', '-p', 'tsconfig.app.json'],
    build: ['vite', 'build'],
    serve: { dir: 'dist' },
  },
  'vue-vite': {
    label: 'Vue + Vite',
    versions: { Vue: 'vue', Vite: 'vite' },
    page: 'docs/frameworks/vue.md',
    files: () => ({
      'package.json': manifest('vue-vite', {
        tarballs: ['svc-embed', '@svc-embed/protocol'],
        deps: { vue: V.vue },
        dev: { vite: V.vite, '@vitejs/plugin-vue': V.pluginVue, typescript: V.typescript, 'vue-tsc': V.vueTsc },
      }),
      'index.html': viteIndex('/src/main.ts'),
      'vite.config.ts': block('docs/frameworks/vue.md', 'isCustomElement'),
      'tsconfig.app.json': viteTsconfig('svc-embed/vue', ['src/**/*.ts', 'src/**/*.vue']),
      'src/main.ts': `import { createApp } from 'vue';\nimport App from './App.vue';\n\ncreateApp(App).mount('#app');\n`,
      'src/components/Sales.vue': block('docs/frameworks/vue.md', 'checked: test/types/frameworks/vue/Readme.vue'),
      'src/App.vue': `<script setup lang="ts">\nimport Sales from './components/Sales.vue';\n</script>\n\n<template>\n  ${block('docs/frameworks/vue.md', 'checked: test/types/frameworks/vue/Usage.vue').trim()}\n</template>\n`,
    }),
    typecheck: ['vue-tsc', '-p', 'tsconfig.app.json'],
    build: ['vite', 'build'],
    serve: { dir: 'dist' },
  },
  sveltekit: {
    label: 'SvelteKit',
    versions: { SvelteKit: '@sveltejs/kit', Svelte: 'svelte' },
    page: 'docs/frameworks/svelte.md',
    files: () => ({
      'package.json': manifest('sveltekit', {
        tarballs: ['svc-embed', '@svc-embed/protocol'],
        dev: {
          '@sveltejs/kit': V.kit,
          '@sveltejs/adapter-auto': V.adapterAuto,
          '@sveltejs/vite-plugin-svelte': V.pluginSvelte,
          svelte: V.svelte,
          'svelte-check': V.svelteCheck,
          typescript: V.typescript,
          vite: V.vite,
        },
      }),
      'svelte.config.js': `import adapter from '@sveltejs/adapter-auto';\n\nexport default { kit: { adapter: adapter() } };\n`,
      'vite.config.ts': `import { sveltekit } from '@sveltejs/kit/vite';\nimport { defineConfig } from 'vite';\n\nexport default defineConfig({ plugins: [sveltekit()] });\n`,
      'tsconfig.json': json({
        extends: './.svelte-kit/tsconfig.json',
        compilerOptions: { strict: true, skipLibCheck: true, moduleResolution: 'bundler' },
      }),
      'src/app.html': `<!doctype html>\n<html lang="en">\n  <head><meta charset="utf-8" />%sveltekit.head%</head>\n  <body><div style="display: contents">%sveltekit.body%</div></body>\n</html>\n`,
      // The starter's src/app.d.ts, as the page shows it with the reference line in place.
      'src/app.d.ts': block('docs/frameworks/svelte.md', 'checked: test/types/frameworks/svelte/src/app.d.ts'),
      'src/lib/Sales.svelte': block(
        'docs/frameworks/svelte.md',
        'checked: test/types/frameworks/svelte/src/Readme.svelte',
      ),
      'src/routes/+page.svelte': `<script lang="ts">\n  import Sales from '$lib/Sales.svelte';\n</script>\n\n<Sales src="${ORIGIN_IN_DOCS}/embed/dashboard/sales-overview?session=demo-acme" />\n`,
    }),
    typecheck: ['sh', '-c', 'svelte-kit sync && svelte-check --tsconfig ./tsconfig.json --fail-on-warnings'],
    build: ['vite', 'build'],
    serve: { command: (port) => ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'] },
  },
  next: {
    label: 'Next.js',
    versions: { 'Next.js': 'next', React: 'react' },
    page: 'docs/frameworks/next.md',
    files: () => ({
      'package.json': manifest('next', {
        tarballs: ['@svc-embed/react', 'svc-embed', '@svc-embed/protocol'],
        deps: { next: V.next, react: V.react, 'react-dom': V.react },
        dev: {
          typescript: V.typescript,
          '@types/react': V.typesReact,
          '@types/react-dom': V.typesReact,
          '@types/node': '^20.19.0',
        },
      }),
      // create-next-app 16's config: Cache Components on.
      'next.config.ts': `import type { NextConfig } from 'next';\n\nconst nextConfig: NextConfig = { cacheComponents: true };\n\nexport default nextConfig;\n`,
      'tsconfig.json': json({
        compilerOptions: {
          target: 'ES2017',
          lib: ['dom', 'dom.iterable', 'esnext'],
          allowJs: true,
          skipLibCheck: true,
          strict: true,
          noEmit: true,
          esModuleInterop: true,
          module: 'esnext',
          moduleResolution: 'bundler',
          resolveJsonModule: true,
          isolatedModules: true,
          jsx: 'react-jsx',
          incremental: true,
          plugins: [{ name: 'next' }],
          paths: { '@/*': ['./*'] },
        },
        include: ['next-env.d.ts', '**/*.ts', '**/*.tsx', '.next/types/**/*.ts', '.next/dev/types/**/*.ts'],
        exclude: ['node_modules'],
      }),
      'next-env.d.ts': `/// <reference types="next" />\n/// <reference types="next/image-types/global" />\n`,
      '.env.local': `SVC_TENANT_ORIGIN=${ORIGIN_IN_DOCS}\nSVC_API_KEY=demo-admin-key\n`,
      'app/layout.tsx': `export default function RootLayout({ children }: { children: React.ReactNode }) {\n  return (\n    <html lang="en">\n      <body>{children}</body>\n    </html>\n  );\n}\n`,
      'app/sales.tsx': block('docs/frameworks/next.md', 'checked: test/types/frameworks/react/readme-wrapper.tsx'),
      'app/page.tsx': block('docs/frameworks/next.md', '// app/page.tsx'),
      'app/embed-session.ts': block('docs/frameworks/next.md', '// app/embed-session.ts'),
    }),
    typecheck: ['tsc', '--noEmit'],
    build: ['next', 'build'],
    serve: { command: (port) => ['next', 'start', '--hostname', '127.0.0.1', '--port', String(port)] },
  },
  nuxt: {
    label: 'Nuxt 4',
    versions: { Nuxt: 'nuxt', Vue: 'vue' },
    page: 'docs/frameworks/nuxt.md',
    files: () => ({
      'package.json': manifest('nuxt', {
        tarballs: ['svc-embed', '@svc-embed/protocol'],
        deps: { nuxt: V.nuxt, vue: V.vue },
        dev: { typescript: V.typescript, 'vue-tsc': V.vueTsc },
      }),
      'nuxt.config.ts': block('docs/frameworks/nuxt.md', 'defineNuxtConfig'),
      // Nuxt 4's root tsconfig lists references only.
      'tsconfig.json': json({
        files: [],
        references: [
          { path: './.nuxt/tsconfig.app.json' },
          { path: './.nuxt/tsconfig.server.json' },
          { path: './.nuxt/tsconfig.shared.json' },
          { path: './.nuxt/tsconfig.node.json' },
        ],
      }),
      'app/plugins/svc-embed.client.ts': block('docs/frameworks/nuxt.md', 'defineNuxtPlugin'),
      'app/components/Sales.vue': block('docs/frameworks/vue.md', 'checked: test/types/frameworks/vue/Readme.vue'),
      'app/app.vue': `<template>\n  ${block('docs/frameworks/vue.md', 'checked: test/types/frameworks/vue/Usage.vue').trim()}\n</template>\n`,
    }),
    typecheck: ['nuxt', 'typecheck'],
    build: ['nuxt', 'build'],
    serve: {
      command: () => ['node', '.output/server/index.mjs'],
      env: (port) => ({ PORT: String(port), HOST: '127.0.0.1' }),
    },
  },
  angular: angularApp({ core: V.angular, cli: V.angularCli, typescript: V.typescript, zoneless: true }),
  'angular-19': angularApp({ core: V.angular19, cli: V.angular19, typescript: '~5.8.3', zoneless: false }),
};

const packed = {};
/** The processes this script started and has not seen end: each leads a process group of its own. */
const children = new Set();

function run(cmd, args, { cwd, env = {}, log }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, PATH: `${join(cwd, 'node_modules/.bin')}:${process.env.PATH}`, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', (e) => (output += String(e)));
    child.on('close', (code) => {
      children.delete(child);
      writeFileSync(log, `$ ${cmd} ${args.join(' ')}\n${output}`);
      resolve({ code, output, seconds: Math.round((Date.now() - started) / 1000) });
    });
  });
}

const QUIET = {
  NO_COLOR: '1',
  CI: '1',
  NEXT_TELEMETRY_DISABLED: '1',
  NUXT_TELEMETRY_DISABLED: '1',
  NG_CLI_ANALYTICS: 'false',
};

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** A static server for a build folder, with index.html for every path that is not a file. */
function serveDir(dir) {
  const server = createServer((req, res) => {
    let file = normalize(join(dir, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
    if (!file.startsWith(dir) || !existsSync(file) || statSync(file).isDirectory()) file = join(dir, 'index.html');
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

async function freePort() {
  const s = createServer();
  await new Promise((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address();
  await new Promise((resolve) => s.close(resolve));
  return port;
}

/** Serves the build, opens it in Chromium, and waits until `<svc-embed>` reports `ready`. */
async function onScreen(app, cwd, browser) {
  let stop;
  let url;
  if (app.serve.dir) {
    const server = await serveDir(join(cwd, app.serve.dir));
    url = `http://127.0.0.1:${server.address().port}/`;
    stop = () => {
      // Chromium keeps its keep-alive sockets open after the tab closes; close() alone would wait for them.
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    };
  } else {
    const port = await freePort();
    const [cmd, ...args] = app.serve.command(port);
    const child = spawn(cmd, args, {
      cwd,
      detached: true,
      stdio: 'ignore',
      env: {
        ...process.env,
        PATH: `${join(cwd, 'node_modules/.bin')}:${process.env.PATH}`,
        ...QUIET,
        ...app.serve.env?.(port),
      },
    });
    children.add(child);
    url = `http://127.0.0.1:${port}/`;
    stop = () => {
      children.delete(child);
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    };
  }
  const tab = await browser.newPage();
  try {
    for (let i = 0; ; i++) {
      try {
        await tab.goto(url, { waitUntil: 'load', timeout: 10_000 });
        break;
      } catch (e) {
        if (i === 30) throw e;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    await tab.waitForFunction(() => document.querySelector('svc-embed')?.status === 'ready', { timeout: 30_000 });
    const output = app.serve.output
      ? await tab.waitForFunction(
          (sel) => document.querySelector(sel)?.textContent.trim(),
          { timeout: 10_000 },
          app.serve.output,
        )
      : undefined;
    await tab.screenshot({ path: join(cwd, 'on-screen.png') });
    return { ok: true, output: await output?.jsonValue() };
  } catch (e) {
    const status = await tab
      .evaluate(() => document.querySelector('svc-embed')?.status ?? 'no <svc-embed>')
      .catch(() => '?');
    return { ok: false, why: `${e.message.split('\n')[0]} (status: ${status})` };
  } finally {
    await tab.close();
    await stop();
  }
}

const chosen = process.argv.slice(2).length ? process.argv.slice(2) : Object.keys(APPS);
for (const id of chosen) if (!APPS[id]) throw new Error(`unknown app ${id}; one of ${Object.keys(APPS).join(', ')}`);

const work = process.env.CHECK_APPS_DIR || mkdtempSync(join(tmpdir(), 'svc-embed-apps-'));
mkdirSync(work, { recursive: true });
console.log(`[check:apps] apps in ${work}`);

const tarDir = join(work, 'tarballs');
mkdirSync(tarDir, { recursive: true });
for (const args of [[], ['--workspaces']]) {
  const r = await run('npm', ['pack', '--json', '--pack-destination', tarDir, ...args], {
    cwd: root,
    log: join(work, 'pack.log'),
  });
  if (r.code !== 0) throw new Error(`npm pack failed:\n${r.output}`);
  for (const t of JSON.parse(r.output.slice(r.output.indexOf('[')))) packed[t.name] = join(tarDir, t.filename);
}

const tenant = await startTenant({ latency: false });
const browser = await launch('chromium', { handleSIGINT: false, handleSIGTERM: false });
// Ctrl-C or a kill stops the running step, the browser and the tenant too.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    for (const child of children) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    await browser.close().catch(() => {});
    await tenant.close().catch(() => {});
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}
const rows = [];
try {
  for (const id of chosen) {
    const app = APPS[id];
    const cwd = join(work, id);
    const row = { framework: app.label, version: '—', typecheck: '—', build: '—', screen: '—', notes: [] };
    rows.push(row);
    console.log(`[check:apps] ${app.label}: writing the app from ${app.page}`);
    rmSync(cwd, { recursive: true, force: true });
    for (const [path, text] of Object.entries(app.files())) {
      mkdirSync(dirname(join(cwd, path)), { recursive: true });
      writeFileSync(
        join(cwd, path),
        text
          .replaceAll(ORIGIN_IN_DOCS, tenant.origin)
          .replaceAll(PLACEHOLDER_URL, `${tenant.origin}/embed/dashboard/sales-overview?session=demo-acme`),
      );
    }
    const step = async (name, cmd, args) => {
      console.log(`[check:apps] ${app.label}: ${name} (${[cmd, ...args].join(' ')})`);
      const r = await run(cmd, args, { cwd, env: QUIET, log: join(cwd, `${name}.log`) });
      if (r.code !== 0) {
        row.notes.push(`${name} failed, see ${join(cwd, `${name}.log`)}`);
        console.log(r.output.split('\n').slice(-25).join('\n'));
      }
      return r;
    };
    const install = await step('install', 'npm', ['install', '--no-audit', '--no-fund', '--prefer-offline']);
    if (install.code !== 0) {
      row.typecheck = row.build = 'not run';
      continue;
    }
    // The versions as installed, read from node_modules.
    row.version = Object.entries(app.versions)
      .map(
        ([name, pkg]) =>
          `${name} ${JSON.parse(readFileSync(join(cwd, 'node_modules', pkg, 'package.json'), 'utf8')).version}`,
      )
      .join(', ');
    const typecheck = await step('typecheck', app.typecheck[0], app.typecheck.slice(1));
    row.typecheck = `${typecheck.code === 0 ? 'pass' : 'FAIL'} (${typecheck.seconds} s)`;
    const build = await step('build', app.build[0], app.build.slice(1));
    row.build = `${build.code === 0 ? 'pass' : 'FAIL'} (${build.seconds} s)`;
    if (build.code !== 0) continue;
    console.log(`[check:apps] ${app.label}: on screen`);
    const seen = await onScreen(app, cwd, browser);
    row.screen = seen.ok ? `yes (svc-ready${seen.output ? `; (svcReady) gave mode ${seen.output}` : ''})` : 'NO';
    if (!seen.ok) row.notes.push(seen.why);
  }
} finally {
  await browser.close();
  await tenant.close();
}

const header = ['framework', 'version', 'type check', 'build', 'dashboard on screen'];
const lines = rows.map((r) => [r.framework, r.version, r.typecheck, r.build, r.screen]);
console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const l of lines) console.log(`| ${l.join(' | ')} |`);
for (const r of rows) for (const n of r.notes) console.log(`- ${r.framework}: ${n}`);
const failed = rows.filter((r) => r.notes.length).length;
console.log(`\n${rows.length - failed} of ${rows.length} apps pass (Node ${process.versions.node})`);
process.exitCode = failed ? 1 : 0;
