// `npm run check:apps [-- next nuxt …]`: each framework page followed as a new user would, on today's starters.
// For every framework it writes a fresh app (the starter's files, written here: no template is downloaded), puts
// in the code blocks of the framework's page as the page says, installs the packed tarballs of this repository
// plus the framework from the npm registry, runs the framework's type check and production build, serves the
// build and loads it in headless Chromium against the simulated tenant. Where docs/history.md has a recipe for the
// framework's router, the app also has that recipe as a page of its own (/history), and the check drives it: two
// clicks in the embed (the host URL's parameter follows, one entry each), Back (the embed follows the parameter),
// and a reload (the embed opens at the parameter's path, with no entry added). It ends with a table.
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
  // React Router 8 needs Node 22.
  reactRouter: '7.18.7',
  vueRouter: '5.6.1',
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
function angularApp({ core, cli, typescript, zoneless, router = false }) {
  const change = zoneless ? 'provideZonelessChangeDetection' : 'provideZoneChangeDetection';
  // The root shows what the page's component received from its (svcReady) output, so the check sees the outputs
  // work as well as the inputs.
  const home = (selector, name) =>
    `import { Component, viewChild } from '@angular/core';\nimport { SalesComponent } from './sales.component';\n\n@Component({\n  selector: '${selector}',\n  imports: [SalesComponent],\n  template: '<app-sales /><output id="ready-mode">{{ sales()?.mode }}</output>',\n})\nexport class ${name} {\n  sales = viewChild(SalesComponent);\n}\n`;
  // With the router: the page's app at /, and the Angular Router recipe of docs/history.md at /history.
  const routed = () => ({
    'src/main.ts': `import { bootstrapApplication } from '@angular/platform-browser';\nimport { ${change} } from '@angular/core';\nimport { provideRouter } from '@angular/router';\nimport { App } from './app/app';\nimport { Home } from './app/home';\nimport { SalesComponent as HistorySales } from './app/history-sales.component';\n\nbootstrapApplication(App, {\n  providers: [\n    ${change}(),\n    provideRouter([\n      { path: '', component: Home },\n      { path: 'history', component: HistorySales },\n    ]),\n  ],\n}).catch((err) => console.error(err));\n`,
    'src/app/app.ts': `import { Component } from '@angular/core';\nimport { RouterOutlet } from '@angular/router';\n\n@Component({ selector: 'app-root', imports: [RouterOutlet], template: '<router-outlet />' })\nexport class App {}\n`,
    'src/app/home.ts': home('app-home', 'Home'),
    'src/app/history-sales.component.ts': block('docs/history.md', 'src/app/history-sales.component.ts'),
  });
  const plain = {
    'src/main.ts': `import { bootstrapApplication } from '@angular/platform-browser';\nimport { ${change} } from '@angular/core';\nimport { App } from './app/app';\n\nbootstrapApplication(App, { providers: [${change}()] }).catch((err) => console.error(err));\n`,
    'src/app/app.ts': home('app-root', 'App'),
  };
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
          ...(router ? { '@angular/router': core } : {}),
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
      ...(router ? routed() : plain),
      'src/app/sales.component.ts': block(
        'docs/frameworks/angular.md',
        'checked: test/types/frameworks/angular-package/readme.component.ts',
      ),
    }),
    typecheck: ['ngc', '-p', 'tsconfig.app.json', '--noEmit'],
    build: ['ng', 'build'],
    serve: { dir: 'dist/app/browser', output: '#ready-mode' },
    ...(router ? { history: { router: 'Angular Router', state: ['navigationId'] } } : {}),
  };
}

