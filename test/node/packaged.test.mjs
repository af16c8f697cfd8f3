// Every package as a user installs it: the tarballs of `npm pack` (the root) and `npm pack --workspaces`,
// each package installed alone into an empty project, with only the local tarballs it depends on beside it.
// - svc-embed: at most 4 packages in `npm ls --all`, none a server, a cookie library or @types/*; its
//   testing kit imports in Node and its typings compile;
// - @svc-embed/api: neither Lit nor Koa; `npx svc-embed recipients --help`, and `svc-embed tenant` points on;
// - @svc-embed/tenant: `npx svc-embed-tenant --port 0` serves the dashboard embed and stops at Ctrl-C;
// - @svc-embed/react: a React app bundled from the installed packages renders and hears svc-ready;
// - @svc-embed/angular: besides Angular, at most the element's 4 packages and itself.
// Reports each package's footprint: the `npm ls --all` count and the bytes of node_modules.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';
import puppeteer from 'puppeteer-core';
import { startTenant } from '@svc-embed/tenant';
import { runToEnd, startUntil } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const LIMIT_MS = 300_000;
const CHROME_PATH = process.env.CHROME_PATH || '/usr/lib/chromium/chromium';
const version = (name) => JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
let dir;
/** Tarball file names by package name. */
const tarballs = {};
/** The project directory of each check. */
const projects = {};
const running = new Set();

const sh = (command, args, cwd) => runToEnd(command, args, { cwd, timeout: LIMIT_MS });

/** Bytes of every file under `path` (symbolic links not followed). */
function bytes(path) {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s?.isDirectory()) return s?.size ?? 0;
  return readdirSync(path).reduce((sum, name) => sum + bytes(join(path, name)), 0);
}

const MB = (n) => `${(n / 1e6).toFixed(2)} MB`;

/** An empty project with `packages` (tarball names or registry specs) installed. */
async function project(name, packages) {
  const path = join(dir, name);
  mkdirSync(path);
  writeFileSync(
    join(path, 'package.json'),
    JSON.stringify({ name: `packaged-${name}`, private: true, type: 'module' }),
  );
  const specs = packages.map((p) => (tarballs[p] ? join(dir, tarballs[p]) : p));
  const installed = await sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', ...specs], path);
  assert.equal(installed.code, 0, installed.stderr);
  return path;
}

/** Every package of `npm ls --all`, as name@version, once each. */
async function installedPackages(path) {
  const ls = await sh('npm', ['ls', '--all', '--json'], path);
  assert.equal(ls.code, 0, ls.stderr);
  const seen = new Set();
  const walk = (deps = {}) => {
    for (const [name, info] of Object.entries(deps)) {
      // An optional peer that nothing installed (svelte and vue, for svc-embed's typings) is listed without a version.
      if (info.version === undefined) continue;
      seen.add(`${name}@${info.version}`);
      walk(info.dependencies);
    }
  };
  walk(JSON.parse(ls.stdout).dependencies);
  return [...seen].sort();
}

async function footprint(t, path) {
  const list = await installedPackages(path);
  t.diagnostic(
    `npm ls --all: ${list.length} packages (${list.join(', ')}); node_modules ${MB(bytes(join(path, 'node_modules')))}`,
  );
  return list.map((p) => p.replace(/(?<=.)@[^@]*$/, ''));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-embed-packaged-'));
  for (const args of [[], ['--workspaces']]) {
    const packed = await sh('npm', ['pack', '--json', '--pack-destination', dir, ...args], root);
    assert.equal(packed.code, 0, packed.stderr);
    for (const t of JSON.parse(packed.stdout)) tarballs[t.name] = t.filename;
  }
  assert.deepEqual(Object.keys(tarballs).sort(), [
    '@svc-embed/angular',
    '@svc-embed/api',
    '@svc-embed/protocol',
    '@svc-embed/react',
    '@svc-embed/tenant',
    'svc-embed',
  ]);
  Object.assign(
    projects,
    Object.fromEntries(
      await Promise.all(
        [
          ['element', ['svc-embed', '@svc-embed/protocol']],
          ['api', ['@svc-embed/api', '@svc-embed/protocol']],
          [
            'angular',
            ['@svc-embed/angular', 'svc-embed', '@svc-embed/protocol', `@angular/core@${version('@angular/core')}`],
          ],
          ['tenant', ['@svc-embed/tenant', '@svc-embed/api', '@svc-embed/protocol']],
          [
            'react',
            [
              '@svc-embed/react',
              'svc-embed',
              '@svc-embed/protocol',
              `react@${version('react')}`,
              `react-dom@${version('react-dom')}`,
            ],
          ],
        ].map(async ([name, packages]) => [name, await project(name, packages)]),
      ),
    ),
  );
});

