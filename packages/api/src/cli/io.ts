/**
 * The CLI's two output streams. Data goes to stdout, and each write is awaited, so a failure there
 * (a full disk, a closed pipe) is known before anything claims success. Messages go to stderr as
 * whole lines, neutralised, and a live progress line is cleared before any of them.
 */
import { redactor, replaceUnsafe } from '../text.js';

/** What the CLI needs of a stream: `process.stdout` and `process.stderr` have it, and so do test doubles. */
export interface OutStream {
  write(chunk: string | Uint8Array, callback?: (err?: Error | null) => void): boolean;
}

/** The process around a run. */
export interface IoInit {
  stdout: OutStream;
  stderr: OutStream;
  stderrIsTty: boolean;
  env: Readonly<Record<string, string | undefined>>;
}

export interface Io {
  readonly env: Readonly<Record<string, string | undefined>>;
  /** stderr is a terminal that can redraw a line: a TTY whose TERM is not `dumb`. */
  readonly live: boolean;
  /** Writes data (text, or UTF-8 bytes) to stdout; rejects with an {@link OutputError} when the write fails. */
  out(data: string | Uint8Array): Promise<void>;
  /** Writes whole lines to stderr, every control and bidi character shown as `?`. */
  err(text: string): void;
  /** On a live terminal, shows `text` in place of the previous status line; elsewhere nothing. */
  status(text: string): void;
}

/** stdout could not be written: `code` is the system's (`EPIPE`, `ENOSPC`...). */
export class OutputError extends Error {
  constructor(
    readonly code: string,
    cause: unknown,
  ) {
    super(`cannot write to stdout (${code})`, { cause });
    this.name = 'OutputError';
  }
}

export function makeIo({ stdout, stderr, stderrIsTty, env }: IoInit): Io {
  const live = stderrIsTty && env.TERM !== 'dumb';
  const token = env.SVC_API_TOKEN;
  // The client already keeps the token out of everything it reports; this is the last net, for any
  // other error text.
  const redact = token && token.length >= 8 ? redactor(token) : (text: string) => text;
  // Width of the status line on screen, 0 when there is none. Redrawn with a carriage return and
  // spaces: no escape sequence, so nothing depends on the terminal's capabilities.
  let shown = 0;
  const clear = () => {
    if (shown > 0) stderr.write(`\r${' '.repeat(shown)}\r`);
    shown = 0;
  };
  return {
    env,
    live,
    out: (data) =>
      new Promise<void>((resolve, reject) => {
        stdout.write(data, (error) => {
          if (!error) return resolve();
          const code: unknown = (error as { code?: unknown }).code;
          reject(new OutputError(typeof code === 'string' ? code : 'EIO', error));
        });
      }),
    err(text) {
      clear();
      stderr.write(
        text
          .split('\n')
          .map((line) => redact(replaceUnsafe(redact(line), '?')))
          .join('\n'),
      );
    },
    status(text) {
      if (!live) return;
      const line = redact(replaceUnsafe(redact(text), '?'));
      stderr.write(`\r${line.padEnd(shown)}`);
      shown = line.length;
    },
  };
}

/** The Io of this process. Stream errors are handled where they matter (stdout's writes), never thrown. */
export function processIo(): Io {
  // A failed stdout write is reported through its callback as well: the listener only stops the
  // 'error' event from becoming an uncaught exception. stderr has nowhere left to report to.
  process.stdout.on('error', () => {});
  process.stderr.on('error', () => {});
  return makeIo({
    stdout: process.stdout,
    stderr: process.stderr,
    stderrIsTty: process.stderr.isTTY === true,
    env: process.env,
  });
}

/**
 * Runs a command line in this process: its arguments, its streams, Ctrl-C as the abort of the signal,
 * and the exit code that `run` resolves with.
 */
export async function execute(
  run: (argv: readonly string[], io: Io, signal: AbortSignal) => Promise<number>,
): Promise<void> {
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.exitCode = await run(process.argv.slice(2), processIo(), controller.signal);
}
