// Headless Chromium and Firefox ESR for the Node tests that drive pages with puppeteer-core (Firefox over
// WebDriver BiDi, no driver needed). CHROME_PATH and FIREFOX_PATH point elsewhere; a browser that is not
// installed is reported, so that a suite can skip it by name.
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';
import { BrowsingContext } from 'puppeteer-core/internal/bidi/core/BrowsingContext.js';

// Firefox ESR 140 (Debian's today) has no `emulation.setScreenOrientationOverride`, which puppeteer-core 24 sends with
// every setViewport (the test runner sets one per page): without this, no page opens in Firefox. An unknown command
// is tolerated here, as puppeteer itself tolerates it for the touch override sent beside it; any other error stands.
const orientation = BrowsingContext.prototype.setScreenOrientationOverride;
BrowsingContext.prototype.setScreenOrientationOverride = function (...args) {
  return orientation.apply(this, args).catch((error) => {
    if (!/unknown command|unsupported operation/.test(String(error?.message))) throw error;
  });
};

export const CHROME_PATH = process.env.CHROME_PATH || '/usr/lib/chromium/chromium';
export const FIREFOX_PATH = process.env.FIREFOX_PATH || '/usr/bin/firefox-esr';

// Chromium as root needs --no-sandbox; the rest keeps it off the (closed) network.
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

const PATHS = { chromium: CHROME_PATH, firefox: FIREFOX_PATH };

/** Why `engine` cannot run here (a reason for `skip`), or false. */
export function unavailable(engine) {
  if (!Object.hasOwn(PATHS, engine)) return `unknown engine ${engine}`;
  return existsSync(PATHS[engine]) ? false : `${PATHS[engine]} is not installed`;
}

/** Launches `engine` ('chromium' or 'firefox') headless; `options` adds to puppeteer's launch options. */
export function launch(engine, options = {}) {
  return engine === 'firefox'
    ? puppeteer.launch({
        browser: 'firefox',
        executablePath: FIREFOX_PATH,
        headless: true,
        handleSIGINT: false,
        ...options,
      })
    : puppeteer.launch({
        executablePath: CHROME_PATH,
        headless: true,
        handleSIGINT: false,
        args: CHROMIUM_ARGS,
        ...options,
      });
}

/** The engines a suite runs in: `variable` (a comma-separated list) when set, else `fallback`. */
export function enginesFrom(variable, fallback = 'chromium,firefox') {
  return (process.env[variable] || fallback)
    .split(',')
    .map((b) => b.trim())
    .filter(Boolean);
}
