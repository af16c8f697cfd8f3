// Debian's Chromium and Firefox ESR through puppeteer-core (CDP for Chromium, WebDriver BiDi for
// Firefox), and the renderer CPU figures Chromium exposes over CDP.
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEBDRIVER_BIDI_WEBSOCKET_ENDPOINT_REGEX, createProfile, launch as launchProcess } from '@puppeteer/browsers';
import puppeteer from 'puppeteer-core';

import { CHROME_PATH, CHROMIUM_ARGS, FIREFOX_PATH } from '../../test/support/browsers.mjs';

export { CHROME_PATH, CHROMIUM_ARGS, FIREFOX_PATH };
// Generous: on a loaded 2-core machine a browser may take most of a minute to start.
const LIMITS = { timeout: 180_000, protocolTimeout: 600_000 };

/**
 * Firefox as its users run it, with site isolation (Fission): puppeteer.launch() would force every page
 * into one content process (`fission.webContentIsolationStrategy: 0`), where a cross-origin message
 * never crosses a process. So Firefox is started here with a profile of puppeteer's defaults and
 * Firefox's own isolation, and puppeteer connects to it over WebDriver BiDi. Closing the returned
 * browser also stops the process and removes the profile.
 */
async function launchFirefox() {
  const profile = mkdtempSync(join(tmpdir(), 'svc-embed-bench-firefox-'));
  let proc;
  try {
    await createProfile('firefox', {
      path: profile,
      // 1 = isolate every site, Firefox's default; full-resolution performance.now() (else rounded to 1 ms).
      preferences: { 'fission.webContentIsolationStrategy': 1, 'privacy.reduceTimerPrecision': false },
    });
    proc = launchProcess({
      executablePath: FIREFOX_PATH,
      args: ['--no-remote', '--headless', '--remote-debugging-port=0', '--profile', profile],
    });
    const endpoint = await proc.waitForLineOutput(WEBDRIVER_BIDI_WEBSOCKET_ENDPOINT_REGEX, LIMITS.timeout);
    const browser = await puppeteer.connect({
      browserWSEndpoint: `${endpoint}/session`,
      protocol: 'webDriverBiDi',
      protocolTimeout: LIMITS.protocolTimeout,
    });
    browser.rootPid = proc.nodeProcess.pid;
    const close = browser.close.bind(browser);
    browser.close = async () => {
      try {
        await close();
      } finally {
        await proc.close();
        rmSync(profile, { recursive: true, force: true });
      }
    };
    return browser;
  } catch (err) {
    await proc?.close();
    rmSync(profile, { recursive: true, force: true });
    throw err;
  }
}

/** How each browser is named in the table. */
export const LABELS = {
  chromium: 'chromium',
  firefox: 'firefox (Fission)',
  'firefox-1p': 'firefox (one content process)',
};

/**
 * `chromium`; `firefox` with site isolation, as its users run it; `firefox-1p` as puppeteer.launch()
 * starts it, every page in one content process, where the embed's messages never leave the host's thread.
 */
export function launch(name) {
  if (name === 'chromium')
    return puppeteer.launch({ executablePath: CHROME_PATH, headless: true, args: CHROMIUM_ARGS, ...LIMITS });
  if (name === 'firefox') return launchFirefox();
  if (name === 'firefox-1p') {
    return puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX_PATH,
      headless: true,
      ...LIMITS,
      extraPrefsFirefox: { 'privacy.reduceTimerPrecision': false },
    });
  }
  throw new Error(`unknown browser ${name}`);
}

/** Opens the bench host page in a new tab; `variant` (optional) is set up and ready when this resolves. */
export async function openHost(browser, pages, variant) {
  const page = await browser.newPage();
  await page.goto(`${pages.hostOrigin}/host.html?embed=${encodeURIComponent(pages.embedOrigin)}`);
  await page.waitForFunction(() => window.bench !== undefined);
  if (variant) await page.evaluate((v) => window.bench.setup(v), variant);
  return page;
}

/**
 * Chromium: the CPU of the page's host renderer over CDP (Performance.getMetrics). ThreadTime is the
 * renderer main thread's CPU time (thread ticks); ProcessTime that of the whole renderer process (every
 * thread, in clock ticks of 10 ms); TaskDuration the wall time of its main-thread tasks. With site
 * isolation the page's target is the host renderer alone: the cross-site embed frame is a target of
 * its own, in another process.
 */
export async function chromiumProbe(page) {
  const cdp = await page.createCDPSession();
  await cdp.send('Performance.enable');
  return {
    cdp,
    async read() {
      const { metrics } = await cdp.send('Performance.getMetrics');
      const m = Object.fromEntries(metrics.map(({ name, value }) => [name, value]));
      return { threadMs: m.ThreadTime * 1000, processMs: m.ProcessTime * 1000, taskMs: m.TaskDuration * 1000 };
    },
  };
}

/** Main-thread CPU of a process so far, in ms, from Linux's scheduler statistics (nanoseconds). */
function mainThreadMs(pid) {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** The content processes (`-isForBrowser`) descending from `rootPid`. */
function contentProcesses(rootPid) {
  const parent = new Map();
  const content = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command name in field 2 may hold spaces; the parent id follows its closing parenthesis.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      // Firefox rewrites its processes' titles: the arguments are separated by spaces, not NULs.
      if (/(^|[\0 ])-isForBrowser([\0 ]|$)/.test(readFileSync(`/proc/${name}/cmdline`, 'utf8')))
        content.push(Number(name));
    } catch {
      // Gone meanwhile.
    }
  }
  const descends = (pid) => {
    for (let p = pid, hops = 0; p > 1 && hops < 64; p = parent.get(p) ?? 0, hops++) if (p === rootPid) return true;
    return false;
  };
  return content.filter(descends);
}

/**
 * Firefox with Fission: the main-thread CPU of the content process that runs `page`, from /proc. That
 * process is found by keeping the page's main thread busy for 600 ms and seeing which content process's
 * main thread took the time (on a loaded machine, a fraction of it). Undefined when that is not clear-cut (or not on Linux): wall time then.
 */
export async function firefoxProbe(browser, page) {
  if (!browser.rootPid || !existsSync('/proc/self/task')) return undefined;
  const pids = contentProcesses(browser.rootPid);
  const before = pids.map(mainThreadMs);
  await page.evaluate(() => {
    const end = performance.now() + 600;
    while (performance.now() < end);
  });
  const gained = pids
    .map((pid, i) => ({ pid, ms: (mainThreadMs(pid) ?? 0) - (before[i] ?? 0) }))
    .sort((a, b) => b.ms - a.ms);
  const [top, next] = gained;
  if (!top || top.ms < 50 || (next && next.ms > top.ms / 4)) return undefined;
  return { pid: top.pid, read: async () => ({ threadMs: mainThreadMs(top.pid) }) };
}

/**
 * Runs `action` (resolving with the page's own wall time in ms) between two readings of `probe`;
 * without a probe, wall time only.
 */
export async function measure(probe, action) {
  const before = probe && (await probe.read());
  const wallMs = await action();
  if (!probe) return { wallMs };
  const after = await probe.read();
  return { wallMs, ...Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]])) };
}
