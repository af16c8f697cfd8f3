#!/usr/bin/env node
/**
 * The `svc-embed` executable. The build bundles it, with the rest of cli/ and the client, into
 * dist/cli.js (package.json "bin"; see rollup.config.mjs).
 */
import { execute } from './io.js';
import { main } from './main.js';

await execute(main);