after(() => {
  for (const child of running) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('svc-embed', () => {
  test("installs at most 4 packages: itself, the protocol and Lit's element base; no server, cookie library or @types", async (t) => {
    const names = await footprint(t, projects.element);
    assert.ok(names.length <= 4, names.join(', '));
    assert.deepEqual(
      names.filter((n) => /^(koa|@koa\/|cookies|keygrip|http-errors|@types\/|express)/.test(n)),
      [],
    );
    assert.ok(names.includes('svc-embed') && names.includes('@lit/reactive-element'), names.join(', '));
  });

  test('svc-embed/testing imports in Node from the installed package, and its typings compile there', async () => {
    const path = projects.element;
    const imported = await sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const t = await import('svc-embed/testing');
      console.log(Object.keys(t).sort().join(' '));
    `,
      ],
      path,
    );
    assert.equal(imported.code, 0, imported.stderr);
    assert.equal(
      imported.stdout.trim(),
      'READY_DEFAULTS RenewalFailedError emitEvent emitReady forgetUsedSessions mountTestEmbed recordActions renewAhead testEmbedSrc',
    );
    writeFileSync(
      join(path, 'check.ts'),
      `
import type { SvcEmbedElement } from 'svc-embed';
import { emitEvent, recordActions } from 'svc-embed/testing';
import type { ActionRecord } from 'svc-embed/testing';
declare const el: SvcEmbedElement;
const event = await emitEvent(el, 'svc:event:download', { format: 'csv', target: 'widget' });
const format: 'csv' | 'xlsx' | 'png' | 'pdf' = event.detail.payload.format;
const record: ActionRecord = recordActions(el);
record.stop();
// @ts-expect-error docx is not a download format
void emitEvent(el, 'svc:event:download', { format: 'docx', target: 'widget' });
export { format };
`,
    );
    writeFileSync(
      join(path, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          lib: ['es2022', 'dom'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        files: ['check.ts'],
      }),
    );
    const tsc = await sh(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', path], path);
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
  });
});

describe('@svc-embed/api', () => {
  test('installs neither Lit nor Koa: from outside this repository, undici alone (for a proxy)', async (t) => {
    const names = await footprint(t, projects.api);
    assert.deepEqual(names.sort(), ['@svc-embed/api', '@svc-embed/protocol', 'undici']);
  });

  test('npx svc-embed recipients --help prints its usage; npx svc-embed tenant says where the tenant went', async () => {
    const help = await sh('npx', ['svc-embed', 'recipients', '--help'], projects.api);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: svc-embed recipients --deployment <id> --notification <id>/);
    const moved = await sh('npx', ['svc-embed', 'tenant'], projects.api);
    assert.equal(moved.code, 2);
    assert.match(moved.stderr, /^svc-embed: [^\n]*npx @svc-embed\/tenant[^\n]*\n$/);
    const client = await sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { SvcClient, SvcApiError, MAX_FIRST } = await import('@svc-embed/api');
      console.log(typeof SvcClient, typeof SvcApiError, MAX_FIRST);
    `,
      ],
      projects.api,
    );
    assert.equal(client.code, 0, client.stderr);
    assert.equal(client.stdout.trim(), 'function function 200');
  });
});

