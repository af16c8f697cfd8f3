// Child processes for the Node tests: run one to its end, or start one and wait until it prints a line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

/** Runs `command` to completion: resolves with {code (the signal's name if a signal ended it), stdout, stderr}. */
export function runToEnd(command, args, { cwd, env = process.env, timeout = 120_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, timeout, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: signal ?? code, stdout, stderr }));
  });
}

/**
 * Starts `command` and resolves once its stdout holds `banner`, with {child, stdout, stderr (both as
 * printed so far, and growing), exited (resolves with the exit code, or the signal's name)}. Rejects when it
 * exits first. `detached` gives it a process group of its own, as a shell does. `running`, a Set, holds the
 * child from its start to its exit, so that a test can kill whatever is left, whatever failed.
 */
export async function startUntil(command, args, banner, { cwd, env = process.env, detached = false, running } = {}) {
  const child = spawn(command, args, { cwd, env, detached, stdio: ['ignore', 'pipe', 'pipe'] });
  running?.add(child);
  const state = { child, stdout: '', stderr: '' };
  state.exited = once(child, 'exit').then(([code, signal]) => {
    running?.delete(child);
    return signal ?? code;
  });
  child.stdout.setEncoding('utf8').on('data', (d) => {
    state.stdout += d;
  });
  child.stderr.setEncoding('utf8').on('data', (d) => {
    state.stderr += d;
  });
  await Promise.race([
    new Promise((resolve) => child.stdout.on('data', () => state.stdout.includes(banner) && resolve())),
    state.exited.then((code) => {
      throw new Error(
        `${command} ${args.join(' ')} exited ${code} before printing ${JSON.stringify(banner)}: ${state.stderr}`,
      );
    }),
  ]);
  return state;
}
