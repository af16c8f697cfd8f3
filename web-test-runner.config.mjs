// Browser tests: headless Chromium and Firefox ESR, and WebKitGTK's MiniBrowser (Debian packages, no
// downloads), with the embed peer served from real second origins so the same-origin policy is the
// browser's own.
import { chromeLauncher } from '@web/test-runner-chrome';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import puppeteerCore from 'puppeteer-core';
import { PAGE_HOST, freePort, loopbackOnlyPlugin } from './test/support/loopback.mjs';
import { peerServerPlugin } from './test/support/peer-server.mjs';
import { tenantPlugin } from './test/support/tenant-plugin.mjs';
import { frameworksPlugin } from './test/support/frameworks-plugin.mjs';
import { webkitBrowser } from './test/support/webkit.mjs';
import { CHROMIUM_ARGS } from './test/support/browsers.mjs';
import { countReporter } from './test/support/wtr-count-reporter.mjs';
import { plainReporter, wantsPlain } from './scripts/plain-output.mjs';

const env = (name, fallback) => process.env[name] || fallback;
const CHROME_PATH = env('CHROME_PATH', '/usr/lib/chromium/chromium');
const FIREFOX_PATH = env('FIREFOX_PATH', '/usr/bin/firefox-esr');
const MINIBROWSER_PATH = env('MINIBROWSER_PATH', '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser');
const WEBKIT_DRIVER_PATH = env('WEBKIT_DRIVER_PATH', '/usr/bin/WebKitWebDriver');
const wanted = env('BROWSERS', 'chromium,firefox,webkit')
  .split(',')
  .map((b) => b.trim())
  .filter(Boolean);

// Every limit is generous: on a loaded machine (load average above 20 on 2 cores) a browser can take
// most of a minute to start, and a test several seconds. A hung test still fails, only later.
const MINUTE = 60_000;
const BROWSER_START_TIMEOUT = 3 * MINUTE;

// On SIGINT the runner stops by itself, awaiting every plugin's serverStop (WebKit's among them), and
// then exits; puppeteer's own handler would exit at once and cut that short. Puppeteer still kills its
// browsers on exit.
const puppeteerSignals = { handleSIGINT: false };
const webkit = wanted.includes('webkit')
  ? webkitBrowser({ binary: MINIBROWSER_PATH, driver: WEBKIT_DRIVER_PATH })
  : undefined;

const launchers = {
  // Both through our puppeteer-core; given one, the launcher calls this browser "Chromium", not "Chrome".
  chromium: () =>
    chromeLauncher({
      puppeteer: puppeteerCore,
      launchOptions: {
        executablePath: CHROME_PATH,
        headless: true,
        timeout: BROWSER_START_TIMEOUT,
        ...puppeteerSignals,
        args: CHROMIUM_ARGS,
      },
    }),
  firefox: () =>
    chromeLauncher({
      puppeteer: puppeteerCore,
      launchOptions: {
        browser: 'firefox',
        executablePath: FIREFOX_PATH,
        headless: true,
        timeout: BROWSER_START_TIMEOUT,
        ...puppeteerSignals,
      },
    }),
  webkit: () => webkit.launcher,
};

for (const b of wanted) {
  if (!launchers[b]) throw new Error(`BROWSERS: unknown browser "${b}" (use ${Object.keys(launchers).join(', ')})`);
}

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  rootDir: '.',
  // A loopback address of the page's own and a free port chosen by the OS (not portfinder's 8000 and
  // up): `npm start` can run at the same time, and nothing listens beyond this machine.
  hostname: PAGE_HOST,
  port: await freePort(PAGE_HOST),
  // One test file at a time per browser, for 2 cores; the webdriver launcher would otherwise run files
  // in iframes of one page rather than in the top-level page.
  concurrency: 1,
  concurrentBrowsers: 2,
  browserStartTimeout: BROWSER_START_TIMEOUT,
  // Off a terminal or with NO_COLOR: no progress bar redrawn in place, and a summary without colour codes.
  staticLogging: wantsPlain(process.stdout),
  testsStartTimeout: 2 * MINUTE,
  // `npm run fuzz` runs the lifecycle model for many more sequences (MODEL_RUNS) than `npm test` does.
  testsFinishTimeout: process.env.MODEL_RUNS ? 180 * MINUTE : 5 * MINUTE,
  browsers: wanted.map((b) => launchers[b]()),
  plugins: [
    loopbackOnlyPlugin(),
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
    peerServerPlugin(),
    tenantPlugin(),
    frameworksPlugin(),
    ...(webkit ? [webkit.plugin] : []),
  ],
  reporters: [
    defaultReporter(),
    wantsPlain(process.stdout)
      ? plainReporter(summaryReporter({ flatten: false }))
      : summaryReporter({ flatten: false }),
    countReporter(`${process.env.SVC_TEST_RESULTS || '.test-results'}/browser.json`),
  ],
  testFramework: { config: { timeout: 30_000 } },
};
