#!/usr/bin/env node
/** The `svc-embed` executable (package.json "bin"); the command line itself lives in cli/. */
import { main } from './cli/main.js';
import { processIo } from './cli/io.js';

const controller = new AbortController();
process.once('SIGINT', () => controller.abort());
process.exitCode = await main(process.argv.slice(2), processIo(), controller.signal);
