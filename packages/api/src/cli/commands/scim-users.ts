/** `svc-embed scim-users`: every SCIM user (docs/api.md, "SCIM users"; docs/cli.md, "Commands"). */
import type { ScimUser } from '../../index.js';
import { API_FLAGS, API_HELP, UsageError, choiceFlag, integerFlag } from '../args.js';
import type { Command } from '../command.js';
import { EXIT_HELP } from '../errors.js';
import { toTable } from '../format.js';
import type { Row } from '../format.js';
import { runListing } from '../listing.js';

const NAME = 'scim-users';

const COLUMNS = ['id', 'userName', 'externalId', 'displayName', 'givenName', 'familyName', 'email', 'active'] as const;

function record(u: ScimUser): Row {
  const name = u.name ?? {};
  const email = u.emails?.find((e) => e.primary === true) ?? u.emails?.[0];
  return {
    id: u.id,
    userName: u.userName,
    externalId: u.externalId ?? null,
    displayName: u.displayName ?? null,
    givenName: typeof name.givenName === 'string' ? name.givenName : null,
    familyName: typeof name.familyName === 'string' ? name.familyName : null,
    email: email?.value ?? null,
    active: u.active ?? null,
  };
}

function table(users: readonly ScimUser[]): string {
  const rows = users.map((u) => {
    const r = record(u);
    return [r.id, r.userName, r.displayName, r.active === null ? '' : r.active ? 'yes' : 'no', r.externalId];
  });
  return toTable(['ID', 'USER NAME', 'DISPLAY NAME', 'ACTIVE', 'EXTERNAL ID'], rows);
}

export const scimUsers: Command = {
  name: NAME,
  summary: 'list every SCIM user (GET /scim/v2/Users)',
  help: `Usage: svc-embed scim-users [--format table|json|ndjson|csv] [--auth-scheme Bearer|Api-Key] [--count <n>] [--start-index <n>] [--base-url <url>]

Lists every SCIM user, page after page. SVC_API_TOKEN holds the SCIM token.

Options:
  --auth-scheme <s>   Bearer (default) or Api-Key, in any case
  --count <n>         page size, a positive integer (default: the server's)
  --start-index <n>   the 1-based index to start at (default 1): what a stopped listing's last line gives, to resume it

${API_HELP}

${EXIT_HELP}
`,
  flags: {
    ...API_FLAGS,
    'auth-scheme': { type: 'string' },
    count: { type: 'string' },
    'start-index': { type: 'string' },
  },

  async run(ctx) {
    const count = integerFlag(ctx.flags, 'count', false, NAME);
    if (count === 0) throw new UsageError('--count must be a positive integer', NAME);
    const startIndex = integerFlag(ctx.flags, 'start-index', false, NAME);
    if (startIndex === 0) throw new UsageError('--start-index must be a positive integer: the first user is 1', NAME);
    // Auth schemes are case-insensitive (RFC 9110, 11.1): any case is taken, and the canonical spelling is said.
    const scheme = choiceFlag(ctx.flags, 'auth-scheme', ['Bearer', 'Api-Key'] as const, undefined, NAME, true);
    if (scheme !== undefined && scheme !== ctx.flags['auth-scheme'] && !ctx.flags.quiet)
      ctx.io.err(`${ctx.program}: using --auth-scheme ${scheme}\n`);
    return runListing(ctx, {
      command: NAME,
      noun: 'users',
      names: { count: '--count', scimAuthScheme: '--auth-scheme', startIndex: '--start-index' },
      scimAuthScheme: scheme,
      resume: {
        flag: '--start-index',
        from: startIndex === undefined ? undefined : String(startIndex),
        after: (p) => (p.nextStartIndex === undefined ? undefined : String(p.nextStartIndex)),
      },
      iterate: (client, onPage, signal, onWarning) =>
        client.scim.users({ count, startIndex, signal, onPage, onWarning }),
      // The SCIM resources as received: JSON carries every attribute, not only the columns.
      json: (user) => user,
      columns: COLUMNS,
      row: record,
      table,
    });
  },

  hint(err) {
    if (err.status === 401) return 'check SVC_API_TOKEN (the SCIM token) and --auth-scheme';
    return err.status === 403
      ? 'SVC_API_TOKEN must be the SCIM token: the SCIM endpoint refuses a REST API key'
      : undefined;
  },
};
