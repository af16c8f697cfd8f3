// Browser tests: headless Chromium and Firefox ESR (Debian packages, no downloads), with the
// embed peer served from real second origins so the same-origin policy is the browser's own.
import { createServer } from 'node:net';
import { chromeLauncher } from '@web/test-runner-chrome';
import { defaultReporter, summaryReporter } from '@web/test-runner';
import { esbuildPlugin } from '@web/dev-server-esbuild';
import puppeteerCore from 'puppeteer-core';
import { peerServerPlugin } from './test/support/peer-server.mjs';
import { frameworksPlugin } from './test/support/frameworks-plugin.mjs';
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

// A free port chosen by the OS (not portfinder's 8000 and up), so `npm start` and other runs are never in the way.
const freePort = () =>
  new Promise((resolve, reject) => {
    const probe = createServer().once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });

for (const b of wanted) if (!launchers[b]) throw new Error(`BROWSERS: unknown browser "${b}" (use chromium, firefox)`);

export default {
  files: ['test/browser/**/*.test.ts'],
  nodeResolve: true,
  rootDir: '.',
  port: await freePort(),
  concurrency: 1,
  concurrentBrowsers: 2,
  testsFinishTimeout: 240000,
  browsers: wanted.map((b) => launchers[b]()),
  plugins: [esbuildPlugin({ ts: true, target: 'es2022', tsconfig: 'tsconfig.json' }), peerServerPlugin(), frameworksPlugin()],
  reporters: [defaultReporter(), summaryReporter({ flatten: false }), countReporter(`${process.env.SVC_TEST_RESULTS || '.test-results'}/browser.json`)],
  testFramework: { config: { timeout: 10000 } },
};
