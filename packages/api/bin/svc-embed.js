#!/usr/bin/env node
// The `svc-embed` executable as npm links it. The command itself is built (dist/cli.js), and npm links a
// workspace's bins when it installs: a file that is there before any build gets linked in a fresh clone too.
// Before the build, it says what to run instead of failing with a missing module.
const built = new URL('../dist/cli.js', import.meta.url);
try {
  await import(built.href);
} catch (err) {
  const { existsSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  if (existsSync(fileURLToPath(built))) throw err;
  process.stderr.write(
    'svc-embed: the command is not built yet: run "npm run build" at the root of the repository (or in packages/api)\n',
  );
  process.exitCode = 1;
}
