// WebKit for the browser tests: WebKitGTK's MiniBrowser, driven through WebKitWebDriver, on an Xvfb
// display of our own unless DISPLAY is set (MiniBrowser has no headless mode).
//
// `webkitBrowser()` gives a launcher and a plugin for the test-runner config. The launcher starts Xvfb
// and the driver when the runner initialises it; it ends the WebDriver session (MiniBrowser closes)
// and stops both once WebKit's tests are done. Each runs in a process group of its own, so stopping
// the driver's group also stops whatever it started. When a run is cut short:
// - SIGINT or an error: the runner stops its server, and the plugin's serverStop does the same stop;
// - SIGTERM or SIGHUP, which the runner does not handle: a handler here does it, then exits;
// - any exit still leaves a synchronous last resort: every group is ended before the process goes.
// (Nothing runs on SIGKILL.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebdriverLauncher } from '@web/test-runner-webdriver';
import { freePort } from './loopback.mjs';

const READY_TIMEOUT = 60_000;
const STOP_TIMEOUT = 10_000;

/** Process groups started here and not stopped yet; their temporary directories; launchers not stopped yet. */
const groups = new Set();
const dirs = new Set();
const running = new Set();

/** Sends `signal` to a process, or to a process group for a negative `pid`. */
const send = (pid, signal) => {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: it has gone
  }
};

/** The processes of group `pgid`, from Linux's /proc (WebKitGTK and Xvfb are Linux's too). */
function members(pgid) {
  const found = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // The fields after the command name (which may hold spaces and parentheses): state, ppid, pgrp, …
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === pgid) found.push({ pid: Number(pid), ppid: Number(ppid), zombie: state === 'Z' });
  }
  return found;
}

/**
 * Stops the groups, and yields while it waits. A process that ends stays a zombie until its parent
 * reaps it, and an orphan's reaper is PID 1, which may take its time. So the processes a leader
 * started (MiniBrowser under the driver) go first, while the leader is there to reap them, and then
 * the leaders, which this process reaps as long as its event loop runs (`reaps`). SIGKILL for
 * whatever still runs after STOP_TIMEOUT.
 */
function* stopping(pgids, { reaps }) {
  const deadline = Date.now() + STOP_TIMEOUT;
  const pending = (pgid, m) => !m.zombie || m.ppid === pgid || (reaps && m.ppid === process.pid);
  const waitFor = (which) => pgids.some((pgid) => members(pgid).some((m) => which(pgid, m) && pending(pgid, m)));
  for (const pgid of pgids) {
    for (const m of members(pgid)) if (m.pid !== pgid && !m.zombie) send(m.pid, 'SIGTERM');
  }
  while (Date.now() < deadline && waitFor((pgid, m) => m.pid !== pgid)) yield;
  for (const pgid of pgids) send(-pgid, 'SIGTERM');
  while (Date.now() < deadline && waitFor(() => true)) yield;
  for (const pgid of pgids) if (members(pgid).some((m) => !m.zombie)) send(-pgid, 'SIGKILL');
  for (const pgid of pgids) groups.delete(pgid);
}

async function stopGroups(pgids) {
  const steps = stopping(pgids, { reaps: true });
  while (!steps.next().done) await new Promise((r) => setTimeout(r, 50));
}

// On 'exit' only synchronous code runs: the wait blocks, and the leaders stay zombies for PID 1.
const pause = new Int32Array(new SharedArrayBuffer(4));
function stopAllNow() {
  const steps = stopping([...groups], { reaps: false });
  while (!steps.next().done) Atomics.wait(pause, 0, 0, 20);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}

let handlersInstalled = false;
function installHandlers() {
  if (handlersInstalled) return;
  handlersInstalled = true;
  process.on('exit', stopAllNow);
  for (const [signal, code] of [
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ]) {
    process.on(signal, async () => {
      await Promise.all([...running].map((launcher) => launcher.stop()));
      process.exit(code);
    });
  }
}

