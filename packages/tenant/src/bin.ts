#!/usr/bin/env node
/**
 * `svc-embed-tenant` (also `npx @svc-embed/tenant`): the simulated tenant as a command, running until
 * Ctrl-C or SIGTERM. Its flags are parsed, its mistakes named and its exit codes chosen the way the
 * `svc-embed` command of `@svc-embed/api` does it, with that package's command kit.
 */
import { EXIT, UsageError, choiceFlag, execute, integerFlag, runCommand } from '@svc-embed/api/cli';
import type { Command } from '@svc-embed/api/cli';
import { describeTenant, startTenant } from './index.js';
import type { Tenant } from './index.js';

const NAME = 'svc-embed-tenant';
const DEFAULT_PORT = 8001;
const DEFAULT_HOST = '127.0.0.1';
/** The tenant could not start (a port in use, an address not of this machine): the one failure after the flags. */
const NOT_STARTED = 1;

/** startTenant's TypeError in the words of the command line: its option names as flags. */
function flagWording(message: string): string {
  return message
    .replace(/^startTenant: host\b/, '--host')
    .replace(/^allowOrigins: /, '--allow-origin ')
    .replace(/^startTenant: /, '')
    .replace('pass expose: true to allow it', 'pass --expose to allow it');
}

/** Why listening failed, as one line that says what to do; the system's code when it is not a known one. */
function startFailure(error: unknown, port: number, host: string): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is in use: choose another with --port (--port 0 picks a free one)`;
    case 'EACCES':
      return `no permission to listen on port ${port}: ports below 1024 need privileges; choose another with --port`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `cannot listen on ${host}: it is not an address of this machine (use --host 127.0.0.1)`;
    default:
      return `the tenant could not start: ${typeof code === 'string' ? code : ((error as Error)?.message ?? String(error))}`;
  }
}

const tenantCommand: Command = {
  name: NAME,
  summary: 'run the simulated tenant (embed surfaces, REST, SCIM, demo keys) on this machine until Ctrl-C',
  help: `Usage: svc-embed-tenant [--port <n>] [--host <host> [--expose]] [--allow-origin <origin>]... [--latency off|on]
                        [--reusable-sessions] [--embed-history]

Runs the simulated tenant on one local origin: the embed surfaces (dashboard, app, chat), the REST and
SCIM endpoints, the seeded data and the demo keys. Point <svc-embed> on your own dev server at it: it
prints its origin, an example tag, the sessions and the keys. Ctrl-C (or SIGTERM) stops it.

Options:
  --port <n>               port to listen on, 0 to 65535 (default ${DEFAULT_PORT}; 0 picks a free one)
  --host <host>            host name or IP address to listen on (default ${DEFAULT_HOST}). One that other
                           machines reach (0.0.0.0, a LAN address) needs --expose
  --expose                 allow such a host: anyone who can reach it can use the demo keys and
                           sessions. It prints a warning, and the origins other machines would use
  --allow-origin <origin>  a host page origin that may frame the embed and exchange messages with it:
                           an origin (http://localhost:5173) or one with any port (http://localhost:*).
                           Repeat it for more. Default: http://localhost:* and http://127.0.0.1:*
  --latency off|on         off answers the embed's queries without the simulated delay (default on)
  --reusable-sessions      let a minted session (POST /api/v1/embed/sessions) be loaded any number of
                           times until it ends. Default: single-use, as the service's: the first embed
                           load exchanges it, and any other load is refused (SessionUsedError)
  --embed-history          the embed pages keep their own history, as a single-page app's router does:
                           a navigation the viewer makes pushes an entry (which joins the tab's history),
                           one the host asks for replaces it. One frame can ask with embedHistory=1 in its URL
  -h, --help               this help

Exit codes:
  0    stopped by Ctrl-C (SIGINT) or SIGTERM
  1    the tenant could not start: the port is in use, or the host is not an address of this machine
  2    usage: unknown flag, invalid value, or a host that is not loopback without --expose
`,
  flags: {
    port: { type: 'string' },
    host: { type: 'string' },
    'allow-origin': { type: 'string', repeat: true },
    latency: { type: 'string' },
    expose: { type: 'boolean' },
    'reusable-sessions': { type: 'boolean' },
    'embed-history': { type: 'boolean' },
  },

  async run({ flags, io, signal, program }) {
    const port = integerFlag(flags, 'port', false, NAME, 'a port number from 0 to 65535') ?? DEFAULT_PORT;
    if (port > 65535) throw new UsageError('--port must be a port number from 0 to 65535', NAME);
    const host = typeof flags.host === 'string' ? flags.host : DEFAULT_HOST;
    const allowOrigins = flags['allow-origin'] as readonly string[] | undefined;
    const latency = choiceFlag(flags, 'latency', ['off', 'on'] as const, 'on', NAME) === 'on';

    let running: Tenant;
    try {
      running = await startTenant({
        port,
        host,
        latency,
        expose: flags.expose === true,
        reusableSessions: flags['reusable-sessions'] === true,
        embedHistory: flags['embed-history'] === true,
        ...(allowOrigins ? { allowOrigins } : {}),
      });
    } catch (error) {
      // The options are checked before anything listens: a TypeError is a flag's value.
      if (error instanceof TypeError) throw new UsageError(flagWording(error.message), NAME);
      io.err(`${program}: ${startFailure(error, port, host)}\n`);
      return NOT_STARTED;
    }

    let stop = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    // Ctrl-C arrives as the abort of `signal` (see execute); SIGTERM, which a process manager or a test
    // runner sends, is this command's to handle.
    signal.addEventListener('abort', stop, { once: true });
    process.once('SIGTERM', stop);
    try {
      if (signal.aborted) stop();
      await io.out(`${describeTenant(running)}\n\n  Ctrl-C stops it.\n`);
      await stopped;
    } finally {
      signal.removeEventListener('abort', stop);
      process.off('SIGTERM', stop);
      await running.close();
    }
    io.err(`${program}: stopped\n`);
    return EXIT.ok;
  },
};

await execute((argv, io, signal) => runCommand(tenantCommand, argv, io, signal));
