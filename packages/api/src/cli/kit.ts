/**
 * `@svc-embed/api/cli`: what the `svc-embed` command is made of, for the repository's other commands
 * (`svc-embed-tenant` of `@svc-embed/tenant`), so that every command parses flags, names mistakes, and
 * exits with the same codes. Not for other uses: it follows the packages' shared version, not semver of its own.
 * @packageDocumentation
 */
export { UsageError, choiceFlag, integerFlag } from './args.js';
export type { FlagSpec, FlagSpecs, Flags } from './args.js';
export type { Command, RunContext } from './command.js';
export { EXIT } from './errors.js';
export { execute } from './io.js';
export type { Io } from './io.js';
export { runCommand } from './main.js';
