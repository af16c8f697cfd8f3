// Child processes of the bench: the build, long-running servers (stopped by closing their stdin) and
// measured runs.
import { createHash } from 'node:crypto';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));

/** Runs `npm run build` when dist/ or cdn/ is missing or older than src/: the bench measures what is built. */
export function buildIfStale(log) {
  const outputs = [
    'dist/index.js',
    'packages/api/dist/index.js',
    'packages/api/dist/cli.js',
    'cdn/svc-embed.min.js',
  ].map((f) => join(root, f));
  const oldest = Math.min(...outputs.map((p) => (existsSync(p) ? statSync(p).mtimeMs : 0)));
  const src = join(root, 'src');
  const newest = Math.max(...readdirSync(src, { recursive: true }).map((f) => statSync(join(src, f)).mtimeMs));
  if (oldest >= newest) return;
  log('building (dist/ or cdn/ is missing or older than src/)…');
  const { status } = spawnSync('npm', ['run', '--silent', 'build'], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (status !== 0) throw new Error('the build failed');
}
const cpuReport = pathToFileURL(fileURLToPath(new URL('../rest/cpu-report.mjs', import.meta.url))).href;

/**
 * Starts a Node script that prints its origin as its first line, and resolves with that origin and a
 * `stop()`. The child exits when its stdin closes, so it also goes when the bench dies.
 */
export async function startServer(script, args = []) {
  const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const stop = () => {
    child.stdin.end();
    if (child.exitCode === null) child.kill();
  };
  try {
    let text = '';
    for await (const chunk of child.stdout) {
      text += chunk;
      if (text.includes('\n')) break;
    }
    if (!text.includes('\n')) throw new Error(`${script} exited before it printed its origin`);
    return { origin: text.split('\n')[0].trim(), stop };
  } catch (err) {
    stop();
    throw err;
  }
}

/** Runs `node args…` to its end; resolves with its stdout (text) and exit code. Throws on a failure. */
export async function runNode(args, { env = process.env } = {}) {
  const child = spawn(process.execPath, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.setEncoding('utf8').on('data', (d) => {
    stdout += d;
  });
  const [code] = await once(child, 'close');
  if (code !== 0) throw new Error(`node ${args.join(' ')} exited with ${code}`);
  return stdout;
}

/**
 * Runs `node args…` with the CPU reporter preloaded; resolves with the child's own CPU time (every
 * thread, from getrusage at its exit), its wall time, and its stdout as bytes.
 */
export async function measureNode(args, { env, digest = false }) {
  const t0 = performance.now();
  const child = spawn(process.execPath, ['--import', cpuReport, ...args], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
  });
  // With `digest`, stdout is hashed as it comes, not kept: a listing of a million recipients is hundreds of MB.
  const out = [];
  const hash = digest ? createHash('sha256') : undefined;
  let outBytes = 0;
  let report = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    outBytes += d.length;
    if (hash) hash.update(d);
    else out.push(d);
  });
  child.stderr.setEncoding('utf8').on('data', (d) => {
    stderr += d;
  });
  child.stdio[3].setEncoding('utf8').on('data', (d) => {
    report += d;
  });
  const [code] = await once(child, 'close');
  const wallMs = performance.now() - t0;
  if (code !== 0 || !report) throw new Error(`node ${args.join(' ')} exited with ${code}: ${stderr.trim()}`);
  const { cpuUs, maxRssBytes } = JSON.parse(report);
  return {
    cpuMs: cpuUs / 1000,
    maxRssBytes,
    wallMs,
    stdout: Buffer.concat(out),
    outBytes,
    ...(hash ? { sha256: hash.digest('hex') } : {}),
  };
}