// Each framework: its page, the files of its starter with the page's blocks where the page puts them, and the
// commands the page (or the starter) runs.
const APPS = {
  'react-vite': {
    label: 'React + Vite',
    versions: { React: 'react', Vite: 'vite', 'React Router': 'react-router' },
    page: 'docs/frameworks/react.md',
    files: () => ({
      'package.json': manifest('react-vite', {
        tarballs: ['@svc-embed/react', 'svc-embed', '@svc-embed/protocol'],
        deps: { react: V.react, 'react-dom': V.react, 'react-router': V.reactRouter },
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
      // The page's app at /, and the React Router recipe of docs/history.md at /history.
      'src/main.tsx': `import { createRoot } from 'react-dom/client';\nimport { BrowserRouter, Route, Routes } from 'react-router';\nimport App from './App';\nimport { Sales as HistorySales } from './HistorySales';\n\ncreateRoot(document.getElementById('root')!).render(\n  <BrowserRouter>\n    <Routes>\n      <Route path="/" element={<App />} />\n      <Route path="/history" element={<HistorySales />} />\n    </Routes>\n  </BrowserRouter>,\n);\n`,
      'src/HistorySales.tsx': block('docs/history.md', 'src/HistorySales.tsx'),
      'src/Sales.tsx': block('docs/frameworks/react.md', 'export function Sales'),
      'src/App.tsx': `import { Sales } from './Sales';\n\nexport default function App() {\n  return (\n    ${block('docs/frameworks/react.md', '<Sales src=').trim()}\n  );\n}\n`,
    }),
    typecheck: ['tsc', '-p', 'tsconfig.app.json'],
    build: ['vite', 'build'],
    serve: { dir: 'dist' },
    // BrowserRouter's own keys in history.state.
    history: { router: 'React Router', state: ['key', 'idx'] },
  },
  'vue-vite': {
    label: 'Vue + Vite',
    versions: { Vue: 'vue', Vite: 'vite', 'Vue Router': 'vue-router' },
    page: 'docs/frameworks/vue.md',
    files: () => ({
      'package.json': manifest('vue-vite', {
        tarballs: ['svc-embed', '@svc-embed/protocol'],
        deps: { vue: V.vue, 'vue-router': V.vueRouter },
        dev: { vite: V.vite, '@vitejs/plugin-vue': V.pluginVue, typescript: V.typescript, 'vue-tsc': V.vueTsc },
      }),
      'index.html': viteIndex('/src/main.ts'),
      'vite.config.ts': block('docs/frameworks/vue.md', 'isCustomElement'),
      'tsconfig.app.json': viteTsconfig('svc-embed/vue', ['src/**/*.ts', 'src/**/*.vue']),
      // The page's app at /, and the Vue Router recipe of docs/history.md at /history.
      'src/main.ts': `import { createApp } from 'vue';\nimport { createRouter, createWebHistory } from 'vue-router';\nimport App from './App.vue';\nimport Home from './Home.vue';\nimport HistorySales from './components/HistorySales.vue';\n\nconst router = createRouter({\n  history: createWebHistory(),\n  routes: [\n    { path: '/', component: Home },\n    { path: '/history', component: HistorySales },\n  ],\n});\n\ncreateApp(App).use(router).mount('#app');\n`,
      'src/App.vue': `<template>\n  <RouterView />\n</template>\n`,
      'src/components/HistorySales.vue': block('docs/history.md', 'src/components/HistorySales.vue'),
      'src/components/Sales.vue': block('docs/frameworks/vue.md', 'checked: test/types/frameworks/vue/Readme.vue'),
      'src/Home.vue': `<script setup lang="ts">\nimport Sales from './components/Sales.vue';\n</script>\n\n<template>\n  ${block('docs/frameworks/vue.md', 'checked: test/types/frameworks/vue/Usage.vue').trim()}\n</template>\n`,
    }),
    typecheck: ['vue-tsc', '-p', 'tsconfig.app.json'],
    build: ['vite', 'build'],
    serve: { dir: 'dist' },
    // Vue Router's own keys in history.state, and its `current` the entry's own URL (not one copied from another).
    history: { router: 'Vue Router', state: ['back', 'current', 'forward', 'position'], url: 'current' },
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
      'src/routes/history/+page.svelte': block('docs/history.md', 'src/routes/history/+page.svelte'),
    }),
    typecheck: ['sh', '-c', 'svelte-kit sync && svelte-check --tsconfig ./tsconfig.json --fail-on-warnings'],
    build: ['vite', 'build'],
    serve: { command: (port) => ['vite', 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'] },
    history: { router: 'SvelteKit', state: ['sveltekit:history', 'sveltekit:navigation'] },
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
      // The layout adds what the router's useSearchParams sees of ?sales=, for the history recipe's check.
      'app/layout.tsx': `import { Suspense } from 'react';\nimport { RouterSees } from './router-sees';\n\nexport default function RootLayout({ children }: { children: React.ReactNode }) {\n  return (\n    <html lang="en">\n      <body>\n        {children}\n        <Suspense>\n          <RouterSees />\n        </Suspense>\n      </body>\n    </html>\n  );\n}\n`,
      'app/router-sees.tsx': `'use client';\nimport { useSearchParams } from 'next/navigation';\n\nexport function RouterSees() {\n  return <output id="router-sees">{useSearchParams().get('sales') ?? ''}</output>;\n}\n`,
      'app/sales.tsx': block('docs/frameworks/next.md', 'checked: test/types/frameworks/react/readme-wrapper.tsx'),
      'app/page.tsx': block('docs/frameworks/next.md', '// app/page.tsx'),
      'app/embed-session.ts': block('docs/frameworks/next.md', '// app/embed-session.ts'),
      'app/history/page.tsx': block('docs/history.md', 'app/history/page.tsx'),
    }),
    typecheck: ['tsc', '--noEmit'],
    build: ['next', 'build'],
    serve: { command: (port) => ['next', 'start', '--hostname', '127.0.0.1', '--port', String(port)] },
    // The router's tree in history.state, and useSearchParams (app/router-sees.tsx, in the layout) following the URL.
    history: { router: 'Next.js App Router', state: ['__NA', '__PRIVATE_NEXTJS_INTERNALS_TREE'], sees: '#router-sees' },
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
  angular: angularApp({ core: V.angular, cli: V.angularCli, typescript: V.typescript, zoneless: true, router: true }),
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

/** Serves the build (a folder, or the framework's own server): resolves with its URL and a `stop()`. */
async function serve(app, cwd) {
  if (app.serve.dir) {
    const server = await serveDir(join(cwd, app.serve.dir));
    return {
      url: `http://127.0.0.1:${server.address().port}/`,
      stop: () => {
        // Chromium keeps its keep-alive sockets open after the tab closes; close() alone would wait for them.
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      },
    };
  }
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
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () => {
      children.delete(child);
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    },
  };
}

/** Opens the served build in Chromium, and waits until `<svc-embed>` reports `ready`. */
async function onScreen(app, url, cwd, browser) {
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
  }
}

