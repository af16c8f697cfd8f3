// `npm start`: builds when the build is missing or older than src/, then serves the demo host on
// http://localhost:8000 and the simulated tenant on http://127.0.0.1:8001 (HOST_PORT, TENANT_PORT;
// 0 picks a free port). The tenant is the same startTenant that @svc-embed/tenant exports; it allows
// host pages on localhost and 127.0.0.1 at any port, so the demo opens under either name, on any
// port. A second tenant, on a free port, allows only https://app.example.com: the playground's
// "Wrong host origin" scenario embeds it and meets the refusal a misconfigured tenant gives.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

function oldest(paths) {
  return Math.min(...paths.map((p) => (existsSync(p) ? statSync(p).mtimeMs : 0)));
}

// Every package's build: the element's (dist/ and cdn/), and each workspace package's dist/.
const PACKAGES = ['protocol', 'api', 'tenant', 'react'];
const outputs = [
  join(root, 'dist/index.js'),
  join(root, 'cdn/svc-embed.min.js'),
  ...PACKAGES.map((p) => join(root, 'packages', p, 'dist/index.js')),
];
const sources = [join(root, 'src'), ...PACKAGES.map((p) => join(root, 'packages', p, 'src'))];
if (oldest(outputs) < Math.max(...sources.map(newest))) {
  console.log('[start] building (dist/ or cdn/ is missing or older than src/)…');
  const { status } = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (status !== 0) {
    console.error('[start] the build failed; fix it and run npm start again.');
    process.exit(status ?? 1);
  }
}

function port(name, fallback) {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535) {
    console.error(`[start] ${name} must be a port number (0–65535).`);
    process.exit(2);
  }
  return n;
}

const hostPort = port('HOST_PORT', 8000);
const tenantPort = port('TENANT_PORT', 8001);

// Imported only after the build: the tenant runs on the compiled protocol module.
const { startTenant, describeTenant } = await import('@svc-embed/tenant');
const { startHost } = await import('../demo/host-server.mjs');

let tenant;
let refusing;
let host;
try {
  tenant = await startTenant({ port: tenantPort });
  refusing = await startTenant({ port: 0, allowOrigins: ['https://app.example.com'] });
  host = await startHost({ port: hostPort, tenantOrigin: tenant.origin, refusingTenantOrigin: refusing.origin });
} catch (error) {
  await Promise.allSettled([tenant?.close(), refusing?.close()]);
  const busy = error?.code === 'EADDRINUSE';
  console.error(
    busy
      ? `[start] port ${error.port} is in use: set HOST_PORT / TENANT_PORT to free ports.`
      : `[start] ${error?.message ?? error}`,
  );
  process.exit(1);
}

// The origins printed are the real ones: with HOST_PORT=0 or TENANT_PORT=0, the ports the system chose.
const hostAlias = host.origin.replace('//localhost:', '//127.0.0.1:');
const indent = (text) => text.replace(/^(?=.)/gm, '  ');
console.log(`
  svc-embed demo

  Demo host        ${host.origin}/            (playground; ${hostAlias}/ works too)
                   ${host.origin}/compare     (two embeds side by side)
                   ${host.origin}/sessions    (four dashboards, one session provider call per expiry)
                   ${host.origin}/routes      (route changes: prerendered embeds against one created per route)
                   ${host.origin}/history     (Back, Forward and links: two embeds kept in the address by svc-embed/history)
                   ${host.origin}/ssr         (server-rendered: the frame in the page's HTML, made by svc-embed/ssr)
                   ${host.origin}/session?tenant=acme&ttl=20   (a fresh session, for a session provider)

${indent(describeTenant(tenant))}

  Refusing tenant   ${refusing.origin}  (frames only https://app.example.com: the "Wrong host origin" scenario)

  Ctrl-C stops the servers.
`);

let stopping = false;
async function stop(signal) {
  if (stopping) return;
  stopping = true;
  console.log(`\n[start] ${signal}: stopping…`);
  await Promise.allSettled([host.close(), tenant.close(), refusing.close()]);
  process.exit(0);
}
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