describe('@svc-embed/tenant', () => {
  test('installs Koa and its parts, and no Lit', async (t) => {
    const names = await footprint(t, projects.tenant);
    assert.ok(names.includes('koa'), names.join(', '));
    assert.deepEqual(
      names.filter((n) => n.startsWith('@lit') || n === 'lit' || n === 'svc-embed'),
      [],
    );
  });

  test('npx svc-embed-tenant --port 0: starts, serves the dashboard embed on the origin it prints, stops at Ctrl-C', async () => {
    // Its own process group, as a shell runs it: Ctrl-C reaches npx and the command it runs.
    const t = await startUntil('npx', ['svc-embed-tenant', '--port', '0', '--latency', 'off'], 'Ctrl-C stops it.', {
      cwd: projects.tenant,
      detached: true,
      running,
    });
    const origin = /^Simulated tenant {2}(http:\/\/127\.0\.0\.1:\d+)$/m.exec(t.stdout)?.[1];
    assert.ok(origin, t.stdout);
    const page = await fetch(`${origin}/embed/dashboard/sales-overview?session=demo-acme`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type'), /^text\/html/);
    assert.match(await page.text(), /<script type="module" src="\/embed\/static\/main\.js/);
    // The embed's scripts, and the protocol module they import, served from the installed packages.
    assert.equal((await fetch(`${origin}/embed/static/main.js`)).status, 200);
    assert.equal((await fetch(`${origin}/embed/protocol/index.js`)).status, 200);
    process.kill(-t.child.pid, 'SIGINT');
    const code = await t.exited;
    // The command stopped cleanly; npm itself, Ctrl-C'd while it waited, may end by the signal, as a shell does.
    assert.ok(code === 0 || code === 'SIGINT', `${code}: ${t.stderr}`);
    assert.match(t.stderr, /^svc-embed-tenant: stopped$/m);
    await assert.rejects(fetch(`${origin}/embed/static/main.js`));
  });

  test('npx @svc-embed/tenant runs the same command', async () => {
    const help = await sh('npx', ['@svc-embed/tenant', '--help'], projects.tenant);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: svc-embed-tenant \[--port <n>\]/);
  });
});

describe('@svc-embed/angular', () => {
  test("installs, besides Angular (and its rxjs and tslib), at most the element's 4 packages and itself", async (t) => {
    const names = await footprint(t, projects.angular);
    const ours = names.filter((n) => !/^(@angular\/|rxjs$|tslib$)/.test(n));
    assert.ok(ours.length <= 5, ours.join(', '));
    for (const n of ['@svc-embed/angular', 'svc-embed', '@svc-embed/protocol']) assert.ok(ours.includes(n), n);
  });
});

describe('@svc-embed/react', () => {
  let tenant;
  let server;
  let browser;
  after(async () => {
    await browser?.close();
    server?.closeAllConnections();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve()));
    await tenant?.close();
  });

  test('installs svc-embed and @lit/react beside React (and @types/react, a peer that @lit/react requires)', async (t) => {
    const names = await footprint(t, projects.react);
    for (const n of ['@svc-embed/react', 'svc-embed', '@lit/react']) assert.ok(names.includes(n), n);
    assert.deepEqual(
      names.filter((n) => /^(koa|@koa\/)/.test(n)),
      [],
    );
  });

  test('a React app bundled from the installed packages renders <SvcEmbed> and hears svc-ready', async () => {
    const path = projects.react;
    writeFileSync(
      join(path, 'app.jsx'),
      `
import { createRoot } from 'react-dom/client';
import { SvcEmbed } from '@svc-embed/react';
const src = new URLSearchParams(location.search).get('src');
window.ready = new Promise((resolve) => {
  createRoot(document.getElementById('root')).render(
    <SvcEmbed src={src} style={{ height: 400 }} onSvcReady={(e) => resolve(e.detail.payload)} />,
  );
});
`,
    );
    const built = await esbuild.build({
      absWorkingDir: path,
      entryPoints: ['app.jsx'],
      bundle: true,
      format: 'esm',
      jsx: 'automatic',
      write: false,
      define: { 'process.env.NODE_ENV': '"production"' },
      logLevel: 'silent',
    });
    const app = built.outputFiles[0].text;
    tenant = await startTenant({ latency: false });
    server = createServer((req, res) => {
      const { pathname } = new URL(req.url, 'http://x');
      if (pathname === '/')
        res
          .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
          .end('<!doctype html><div id="root"></div><script type="module" src="/app.js"></script>');
      else if (pathname === '/app.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(app);
      else res.writeHead(404).end();
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    browser = await puppeteer.launch({
      executablePath: CHROME_PATH,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    const tab = await browser.newPage();
    const src = `${tenant.origin}/embed/dashboard/sales-overview?session=demo-acme`;
    await tab.goto(`http://localhost:${server.address().port}/?${new URLSearchParams({ src })}`);
    const payload = await tab.evaluate(() => window.ready);
    assert.deepEqual(payload, {
      embedTenant: 'acme',
      deploymentId: 1,
      mode: 'signed',
      surface: 'dashboard',
      publicId: 'sales-overview',
    });
    assert.equal(await tab.evaluate(() => document.querySelector('svc-embed').status), 'ready');
  });
});

describe("the README's install counts", () => {
  /** The package directories `npm install` put in `path`'s node_modules (what it reports as "added N packages"). */
  async function installedDirectories(path) {
    const ls = await sh('npm', ['ls', '--all', '--parseable'], path);
    assert.equal(ls.code, 0, ls.stderr);
    // The first line is the project itself.
    return ls.stdout.trim().split('\n').slice(1);
  }
  /** The count the README's package table gives for `name` ("N packages" in its "install alone" column). */
  function stated(name) {
    const row = readFileSync(join(root, 'README.md'), 'utf8')
      .split('\n')
      .find((line) => line.startsWith(`| \`${name}\` |`));
    const count = /\| (\d+) packages?\b[^|]*\|$/.exec(row ?? '')?.[1];
    assert.ok(count, `README.md: no "N packages" in the row of ${name}`);
    return Number(count);
  }

  test('are what npm installs: the element, the client, the tenant, and Angular besides Angular itself', async () => {
    for (const [name, project, besides] of [
      ['svc-embed', 'element', []],
      ['@svc-embed/api', 'api', []],
      ['@svc-embed/tenant', 'tenant', []],
      ['@svc-embed/angular', 'angular', ['@angular/core', 'rxjs', 'tslib']],
    ]) {
      const dirs = await installedDirectories(projects[project]);
      const counted = dirs.filter((d) => !besides.some((b) => d.endsWith(`/node_modules/${b}`)));
      assert.equal(
        counted.length,
        stated(name),
        `${name}: ${counted.map((d) => d.replace(/.*node_modules\//, '')).join(', ')}`,
      );
    }
  });
});
