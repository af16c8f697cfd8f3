/**
 * `svc-embed`: the command-line face of `@svc-embed/api`.
 *
 *   svc-embed recipients --deployment 1 --notification 10 [--first 200] [--format table|json|csv] [--base-url URL]
 *   svc-embed scim-users [--format ...] [--auth-scheme Bearer|Api-Key] [--count N] [--base-url URL]
 *
 * The token only ever comes from the environment (SVC_API_TOKEN): a flag would leave it in shell
 * history and in every process listing. Data goes to stdout, progress and errors to stderr.
 *
 * Jobs by file: args.ts parses, commands/ hold the commands, format.ts renders, progress.ts reports
 * progress, io.ts writes, errors.ts turns failures into messages and exit codes.
 */
import { API_HELP, GLOBAL_FLAGS, UsageError, didYouMean, parseFlags } from './args.js';
import type { Command } from './command.js';
import { COMMANDS } from './commands/index.js';
import { EXIT, EXIT_HELP, report, signalsDelivered } from './errors.js';
import type { Io } from './io.js';

const MAIN_HELP = `Usage: svc-embed <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(12)} ${c.summary}`).join('\n')}

Run "svc-embed <command> --help" for a command's options.

For recipients and scim-users:
${API_HELP.replace(/^(?=.)/gm, '  ')}

${EXIT_HELP}
`;

/**
 * The package's version. `node:fs` is imported here, not at the top: an ES module that imports it gets
 * a facade of all its exports, and building it loads fs's streams, which no other command needs.
 */
async function version(): Promise<string> {
  try {
    const { readFileSync } = await import('node:fs');
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: unknown;
    };
    return String(pkg.version);
  } catch {
    return 'unknown';
  }
}

const find = (name: string | undefined) => COMMANDS.find((c) => c.name === name);

/** Commands that other executables run: the one line that says what to run instead. */
const MOVED: Readonly<Record<string, string>> = {
  tenant:
    'the simulated tenant is not part of svc-embed: run "npx @svc-embed/tenant" (or "npx svc-embed-tenant" where @svc-embed/tenant is installed); "npx @svc-embed/tenant --help" lists its flags',
};

/**
 * Parses a command's flags and runs it, with --help and --version. `program` is the executable's name:
 * `svc-embed` before a subcommand, or the command's own name when it is an executable of its own.
 */
async function runParsed(
  command: Command,
  args: readonly string[],
  io: Io,
  signal: AbortSignal,
  program: string,
): Promise<number> {
  // After `svc-embed`, the subcommand's name is the first argument; a command run alone has none before its flags.
  const flags = parseFlags(args, { ...command.flags, ...GLOBAL_FLAGS }, command.name, program === command.name ? 0 : 1);
  if (flags.help) {
    await io.out(command.help);
    return EXIT.ok;
  }
  if (flags.version) {
    await io.out(`${await version()}\n`);
    return EXIT.ok;
  }
  return command.run({ flags, io, signal, program });
}

/** Runs one command line of `svc-embed`; resolves with the exit code. Never throws. */
export async function main(argv: readonly string[], io: Io, signal: AbortSignal): Promise<number> {
  const [word, ...rest] = argv;
  let command: Command | undefined;
  try {
    if (word === undefined) {
      io.err(MAIN_HELP);
      return EXIT.usage;
    }
    if (word === '-h' || word === '--help' || word === 'help') {
      await io.out(find(rest[0])?.help ?? MAIN_HELP);
      return EXIT.ok;
    }
    if (word === '-v' || word === '--version') {
      await io.out(`${await version()}\n`);
      return EXIT.ok;
    }
    if (Object.hasOwn(MOVED, word)) {
      io.err(`svc-embed: ${MOVED[word]}\n`);
      return EXIT.usage;
    }
    command = find(word);
    if (!command) {
      // Named by its position, like any argument a command does not take: it may be a pasted token.
      const near = didYouMean(
        word,
        COMMANDS.map((c) => c.name),
        (c) => `"${c}"`,
      );
      throw new UsageError(
        `unknown command at position 1${near || ` (commands: ${COMMANDS.map((c) => c.name).join(', ')})`}`,
      );
    }
    return await runParsed(command, rest, io, signal, 'svc-embed');
  } catch (err) {
    await signalsDelivered(err);
    return report(err, io, command, signal);
  }
}

/**
 * Runs `command` as an executable of its own (`svc-embed-tenant`, whose name is the command's): its flags,
 * --help, --version, and the same messages and exit codes as a subcommand of `svc-embed`. Never throws.
 */
export async function runCommand(
  command: Command,
  argv: readonly string[],
  io: Io,
  signal: AbortSignal,
): Promise<number> {
  try {
    return await runParsed(command, argv, io, signal, command.name);
  } catch (err) {
    await signalsDelivered(err);
    return report(err, io, command, signal, command.name);
  }
}
