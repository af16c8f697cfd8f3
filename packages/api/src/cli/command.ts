/**
 * The shape of a subcommand. Adding one is a file in `commands/` that exports a {@link Command}, and
 * one line in `commands/index.ts`.
 */
import type { SvcApiError } from '../index.js';
import type { FlagSpecs, Flags } from './args.js';
import type { Io } from './io.js';

/** What a command runs with. */
export interface RunContext {
  readonly flags: Flags;
  readonly io: Io;
  /** Aborted by Ctrl-C. */
  readonly signal: AbortSignal;
  /** The executable's name, to begin a message with: `svc-embed`, or the command's own name when it runs alone. */
  readonly program: string;
}

export interface Command {
  /** The word after `svc-embed`; for a command run alone ({@link runCommand}), the executable's name. */
  readonly name: string;
  /** One line for the main help. */
  readonly summary: string;
  /** The command's help, printed by `<command> --help`. */
  readonly help: string;
  /** Its flags; `--help` and `--version` are added to every command. */
  readonly flags: FlagSpecs;
  /** Does the work; resolves with the exit code. Throws UsageError, SvcApiError or OutputError. */
  run(ctx: RunContext): Promise<number>;
  /** A line of advice for a failed API call, shown after the error. */
  hint?(err: SvcApiError): string | undefined;
}