/** Resolves once `check()` is true; rejects when `child` exits first or after `timeout` ms. */
async function until(check, { child, what, log, timeout = READY_TIMEOUT }) {
  const deadline = Date.now() + timeout;
  const details = () => (log() ? `:\n${log()}` : '');
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}) before it was ready${details()}`);
    }
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`${what} was not ready after ${timeout} ms${details()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Starts `command` as the leader of a new process group, with an extra pipe as fd 3 if `fd3` is set.
 * Resolves once it runs; the end of its stderr is kept for error messages.
 */
async function startGroup(command, args, { env = process.env, fd3 = false } = {}) {
  installHandlers();
  const child = spawn(command, args, {
    env,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', ...(fd3 ? ['pipe'] : [])],
  });
  if (child.pid) groups.add(child.pid);
  let tail = '';
  child.stderr.setEncoding('utf8').on('data', (d) => {
    tail = (tail + d).slice(-2000);
  });
  await new Promise((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) => reject(new Error(`cannot start ${command}: ${e.message}`)));
  });
  return { child, log: () => tail.trim() };
}

/**
 * Starts an X display (unless DISPLAY is set) and WebKitWebDriver on a free loopback port.
 * Resolves with the driver's port and a `stop()` that ends both.
 */
async function startDriver(driverPath) {
  // WebKit writes GStreamer and Mesa caches under XDG_CACHE_HOME and XDG_DATA_HOME: keep them out of ~.
  const home = mkdtempSync(join(tmpdir(), 'svc-embed-webkit-'));
  dirs.add(home);
  const started = [];
  const stop = async () => {
    await stopGroups(started);
    rmSync(home, { recursive: true, force: true });
    dirs.delete(home);
  };
  const begin = async (command, args, options) => {
    const group = await startGroup(command, args, options);
    started.push(group.child.pid);
    return group;
  };
  try {
    let display = process.env.DISPLAY;
    if (!display) {
      // -displayfd picks a free display number and writes it to fd 3 once the server accepts clients.
      const xvfb = await begin('Xvfb', ['-displayfd', '3', '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
        fd3: true,
      });
      let written = '';
      xvfb.child.stdio[3].setEncoding('utf8').on('data', (d) => {
        written += d;
      });
      await until(() => written.includes('\n'), { ...xvfb, what: 'Xvfb' });
      display = `:${written.trim()}`;
    }
    const port = await freePort();
    const env = {
      ...process.env,
      DISPLAY: display,
      XDG_CACHE_HOME: join(home, 'cache'),
      XDG_DATA_HOME: join(home, 'data'),
    };
    const driver = await begin(driverPath, [`--port=${port}`], { env });
    const ready = async () => {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(5000) });
        return (await res.json()).value?.ready === true;
      } catch {
        return false;
      }
    };
    await until(ready, { ...driver, what: `WebKitWebDriver on port ${port}` });
    return { port, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A WebdriverLauncher that brings its own driver and display, and reports itself as "WebKit". */
class WebKitLauncher extends WebdriverLauncher {
  #options;
  #driverPath;
  #driver;
  #stopping;

  constructor(options, driverPath) {
    super(options);
    this.#options = options;
    this.#driverPath = driverPath;
  }

  async initialize(config, testFiles) {
    running.add(this);
    this.#driver = startDriver(this.#driverPath);
    // webdriverio reads the options when the first session starts, after this.
    this.#options.port = (await this.#driver).port;
    await super.initialize(config, testFiles);
    this.name = 'WebKit';
  }

  /** Ends the session (so the driver closes MiniBrowser and reaps it), then the driver and the display. */
  stop() {
    this.#stopping ??= (async () => {
      const timeout = new Promise((r) => setTimeout(r, STOP_TIMEOUT).unref());
      await Promise.race([super.stop(), timeout]);
      const driver = await this.#driver?.catch(() => undefined);
      await driver?.stop();
      running.delete(this);
    })();
    return this.#stopping;
  }
}

/**
 * WebKitGTK's MiniBrowser at `binary`, through the WebKitWebDriver at `driver`: the test-runner
 * launcher, and a plugin that stops both when the runner stops its server (also on SIGINT and errors).
 */
export function webkitBrowser({ binary, driver }) {
  const launcher = new WebKitLauncher(
    {
      hostname: '127.0.0.1',
      port: 0,
      capabilities: {
        browserName: 'MiniBrowser',
        // WebKitWebDriver 2.50 refuses webdriverio's default BiDi session request.
        'wdio:enforceWebDriverClassic': true,
        // Pop-outs that a test opens itself (window.open without a click), as Chromium and Firefox allow under automation.
        'webkitgtk:browserOptions': {
          binary,
          args: ['--automation', '--javascript-can-open-windows-automatically=true'],
        },
      },
    },
    driver,
  );
  const plugin = {
    name: 'svc-embed-webkit',
    serverStop: () => (running.has(launcher) ? launcher.stop() : undefined),
  };
  return { launcher, plugin };
}