// What the history page records in every document it loads: the element's events with the path they name, the
// element's status and history.length when each came, and the URL's parameter then.
const RECORD = () => {
  window.svcSeen = [];
  for (const type of ['svc-view', 'svc-navigate', 'svc-ready'])
    document.addEventListener(
      type,
      (e) => {
        if (e.target.localName !== 'svc-embed') return;
        window.svcSeen.push({
          type,
          path: e.detail?.payload?.path,
          status: e.target.status,
          length: history.length,
          param: new URLSearchParams(location.search).get('sales'),
        });
      },
      true,
    );
};

/**
 * The history recipe's page (/history, with `syncHistory(embed, { param: 'sales' })`), as a viewer uses it: two
 * clicks in the embed, Back, a reload. Resolves with `{ ok }`, or `{ ok: false, why }` at the first step that fails.
 */
async function historyRecipe({ state: keys, sees, url: urlKey }, url, cwd, browser) {
  const tab = await browser.newPage();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const now = () =>
    tab.evaluate(
      (keys, sees, urlKey) => ({
        href: location.href,
        param: new URLSearchParams(location.search).get('sales'),
        length: history.length,
        status: document.querySelector('svc-embed')?.status,
        seen: window.svcSeen,
        // The router's keys that the entry lacks, and the parameter as the router's own hook sees it.
        lost: keys.filter((k) => !(history.state && k in history.state)),
        sees: sees ? (document.querySelector(sees)?.textContent ?? null) : undefined,
        stale: urlKey && history.state?.[urlKey] !== location.pathname + location.search + location.hash,
      }),
      keys,
      sees,
      urlKey,
    );
  /** Throws when the router lost its keys in the entry, or (where the app shows it) does not see the parameter. */
  const router = (state) => {
    if (state.lost.length) throw new Error(`history.state lacks the router's ${state.lost.join(', ')}`);
    if (state.stale) throw new Error(`history.state.${urlKey} is not this entry's URL`);
    if (sees && state.sees !== (state.param ?? ''))
      throw new Error(`the router sees ?sales=${state.sees}, the URL has ${state.param}`);
  };
  /** Polls the page until `predicate(state)` holds; throws with the state and `what` after 20 s. */
  const until = async (what, predicate) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const state = await now();
      if (predicate(state)) return state;
      if (Date.now() > deadline) {
        const { seen, ...rest } = state;
        throw new Error(`${what}: ${JSON.stringify(rest)}, events ${JSON.stringify(seen.slice(-6))}`);
      }
      await sleep(50);
    }
  };
  /** The path the embed last named, by its svc-view or svc-navigate event. */
  const embedAt = (state) => state.seen.filter((e) => e.type !== 'svc-ready').at(-1)?.path;
  /** A viewer's click (a trusted one, through the mouse) on the dashboard's other page tab, inside the frame. */
  const click = async () => {
    const frame = tab.frames().find((f) => f !== tab.mainFrame());
    const other = await frame.waitForSelector('a.tab:not(.active)', { timeout: 10_000 });
    const to = await other.evaluate((a) => a.textContent);
    await other.click();
    return to;
  };
  let step = 'open /history';
  try {
    await tab.evaluateOnNewDocument(RECORD);
    await tab.goto(`${url}history`, { waitUntil: 'load', timeout: 30_000 });
    const start = await until('ready', (s) => s.status === 'ready');
    if (start.param !== null) throw new Error(`the URL has ?sales= before any navigation: ${start.href}`);
    const { length } = start;

    step = 'a click in the embed';
    await click();
    await until('the URL follows with one entry', (s) => s.param === '/details' && s.length === length + 1);
    // Well past the 50 ms within which navigations make one entry.
    await sleep(300);
    router(await now());
    step = 'a second click in the embed';
    await click();
    await until('the URL follows with one entry', (s) => s.param === '/' && s.length === length + 2);
    await sleep(300);
    const clicked = await now();
    if (clicked.length !== length + 2) throw new Error(`${clicked.length - length} entries for 2 clicks`);
    router(clicked);

    step = 'Back';
    const before = clicked.seen.length;
    await tab.evaluate(() => history.back());
    await until(
      'the embed follows the URL to /details',
      (s) =>
        s.param === '/details' && s.seen.slice(before).some((e) => e.path === '/details') && embedAt(s) === '/details',
    );
    await sleep(500);
    const back = await now();
    if (back.param !== '/details' || embedAt(back) !== '/details' || back.length !== length + 2)
      throw new Error(`after Back: ?sales=${back.param}, embed at ${embedAt(back)}, ${back.length - length} entries`);
    router(back);

    step = 'reload';
    await tab.reload({ waitUntil: 'load', timeout: 30_000 });
    const ready = await until('ready after the reload', (s) => s.status === 'ready');
    // svc-ready comes once the embed has viewed the parameter's path.
    const atReady = ready.seen.filter((e) => e.type !== 'svc-ready').at(-1);
    if (atReady?.path !== '/details') throw new Error(`after the reload, ready at ${atReady?.path}, not /details`);
    const frame = tab.frames().find((f) => f !== tab.mainFrame());
    // The frame shows it: the active tab is the dashboard's second page, /details.
    const shown = await frame.$$eval('a.tab', (tabs) => tabs.findIndex((a) => a.classList.contains('active')));
    if (shown !== 1) throw new Error(`after the reload, the frame's tab ${shown} is active, not /details's`);
    await sleep(500);
    const reloaded = await now();
    if (reloaded.href !== back.href || reloaded.length !== back.length || embedAt(reloaded) !== '/details')
      throw new Error(
        `after the reload: ${reloaded.href} (was ${back.href}), ${reloaded.length - back.length} entries added, embed at ${embedAt(reloaded)}`,
      );
    router(reloaded);
    await tab.screenshot({ path: join(cwd, 'history.png') });
    return { ok: true };
  } catch (e) {
    return { ok: false, why: `history recipe, ${step}: ${e.message.split('\n')[0]}` };
  } finally {
    await tab.close();
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
    const row = {
      framework: app.label,
      version: '—',
      typecheck: '—',
      build: '—',
      screen: '—',
      history: '—',
      notes: [],
    };
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
    const server = await serve(app, cwd);
    try {
      const seen = await onScreen(app, server.url, cwd, browser);
      row.screen = seen.ok ? `yes (svc-ready${seen.output ? `; (svcReady) gave mode ${seen.output}` : ''})` : 'NO';
      if (!seen.ok) row.notes.push(seen.why);
      if (app.history && seen.ok) {
        console.log(`[check:apps] ${app.label}: the ${app.history.router} recipe of docs/history.md`);
        const walked = await historyRecipe(app.history, server.url, cwd, browser);
        row.history = walked.ok ? `${app.history.router}: clicks, Back, reload` : 'FAIL';
        if (!walked.ok) row.notes.push(walked.why);
      }
    } finally {
      await server.stop();
    }
  }
} finally {
  await browser.close();
  await tenant.close();
}

const header = ['framework', 'version', 'type check', 'build', 'dashboard on screen', 'history recipe'];
const lines = rows.map((r) => [r.framework, r.version, r.typecheck, r.build, r.screen, r.history]);
console.log(`\n| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
for (const l of lines) console.log(`| ${l.join(' | ')} |`);
for (const r of rows) for (const n of r.notes) console.log(`- ${r.framework}: ${n}`);
const failed = rows.filter((r) => r.notes.length).length;
console.log(`\n${rows.length - failed} of ${rows.length} apps pass (Node ${process.versions.node})`);
process.exitCode = failed ? 1 : 0;
