// Browser tests: headless Chromium and Firefox ESR (Debian packages, no downloads), with the
// embed peer served from real second origins so the same-origin policy is the browser's own.
import { chromeLauncher } from '@web/test-runner-chrome';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import puppeteerCore from 'puppeteer-core';
import { PAGE_HOST, freePort, loopbackOnlyPlugin } from './test/support/loopback.mjs';
import { peerServerPlugin } from './test/support/peer-server.mjs';
import { countReporter } from './test/support/wtr-count-reporter.mjs';

const CHROME_PATH = process.env.CHROME_PATH || '/usr/lib/chromium/chromium';
const FIREFOX_PATH = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';
const wanted = (process.env.BROWSERS || 'chromium,firefox').split(',').map((b) => b.trim()).filter(Boolean);

const launchers = {
  chromium: () =>
    chromeLauncher({
      launchOptions: {
        executablePath: CHROME_PATH,
        headless: true,
        args: [
          '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
          '--disable-component-update', '--disable-sync', '--no-first-run',
        ],
      },
    }),
  firefox: () =>
    chromeLauncher({
      puppeteer: puppeteerCore,
      launchOptions: { browser: 'firefox', executablePath: FIREFOX_PATH, headless: true },
    }),
};

for (const b of wanted) if (!launchers[b]) throw new Error(`BROWSERS: unknown browser "${b}" (use chromium, firefox)`);

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  rootDir: '.',
  // A loopback address of the page's own and a free port chosen by the OS (not portfinder's 8000 and
  // up): `npm start` can run at the same time, and nothing listens beyond this machine.
  hostname: PAGE_HOST,
  port: await freePort(PAGE_HOST),
  concurrency: 1,
  concurrentBrowsers: 2,
  testsFinishTimeout: 240000,
  browsers: wanted.map((b) => launchers[b]()),
  plugins: [
    loopbackOnlyPlugin(),
    esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }),
    peerServerPlugin(),
  ],
  reporters: [defaultReporter(), summaryReporter({ flatten: false }), countReporter(`${process.env.SVC_TEST_RESULTS || '.test-results'}/browser.json`)],
  testFramework: { config: { timeout: 10000 } },
};
