#!/usr/bin/env node
/**
 * The `svc-embed` executable. The build bundles it, with the rest of cli/ and api/, into dist/cli.js
 * (package.json "bin"; see rollup.cli.config.mjs).
 */
import { main } from './main.js';
import { processIo } from './io.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.exitCode = await main(process.argv.slice(2), processIo(), controller.signal);
