// Tests of the svc-embed command (dist/cli.js) as a user runs it: output formats, progress, exit codes,
// against the simulated tenant and a loopback server; and the client and CLI examples of docs/api.md and
// docs/cli.md, run as written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTenant } from '@svc-embed/tenant';
import { SCIM_USERS, recipientsOf } from '../../packages/tenant/dist/seed.js';
import { expectedRecipient } from '../support/recipients.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'packages/api/dist/cli.js');
const CSV_HEADER = 'type,userId,email,username,embedUserId,embedTenantName,externalId,channelId,channelName';
/** Per child process: generous, for a machine under heavy load. Tests assert order and outcome, never speed. */
const CHILD_LIMIT_MS = 120_000;
/** What no terminal-bound output may hold: C0 (but tab, LF, CR), DEL, C1, line/paragraph separators, bidi controls. */
const UNSAFE_OUTPUT =
  // eslint-disable-next-line no-control-regex -- the control characters are what it finds
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060\u2066-\u2069\ufeff]/;

/** The environment without any SVC_* variable, nor any proxy setting, of the developer's shell. */
function cleanEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !/^(https?|no)_proxy$/i.test(k)),
  );
  return { ...env, ...extra };
}

/** Runs a child process to completion; resolves with {code, stdout, stderr}. */
function runProcess(command, args, { env, cwd = root, timeout = CHILD_LIMIT_MS, stdoutTo = 'pipe' } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', stdoutTo, 'pipe'], timeout });
    let stdout = '';
    let stderr = '';
    child.stdout?.setEncoding('utf8').on('data', (d) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: signal ? signal : code, stdout, stderr }));
  });
}

const run = (args, env = {}, options = {}) =>
  runProcess(process.execPath, [cli, ...args], { env: cleanEnv(env), ...options });

/** Runs `jobs` (functions returning promises), a few at a time, keeping their order: a loaded machine is not made busier. */
async function inBatches(jobs, size = 4) {
  const results = [];
  for (let i = 0; i < jobs.length; i += size)
    results.push(...(await Promise.all(jobs.slice(i, i + size).map((job) => job()))));
  return results;
}

/** RFC 4180 parser: quoted cells, doubled quotes, CRLF or LF records. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      /* CRLF: the \n ends it */
    } else if (ch === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (cell !== '' || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

describe('svc-embed help and usage', () => {
  test('--help prints the commands and the exit codes on stdout, exit 0', async () => {
    const r = await run(['--help']);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /Usage: svc-embed <command>/);
    assert.match(r.stdout, /recipients/);
    assert.match(r.stdout, /scim-users/);
    assert.match(r.stdout, /Exit codes:[\s\S]*130/);
    const sub = await run(['recipients', '--help']);
    assert.equal(sub.code, 0);
    assert.match(sub.stdout, /--deployment <id>[\s\S]*--notification <id>[\s\S]*--first <n>/);
    const scim = await run(['scim-users', '-h']);
    assert.match(scim.stdout, /--auth-scheme <s>\s+Bearer \(default\) or Api-Key/);
  });

  test('no command: usage on stderr, exit 2; --version prints the package version, after a command too', async () => {
    const r = await run([]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Usage: svc-embed/);
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    for (const args of [
      ['--version'],
      ['-v'],
      ['recipients', '--version'],
      ['scim-users', '-v'],
      ['recipients', '--deployment', '1', '--version'],
    ]) {
      const v = await run(args);
      assert.equal(v.code, 0, `${args.join(' ')}: ${v.stderr}`);
      assert.equal(v.stdout, `${version}\n`);
      assert.equal(v.stderr, '');
    }
  });

  test('a token pasted as an argument is never echoed: a stray argument and an unknown command are named by position', async () => {
    const srv = await loopback(() => assert.fail('no request expected'));
    const token = 'sk-live-ABCdef1234567890';
    try {
      const env = { SVC_BASE_URL: `${srv.origin}/api`, SVC_API_TOKEN: 'cli-usage-token' };
      for (const [args, message] of [
        [['recipients', token], /unexpected argument at position 2: recipients takes flags only/],
        [['recipients', '--deployment', '1', '--notification', '1', token], /unexpected argument at position 6/],
        [['scim-users', '--', token], /unexpected argument at position 3/],
        [[token], /unknown command at position 1/],
        [['recipients', `-${token}`], /unknown flag at position 2/],
        [['recipients', `--${token}`], /unknown flag at position 2/],
        [['recipients', '--deployment', '1', `--${token}=x`], /unknown flag at position 4/],
        [[token, '--deployment', '1'], /unknown command at position 1/],
      ]) {
        const r = await run(args, env);
        assert.equal(r.code, 2, r.stderr);
        assert.match(r.stderr, message);
        for (const part of [token, 'ABCdef', '1234567890'])
          assert.ok(!r.stderr.includes(part) && !r.stdout.includes(part), `${args.join(' ')}: ${r.stderr}`);
      }
    } finally {
      await srv.close();
    }
  });

  test('usage errors exit 2 and send nothing', async () => {
    const srv = await loopback(() => assert.fail('no request expected'));
    try {
      const env = { SVC_BASE_URL: `${srv.origin}/api`, SVC_API_TOKEN: 'cli-usage-token' };
      const cases = [
        [['frobnicate'], env, /unknown command at position 1 \(commands: recipients, scim-users\)\n/],
        [['recipient'], env, /unknown command at position 1; did you mean "recipients"\?/],
        [['recipients', '--notification', '1'], env, /--deployment is required/],
        [['recipients', '--deployment', '1'], env, /--notification is required/],
        [['recipients', '--deployment', 'abc', '--notification', '1'], env, /--deployment must be a positive integer/],
        [
          ['recipients', '--deployment', '0', '--notification', '1'],
          env,
          /--deployment must be a positive safe integer/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--first', '500'],
          env,
          /--first must be an integer from 1 to 200/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--format', 'xml'],
          env,
          /--format must be table, json, csv or ndjson/,
        ],
        [['recipients', '--deployment', '1', '--notification', '1', '--bogus'], env, /unknown flag "--bogus"\n/],
        [
          ['recipients', '--deployment', '1', '--notifcation', '1'],
          env,
          /unknown flag "--notifcation"; did you mean --notification\?/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--fromat', 'csv'],
          env,
          /unknown flag "--fromat"; did you mean --format\?/,
        ],
        [
          ['recipients', '--deploy', '1', '--notification', '1'],
          env,
          /unknown flag "--deploy"; did you mean --deployment\?/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--format', 'jsno'],
          env,
          /--format must be table, json, csv or ndjson; did you mean json\?/,
        ],
        [
          ['recipients', '--deployment', '1', '--deployment', '2', '--notification', '1'],
          env,
          /--deployment is given more than once/,
        ],
        [
          ['recipients', '--deployment=1', '--notification', '1', '--deployment=1'],
          env,
          /--deployment is given more than once/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--format', 'csv', '--format', 'json'],
          env,
          /--format is given more than once/,
        ],
        [['scim-users', '--count', '5', '--count=6'], env, /--count is given more than once/],
        [
          ['scim-users', '--base-url', env.SVC_BASE_URL, '--base-url', env.SVC_BASE_URL],
          env,
          /--base-url is given more than once/,
        ],
        [['recipients', '--deployment', '--notification', '1'], env, /--deployment needs a value/],
        [
          ['recipients', '--deployment', '1', '--notification', '1', 'extra'],
          env,
          /unexpected argument at position 6: recipients takes flags only/,
        ],
        [['scim-users', '--', 'extra'], env, /unexpected argument at position 3: scim-users takes flags only/],
        [['recipients', '--deployment', '1', '--notification', '1', '--quiet=yes'], env, /--quiet takes no value/],
        [
          ['recipients', '--deployment', '1', '--notification', '1'],
          { SVC_BASE_URL: env.SVC_BASE_URL },
          /SVC_API_TOKEN is not set/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1'],
          { SVC_API_TOKEN: 'cli-usage-token' },
          /no base URL/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--base-url', 'http://example.com/api'],
          env,
          /http: on a non-loopback host/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1'],
          { ...env, SVC_API_TOKEN: 'secret value\r\nX-Evil: 1' },
          /SVC_API_TOKEN contains whitespace/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1'],
          { ...env, SVC_API_TOKEN: 'short' },
          /SVC_API_TOKEN is too short \(5 characters\)/,
        ],
        [
          [
            'recipients',
            '--deployment',
            '1',
            '--notification',
            '1',
            '--base-url',
            `http://@${new URL(env.SVC_BASE_URL).host}/api`,
          ],
          env,
          /^svc-embed: --base-url must not contain user-info \(credentials go in SVC_API_TOKEN\)/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1'],
          { ...env, SVC_BASE_URL: 'ftp://example.com/api' },
          /^svc-embed: SVC_BASE_URL must use https:/,
        ],
        [
          ['recipients', '--deployment', '1', '--notification', '1', '--base-url', 'not a url'],
          env,
          /^svc-embed: --base-url is not a valid URL/,
        ],
        [['scim-users', '--auth-scheme', 'Basic'], env, /--auth-scheme must be Bearer or Api-Key/],
        [['scim-users', '--count', '0'], env, /--count must be a positive integer/],
        [['scim-users', '--deployment', '1'], env, /unknown flag "--deployment"/],
        // Not a flag's shape (an escape sequence): named by its position, not shown at all.
        [['recipients', '--\u001b[31mred\u202e', '1'], env, /unknown flag at position 2\n/],
        [
          ['scim-users', '--auth-scheme', 'api-kee'],
          env,
          /--auth-scheme must be Bearer or Api-Key; did you mean Api-Key\?/,
        ],
        // The token is never a flag: the message names the variable, and never shows the value.
        [
          ['recipients', '--token', 'secret value', '--deployment', '1', '--notification', '1'],
          env,
          /^svc-embed: unknown flag "--token": the token is read from SVC_API_TOKEN only \(export SVC_API_TOKEN=<token>\)/,
        ],
        [['scim-users', '--token=secret value'], env, /^svc-embed: unknown flag "--token": [^\n]*SVC_API_TOKEN/],
        [['scim-users', '--max-retries', '11'], env, /--max-retries must be an integer from 0 to 10/],
        [['scim-users', '--max-retries=-1'], env, /--max-retries must be an integer from 0 to 10/],
        [['scim-users', '--timeout', '0'], env, /--timeout must be a number of milliseconds/],
      ];
      const results = await inBatches(
        cases.map(
          ([args, e]) =>
            () =>
              run(args, e),
        ),
      );
      for (const [i, [args, , re]] of cases.entries()) {
        const r = results[i];
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, re);
        assert.match(r.stderr, /--help" for usage/);
        assert.equal(r.stdout, '');
        assert.ok(!r.stderr.includes('secret value'));
        assert.doesNotMatch(r.stderr, UNSAFE_OUTPUT, 'what the user typed is echoed neutralised');
        assert.doesNotMatch(
          r.stderr,
          /baseUrl|maxRetries|timeoutMs|token option/,
          "the client's option names are not the user's",
        );
      }
      assert.equal(srv.requests.length, 0);
    } finally {
      await srv.close();
    }
  });
});

describe('svc-embed against the simulated tenant', () => {
  let tenant;
  let env;
  before(async () => {
    tenant = await startTenant({ port: 0 });
    env = { SVC_BASE_URL: `${tenant.origin}/api`, SVC_API_TOKEN: 'demo-admin-key' };
  });
  after(() => tenant?.close());
  const seeded = () => recipientsOf(1, 1).map((r) => r.item);

  test('--format json: one JSON array of all 250 recipients; off a terminal, only the summary on stderr', async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '1', '--format', 'json'], env);
    assert.equal(r.code, 0, r.stderr);
    const items = JSON.parse(r.stdout);
    assert.ok(Array.isArray(items));
    assert.deepEqual(items, seeded().map(expectedRecipient));
    // Three pages, and stderr is a pipe here: no page lines, no carriage return, no escape.
    assert.equal(r.stderr, 'svc-embed: 250 recipients\n');
  });

  test("the tenant's origin as SVC_BASE_URL (without /api): exit 5, and the hint gives the value to set", async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '1'], {
      ...env,
      SVC_BASE_URL: tenant.origin,
    });
    assert.equal(r.code, 5, r.stderr);
    assert.match(r.stderr, /check the base URL first \(it usually ends in \/api\)/);
    assert.ok(
      r.stderr.endsWith(
        `\nhint: SVC_BASE_URL is ${tenant.origin}, without /api: try SVC_BASE_URL=${tenant.origin}/api\n`,
      ),
      r.stderr,
    );
  });

  test('--format json is written page by page, and is byte for byte the array that one write of the whole gave', async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '1', '--format', 'json', '-q'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout, `${JSON.stringify(seeded().map(expectedRecipient), null, 2)}\n`);
    const none = await run(['recipients', '--deployment', '1', '--notification', '3', '--format', 'json', '-q'], env);
    assert.equal(none.code, 0, none.stderr);
    assert.equal(none.stdout, '[]\n');
    const noneCsv = await run(['recipients', '--deployment', '1', '--notification', '3', '--format', 'csv', '-q'], env);
    assert.equal(noneCsv.stdout, `${CSV_HEADER}\r\n`, 'an empty listing is the header row');
  });

  test('--format ndjson: one JSON object a line, what jq -c reads', async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '1', '--format', 'ndjson'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(r.stdout.endsWith('}\n'));
    const lines = r.stdout.slice(0, -1).split('\n');
    assert.equal(lines.length, 250);
    assert.deepEqual(
      lines.map((l) => JSON.parse(l)),
      seeded().map(expectedRecipient),
    );
    assert.equal(r.stderr, 'svc-embed: 250 recipients\n');
    const users = await run(['scim-users', '--format', 'ndjson', '-q'], { ...env, SVC_API_TOKEN: 'demo-scim-token' });
    assert.equal(users.code, 0, users.stderr);
    assert.equal(users.stdout.trimEnd().split('\n').length, SCIM_USERS.length);
    assert.equal(JSON.parse(users.stdout.split('\n')[0]).schemas[0], 'urn:ietf:params:scim:schemas:core:2.0:User');
  });

  test('--format csv: a header row, then one row per recipient', async () => {
    const r = await run(
      ['recipients', '--deployment', '1', '--notification', '1', '--first', '200', '--format', 'csv', '-q'],
      env,
    );
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', '--quiet silences progress');
    assert.ok(r.stdout.startsWith(`${CSV_HEADER}\r\n`));
    const [header, ...rows] = parseCsv(r.stdout);
    assert.deepEqual(header, CSV_HEADER.split(','));
    assert.equal(rows.length, 250);
    const asCsv = (item) => header.map((k) => (item[k] === null || item[k] === undefined ? '' : String(item[k])));
    assert.deepEqual(
      rows,
      seeded().map((item) => asCsv(expectedRecipient(item))),
    );
  });

  test('table (default): header, rule, one line per recipient', async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '2'], env);
    assert.equal(r.code, 0, r.stderr);
    const lines = r.stdout.trimEnd().split('\n');
    assert.match(lines[0], /^TYPE\s+ID\s+EMAIL\s+USERNAME\s+TENANT\s+EXTERNAL ID\s+CHANNEL$/);
    assert.match(lines[1], /^-+\s+-+/);
    assert.equal(lines.length, 2 + 7);
    const newest = recipientsOf(1, 2)[0].item;
    assert.ok(lines[2].startsWith(newest.type));
    assert.doesNotMatch(r.stderr, /page 2/, 'no progress for a single page');
    assert.match(r.stderr, /7 recipients/);
  });

  test('a base URL one segment too deep (.../api/v1): one line says that the base URL ends before /v1', async () => {
    const r = await run(
      ['recipients', '--deployment', '1', '--notification', '1', '--base-url', `${tenant.origin}/api/v1`],
      env,
    );
    assert.equal(r.code, 5, r.stderr);
    assert.match(
      r.stderr,
      new RegExp(
        `^svc-embed: GET /v1/deployments/1/notifications/1/recipients failed: HTTP 404 \\[request id [^\\]]+\\]: ` +
          `--base-url ${tenant.origin}/api/v1 ends in /v1, where the API's own paths begin: the base URL ends before it\\. ` +
          `Try --base-url ${tenant.origin}/api\n$`,
      ),
    );
    // Said once: neither the guess from the status nor the server's words for it.
    assert.doesNotMatch(r.stderr, /not in deployment|no such endpoint/i);
    const scim = await run(['scim-users'], {
      ...env,
      SVC_API_TOKEN: 'demo-scim-token',
      SVC_BASE_URL: `${tenant.origin}/api/scim/v2`,
    });
    assert.equal(scim.code, 5, scim.stderr);
    assert.match(scim.stderr, /ends in \/scim\/v2, where the API's own paths begin[^\n]*Try SVC_BASE_URL=\S+\/api\n$/);
    assert.equal(scim.stderr.split('\n').length, 2, scim.stderr);
    // A notification that is not there: the server knows the endpoint, and the message stays as it was.
    const missing = await run(['recipients', '--deployment', '1', '--notification', '20'], env);
    assert.equal(missing.code, 5, missing.stderr);
    assert.match(missing.stderr, /^svc-embed: GET \S+ failed: HTTP 404, notification 20 is not in deployment 1/);
  });

  test('scim-users: every user, with Bearer or Api-Key', async () => {
    const scimEnv = { ...env, SVC_API_TOKEN: 'demo-scim-token' };
    const r = await run(['scim-users', '--format', 'json', '--count', '50'], scimEnv);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(
      JSON.parse(r.stdout).map((u) => u.id),
      SCIM_USERS.map((u) => u.id),
    );
    assert.equal(r.stderr, 'svc-embed: 137 users\n', 'no page lines off a terminal');
    // Any case: the scheme is sent, and said, as spelt canonically.
    for (const [given, canonical] of [
      ['bearer', 'Bearer'],
      ['API-KEY', 'Api-Key'],
    ]) {
      const any = await run(['scim-users', '--auth-scheme', given, '--format', 'ndjson', '--count', '100'], scimEnv);
      assert.equal(any.code, 0, any.stderr);
      assert.equal(any.stdout.split('\n').length - 1, SCIM_USERS.length);
      assert.equal(any.stderr, `svc-embed: using --auth-scheme ${canonical}\nsvc-embed: 137 users\n`);
    }
    const csv = await run(['scim-users', '--auth-scheme', 'Api-Key', '--format', 'csv'], scimEnv);
    assert.equal(csv.code, 0, csv.stderr);
    assert.equal(csv.stderr, 'svc-embed: 137 users\n', 'the canonical spelling is not repeated back');
    const [header, ...rows] = parseCsv(csv.stdout);
    assert.deepEqual(header, [
      'id',
      'userName',
      'externalId',
      'displayName',
      'givenName',
      'familyName',
      'email',
      'active',
    ]);
    assert.equal(rows.length, 137);
    const u = SCIM_USERS[0];
    assert.deepEqual(rows[0], [
      u.id,
      u.userName,
      u.externalId,
      u.displayName,
      u.name.givenName,
      u.name.familyName,
      u.userName,
      String(u.active),
    ]);
  });

  test('exit codes: 401 → 3, 403 → 4, 404 → 5, with the status meaning and request id on stderr', async () => {
    const args = (d, n) => ['recipients', '--deployment', String(d), '--notification', String(n)];
    const [unauth, viewer, scoped, scopedOk, missing, scimAsAdmin] = await Promise.all([
      run(args(1, 1), { ...env, SVC_API_TOKEN: 'not-a-key' }),
      run(args(1, 1), { ...env, SVC_API_TOKEN: 'demo-viewer-key' }),
      run(args(2, 20), { ...env, SVC_API_TOKEN: 'demo-scoped-key' }),
      run(args(1, 1), { ...env, SVC_API_TOKEN: 'demo-scoped-key' }),
      run(args(1, 20), env),
      run(['scim-users'], env),
    ]);
    assert.equal(unauth.code, 3);
    assert.match(
      unauth.stderr,
      /HTTP 401, the credential is missing, malformed or expired \[request id [0-9a-f-]{36}\]/,
    );
    assert.ok(!unauth.stderr.includes('not-a-key'));
    assert.equal(viewer.code, 4);
    assert.match(viewer.stderr, /not an admin/);
    assert.equal(scoped.code, 4);
    assert.match(scoped.stderr, /not authorized for this deployment/);
    assert.equal(scopedOk.code, 0);
    assert.equal(missing.code, 5);
    assert.match(missing.stderr, /HTTP 404, notification 20 is not in deployment 1/);
    assert.equal(scimAsAdmin.code, 4);
    assert.match(
      scimAsAdmin.stderr,
      /HTTP 403, .*most likely a REST API key sent to the SCIM endpoint, which needs the SCIM token/,
    );
    assert.doesNotMatch(scimAsAdmin.stderr, /token is valid/);
    assert.match(scimAsAdmin.stderr, /This endpoint needs a SCIM token/);
    assert.match(scimAsAdmin.stderr, /\nhint: SVC_API_TOKEN must be the SCIM token/);
    for (const r of [unauth, viewer, scoped, missing]) assert.equal(r.stdout, '');
  });
});

/** A loopback server; `handle(req, res)` answers; every request is logged. */
async function loopback(handle) {
  const srv = { requests: [] };
  const server = createServer((req, res) => {
    srv.requests.push(req.url);
    handle(req, res, srv.requests.length);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  srv.origin = `http://127.0.0.1:${server.address().port}`;
  srv.close = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  return srv;
}

const jsonRes = (res, status, body, headers = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(typeof body === 'string' ? body : JSON.stringify(body));
};

describe('svc-embed faults (loopback server)', () => {
  const args = ['recipients', '--deployment', '1', '--notification', '1'];
  const TOKEN = 'cli-secret-token-987';

  async function withServer(handle, fn) {
    const srv = await loopback(handle);
    try {
      return await fn({ SVC_BASE_URL: `${srv.origin}/api`, SVC_API_TOKEN: TOKEN }, srv);
    } finally {
      await srv.close();
    }
  }

  test('503 on every attempt: retries on stderr, exit 7 after 3 requests', async () => {
    await withServer(
      (_req, res) => jsonRes(res, 503, { message: 'maintenance' }, { 'retry-after': '0' }),
      async (env, srv) => {
        const r = await run(args, env);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(srv.requests.length, 3);
        assert.match(r.stderr, /HTTP 503 on \/v1\/deployments\/1\/notifications\/1\/recipients, retry 1 in 0\.0 s/);
        assert.match(r.stderr, /failed: HTTP 503, service unavailable \(after 3 attempts\)/);
      },
    );
  });

  test('malformed JSON, a wrong shape or a cursor loop: exit 8; what came before the failure stays written, the JSON array open', async () => {
    await withServer(
      (_req, res) => jsonRes(res, 200, '{"items": ['),
      async (env) => {
        const r = await run([...args, '--format', 'json'], env);
        assert.equal(r.code, 8);
        assert.match(r.stderr, /not valid JSON/);
        assert.equal(r.stdout, '');
      },
    );
    await withServer(
      (_req, res) => jsonRes(res, 200, { items: [{ type: 'USER', userId: 'seven' }] }),
      async (env) => {
        const r = await run(args, env);
        assert.equal(r.code, 8);
        assert.match(r.stderr, /items\[0\]\.userId must be an integer or null/);
      },
    );
    const loop = {
      items: [{ type: 'SLACK', channelId: 'C1' }],
      pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: 'same' },
    };
    await withServer(
      (_req, res) => jsonRes(res, 200, loop),
      async (env, srv) => {
        const r = await run([...args, '--format', 'json'], env);
        assert.equal(r.code, 8);
        assert.match(r.stderr, /repeats an earlier cursor/);
        // The first page was written as it arrived; the array is left open, so no JSON parser takes it for the whole.
        assert.match(r.stdout, /^\[\n {2}\{\n {4}"type": "SLACK",/);
        assert.throws(() => JSON.parse(r.stdout), SyntaxError);
        assert.equal(srv.requests.length, 2);
        const ndjson = await run([...args, '--format', 'ndjson'], env);
        assert.equal(ndjson.code, 8);
        // Both pages arrived before the second one's cursor showed the loop.
        assert.equal(ndjson.stdout, '{"type":"SLACK","channelId":"C1","channelName":null,"username":null}\n'.repeat(2));
      },
    );
  });

  test('a refused connection or a timeout: exit 6, each retry labelled with its cause', async () => {
    const srv = await loopback(() => {});
    await srv.close();
    const r = await run([...args, '--max-retries', '1'], { SVC_BASE_URL: srv.origin, SVC_API_TOKEN: TOKEN });
    assert.equal(r.code, 6);
    assert.match(r.stderr, /network error on \/v1\/deployments\/1\/notifications\/1\/recipients, retry 1 in/);
    assert.match(
      r.stderr,
      new RegExp(
        `network error \\(ECONNREFUSED\\) \\(after 2 attempts\\); tried 127\\.0\\.0\\.1 port ${new URL(srv.origin).port} \\(SVC_BASE_URL\\)\n$`,
      ),
    );
    // TLS spoken to a plain HTTP server, and a name that does not resolve: each names where it went.
    const plain = await loopback((_req, res) => res.end());
    try {
      const tls = await run([...args, '--max-retries', '0'], {
        SVC_BASE_URL: `${plain.origin.replace('http:', 'https:')}/api`,
        SVC_API_TOKEN: TOKEN,
      });
      assert.equal(tls.code, 6, tls.stderr);
      const port = new URL(plain.origin).port;
      assert.match(tls.stderr, new RegExp(`; tried 127\\.0\\.0\\.1 port ${port} \\(SVC_BASE_URL\\)\n$`));
    } finally {
      await plain.close();
    }
    const dns = await run(
      [...args, '--max-retries', '0', '--timeout', '10000', '--base-url', 'https://svc-embed-test.invalid/api'],
      { SVC_API_TOKEN: TOKEN },
    );
    assert.equal(dns.code, 6, dns.stderr);
    // No proxy set: a name that does not resolve is where a proxy would help, and the hint says how to set one.
    assert.match(
      dns.stderr,
      /; tried svc-embed-test\.invalid port 443 \(--base-url\)\nhint: behind a proxy\? set HTTPS_PROXY \(and NO_PROXY[^\n]*\n$/,
    );
    // The server never answers. Whether or not a loaded machine gets the request to it within 100 ms,
    // the outcome is the same: two timeouts, the first one retried, and exit 6.
    await withServer(
      () => {},
      async (env, hung) => {
        const t = await run([...args, '--timeout', '100', '--max-retries', '1'], env);
        assert.equal(t.code, 6, t.stderr);
        assert.match(
          t.stderr,
          /^svc-embed: timeout on \/v1\/deployments\/1\/notifications\/1\/recipients, retry 1 in \d+\.\d s\n/,
        );
        assert.doesNotMatch(t.stderr, /network error/);
        assert.match(t.stderr, /no complete response within 100 ms \(after 2 attempts\)/);
        assert.ok(hung.requests.length <= 2);
      },
    );
  });

  test('Ctrl-C (SIGINT) aborts the request in flight: exit 130', async () => {
    let arrived;
    const reached = new Promise((resolve) => {
      arrived = resolve;
    });
    await withServer(
      () => arrived(),
      async (env, srv) => {
        const child = spawn(process.execPath, [cli, ...args], {
          env: cleanEnv(env),
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: CHILD_LIMIT_MS,
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d) => {
          stderr += d;
        });
        const closed = once(child, 'close');
        // Order, not time: the request arrives first (or the CLI ended early, which fails below).
        const first = await Promise.race([reached.then(() => 'request'), closed.then(() => 'closed')]);
        assert.equal(first, 'request', `the CLI ended before sending its request: ${stderr}`);
        child.kill('SIGINT');
        const [code] = await closed;
        assert.equal(code, 130);
        assert.match(stderr, /svc-embed: interrupted/);
        assert.equal(srv.requests.length, 1);
      },
    );
  });

  test("a Retry-After longer than the client waits: one request, then exit 7 giving the server's delay", async () => {
    await withServer(
      (_req, res) => jsonRes(res, 429, { message: 'slow down' }, { 'retry-after': '3600' }),
      async (env, srv) => {
        const r = await run(args, env);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(srv.requests.length, 1, 'not retried at the cap');
        assert.doesNotMatch(r.stderr, /retry 1 in/);
        assert.match(
          r.stderr,
          /HTTP 429, rate limited: too many requests; the server asks to retry in 3600 s, longer than the client waits \(30 s at most\), so it gives up now/,
        );
      },
    );
  });

  test('a base URL that is not the API (a 404 that is not JSON): check the base URL first', async () => {
    const page = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not Found</h1>');
    };
    await withServer(page, async (env) => {
      for (const cmd of [args, ['scim-users']]) {
        const r = await run(cmd, { ...env, SVC_BASE_URL: new URL(env.SVC_BASE_URL).origin });
        assert.equal(r.code, 5, r.stderr);
        assert.match(
          r.stderr,
          /^svc-embed: GET \S+ failed: HTTP 404, a non-JSON answer, so probably not the API: check the base URL first \(it usually ends in \/api\)/,
        );
        assert.doesNotMatch(r.stderr, /is not in deployment/);
      }
    });
  });

  test('a base URL without /api: the hint names SVC_BASE_URL or --base-url, whichever gave it, and the value to try', async () => {
    const page = (_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not Found</h1>');
    };
    await withServer(page, async (env) => {
      const origin = new URL(env.SVC_BASE_URL).origin;
      for (const cmd of [args, ['scim-users']]) {
        const fromEnv = await run(cmd, { ...env, SVC_BASE_URL: origin });
        assert.equal(fromEnv.code, 5, fromEnv.stderr);
        assert.ok(
          fromEnv.stderr.endsWith(`\nhint: SVC_BASE_URL is ${origin}, without /api: try SVC_BASE_URL=${origin}/api\n`),
          fromEnv.stderr,
        );
        // The flag wins over the variable, and the hint names the flag.
        const fromFlag = await run([...cmd, '--base-url', `${origin}/`], env);
        assert.equal(fromFlag.code, 5, fromFlag.stderr);
        assert.ok(
          fromFlag.stderr.endsWith(`\nhint: --base-url is ${origin}, without /api: try --base-url ${origin}/api\n`),
          fromFlag.stderr,
        );
        assert.doesNotMatch(fromFlag.stderr, /SVC_BASE_URL/);
        // Another path: named, with no guess at the fix.
        const other = await run(cmd, { ...env, SVC_BASE_URL: `${origin}/v1` });
        assert.match(
          other.stderr,
          new RegExp(`\nhint: SVC_BASE_URL is ${origin}/v1: the API's base address usually ends in /api\n$`),
        );
        // With /api, the message alone says it (this server is no API at all): no hint.
        const withApi = await run(cmd, env);
        assert.equal(withApi.code, 5, withApi.stderr);
        assert.doesNotMatch(withApi.stderr, /hint:/);
      }
    });
    // A server's own words that mention the base URL are not the client's advice: no hint.
    await withServer(
      (_req, res) => jsonRes(res, 500, { message: 'check the base URL' }),
      async (env) => {
        const r = await run(args, { ...env, SVC_BASE_URL: new URL(env.SVC_BASE_URL).origin });
        assert.equal(r.code, 7, r.stderr);
        assert.match(r.stderr, /Server says: check the base URL/);
        assert.doesNotMatch(r.stderr, /hint:/);
      },
    );
  });

  test('a server echoing the token never gets it printed', async () => {
    await withServer(
      (req, res) => jsonRes(res, 401, { message: `bad ${req.headers.authorization}` }, { 'x-request-id': TOKEN }),
      async (env) => {
        const r = await run(args, env);
        assert.equal(r.code, 3);
        assert.match(r.stderr, /bad Bearer \[REDACTED\]/);
        assert.ok(!r.stderr.includes(TOKEN) && !r.stdout.includes(TOKEN));
      },
    );
  });

  test('a server that slips a BEL, a line break or a zero-width character into the echoed token still gets it redacted', async () => {
    const cut = 8;
    for (const slipped of ['\u0007', '\n', '\r\n', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u0007\u200b']) {
      const echoed = `${TOKEN.slice(0, cut)}${slipped}${TOKEN.slice(cut)}`;
      await withServer(
        (_req, res) => jsonRes(res, 401, { message: `bad ${echoed} here`, detail: echoed }),
        async (env) => {
          const r = await run(args, env);
          assert.equal(r.code, 3, r.stderr);
          assert.match(r.stderr, /bad \[REDACTED\] here/, JSON.stringify(slipped));
          // Neither the token nor its tail after the slipped character, as a terminal would show them.
          for (const part of [TOKEN, TOKEN.slice(cut)])
            assert.ok(!r.stderr.includes(part), `${JSON.stringify(slipped)}: ${r.stderr}`);
          assert.doesNotMatch(r.stderr, UNSAFE_OUTPUT);
        },
      );
    }
  });

  test('CSV quoting, formula guard, unknown kinds kept; table and CSV neutralise controls, JSON escapes them', async () => {
    const items = [
      { type: 'USER', userId: 1, email: 'a,b@example.com', username: 'say "hi"' },
      { type: 'SLACK', channelId: 'C1', channelName: 'line1\nline2\rover' },
      {
        type: 'EMBED_USER',
        embedUserId: 2,
        externalId: '=HYPERLINK("http://evil")',
        email: '@x',
        username: '\u001b[31mred\u0007',
      },
      { type: 'TEAMS', email: 'team@example.com', teamId: 'T1' },
      { type: 'USER', userId: 3, email: 'evil\u202egnp.exe', username: '\u009b31m\u2028x\u200f' },
      { type: 'USER', userId: 4, email: '\uff1dSUM(A1)', username: '-1+1' },
      { type: 'USER', userId: 5, email: '  =cmd|"/c calc"!A1', username: '\u3000@SUM(1)' },
      { type: 'USER', userId: 6, email: ' +1', username: 'zero\u200bwidth\ufeff' },
    ];
    await withServer(
      (_req, res) => jsonRes(res, 200, { items, pageInfo: null }),
      async (env) => {
        const csv = await run([...args, '--format', 'csv'], env);
        assert.equal(csv.code, 0, csv.stderr);
        assert.doesNotMatch(
          csv.stdout.replace(/\r\n/g, ''),
          UNSAFE_OUTPUT,
          'no raw control or bidi character in the CSV',
        );
        assert.doesNotMatch(csv.stdout.replace(/\r\n/g, ''), /[\r\n]/, 'line breaks only between records');
        const [header, ...rows] = parseCsv(csv.stdout);
        assert.equal(header.join(','), CSV_HEADER);
        assert.equal(rows.length, 8);
        const col = (row, name) => row[header.indexOf(name)];
        assert.equal(col(rows[0], 'email'), 'a,b@example.com');
        assert.equal(col(rows[0], 'username'), 'say "hi"');
        assert.equal(col(rows[1], 'channelName'), 'line1?line2?over');
        assert.equal(col(rows[2], 'externalId'), `'=HYPERLINK("http://evil")`);
        assert.equal(col(rows[2], 'email'), `'@x`);
        assert.equal(col(rows[2], 'username'), '?[31mred?');
        assert.equal(col(rows[3], 'type'), 'TEAMS');
        assert.equal(col(rows[3], 'email'), 'team@example.com');
        assert.equal(col(rows[4], 'email'), 'evil?gnp.exe');
        assert.equal(col(rows[4], 'username'), '?31m?x?');
        assert.equal(col(rows[5], 'email'), `'\uff1dSUM(A1)`, 'a full-width = is a formula too');
        assert.equal(col(rows[5], 'username'), `'-1+1`);
        // Spreadsheets trim leading spaces before they read a formula.
        assert.equal(col(rows[6], 'email'), `'  =cmd|"/c calc"!A1`);
        assert.equal(col(rows[6], 'username'), `'\u3000@SUM(1)`);
        assert.equal(col(rows[7], 'email'), `' +1`);
        assert.equal(col(rows[7], 'username'), 'zero?width?', 'zero-width characters are shown, as ?');

        const json = await run([...args, '--format', 'json'], env);
        assert.doesNotMatch(json.stdout, UNSAFE_OUTPUT, 'JSON writes them as \\u escapes');
        assert.match(json.stdout, /evil\\u202egnp\.exe/);
        assert.deepEqual(JSON.parse(json.stdout)[3], items[3], 'an unknown kind comes out with its raw fields');
        assert.equal(JSON.parse(json.stdout)[4].username, items[4].username, 'the escapes are the same JSON value');

        const table = await run(args, env);
        assert.equal(table.code, 0);
        assert.doesNotMatch(table.stdout, UNSAFE_OUTPUT, 'no escape sequence reaches the terminal');
        assert.match(table.stdout, /\?\[31mred\?/);
        assert.match(table.stdout, /evil\?gnp\.exe/);
        assert.match(table.stdout, /TEAMS \(unknown kind\)/);
        assert.equal(table.stdout.trimEnd().split('\n').length, 2 + 8);
      },
    );
  });

  test(
    'stdout that cannot be written (/dev/full): one line on stderr, exit 9, no success line',
    { skip: !existsSync('/dev/full') && 'no /dev/full' },
    async () => {
      await withServer(
        (_req, res) => jsonRes(res, 200, { items: [{ type: 'SLACK', channelId: 'C1' }], pageInfo: null }),
        async (env) => {
          for (const cmd of [args, [...args, '--format', 'json'], ['--help'], ['recipients', '--version']]) {
            const full = openSync('/dev/full', 'w');
            try {
              const r = await run(cmd, env, { stdoutTo: full });
              assert.equal(r.code, 9, `${cmd.join(' ')}: ${r.stderr}`);
              assert.equal(r.stderr, 'svc-embed: cannot write to stdout: ENOSPC: no space left on device, write\n');
            } finally {
              closeSync(full);
            }
          }
        },
      );
    },
  );

  test('a reader that went away (EPIPE) ends quietly with exit 0', async () => {
    await withServer(
      (_req, res) => jsonRes(res, 200, { items: [{ type: 'SLACK', channelId: 'C1' }], pageInfo: null }),
      async (env) => {
        const child = spawn(process.execPath, [cli, ...args], {
          env: cleanEnv(env),
          stdio: ['ignore', 'pipe', 'pipe'],
          timeout: CHILD_LIMIT_MS,
        });
        // Closed before the CLI has even started: its one write meets a pipe without a reader.
        child.stdout.destroy();
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d) => {
          stderr += d;
        });
        const [code] = await once(child, 'close');
        assert.equal(code, 0, stderr);
        assert.equal(stderr, '');
      },
    );
  });
});

describe('svc-embed output, unit by unit (dist/cli)', () => {
  test('the table and CSV formatters take 200,000 rows (a spread into Math.max overflowed the stack)', async () => {
    const { toCsv, toTable } = await import('../../packages/api/dist/cli/format.js');
    const n = 200_000;
    const rows = Array.from({ length: n }, (_, i) => [
      'USER',
      i,
      `u${i}@example.com`,
      i === n - 1 ? 'the-longest-name-of-all' : 'u',
    ]);
    const table = toTable(['TYPE', 'ID', 'EMAIL', 'USERNAME'], rows);
    const lines = table.trimEnd().split('\n');
    assert.equal(lines.length, 2 + n);
    assert.equal(
      lines[1],
      ['TYPE', String(n - 1), `u${n - 1}@example.com`, 'the-longest-name-of-all']
        .map((c) => '-'.repeat(c.length))
        .join('  '),
      'widths come from every row, the last included',
    );
    assert.equal(lines[2 + n - 1], `USER  ${n - 1}  u${n - 1}@example.com  the-longest-name-of-all`);
    const csv = toCsv(
      ['type', 'id'],
      rows.map(([type, id]) => ({ type, id })),
    );
    assert.equal(csv.split('\r\n').length, 1 + n + 1);
  });

  test('JSON bytes: what escapeUnsafeJson gives, in UTF-8, whether a value needs an escape or not', async () => {
    const { toJson } = await import('../../packages/api/dist/cli/format.js');
    const { escapeUnsafeJson } = await import('../../packages/api/dist/text.js');
    const expected = (v) => Buffer.from(`${escapeUnsafeJson(JSON.stringify(v, null, 2))}\n`, 'utf8');
    for (const text of [
      'plain ascii',
      'a DEL \u007f alone',
      '\u009b31m',
      'caf\u00e9 (safe, beyond ASCII)',
      'line\u2028sep',
      'bidi \u202e and \u2066',
      '\u{1f600} emoji',
      'lone \ud800 surrogate',
      '',
    ]) {
      const value = [{ type: 'USER', username: text }, { key: text }];
      const bytes = toJson(value);
      assert.ok(bytes instanceof Uint8Array, text);
      assert.deepEqual(Buffer.from(bytes), expected(value), text);
      assert.deepEqual(JSON.parse(Buffer.from(bytes).toString('utf8')), value, text);
    }
    assert.match(Buffer.from(toJson(['a DEL \u007f alone'])).toString('latin1'), /DEL \\u007f alone/);
  });

  /** A fake stderr/stdout pair around makeIo. */
  async function fakeIo({ tty, env = {}, failWith } = {}) {
    const { makeIo } = await import('../../packages/api/dist/cli/io.js');
    const written = { out: '', err: '' };
    const stream = (key) => ({
      write(chunk, cb) {
        if (key === 'out' && failWith) {
          queueMicrotask(() => cb?.(Object.assign(new Error(`${failWith}: boom`), { code: failWith })));
          return false;
        }
        written[key] += chunk;
        queueMicrotask(() => cb?.());
        return true;
      },
    });
    return { io: makeIo({ stdout: stream('out'), stderr: stream('err'), stderrIsTty: tty, env }), written };
  }

  const pages = [
    { page: 1, pageItems: 100, received: 100 },
    { page: 2, pageItems: 100, received: 200 },
    { page: 3, pageItems: 50, received: 250 },
  ];

  test('progress on a terminal: redrawn in place with a carriage return, never an escape sequence', async () => {
    const { progress } = await import('../../packages/api/dist/cli/progress.js');
    for (const env of [{ TERM: 'xterm-256color' }, { TERM: 'xterm', NO_COLOR: '1' }, {}]) {
      const { io, written } = await fakeIo({ tty: true, env });
      const show = progress(io, false, 'recipients');
      for (const p of pages) show.page(p);
      show.retry({ retry: 1, delayMs: 1500, status: 0, code: 'TIMEOUT', path: '/v1/x?after=c' });
      show.page({ page: 4, pageItems: 1, received: 251 });
      show.done(251);
      // eslint-disable-next-line no-control-regex -- ESC is the character the test looks for
      assert.doesNotMatch(written.err, /\x1b/, JSON.stringify(env));
      const line = 'svc-embed: page 4, 251 recipients so far';
      assert.equal(
        written.err,
        [
          '\rsvc-embed: page 2, 200 recipients so far',
          '\rsvc-embed: page 3, 250 recipients so far',
          // A notice first blanks the status line out, with spaces.
          `\r${' '.repeat(line.length)}\rsvc-embed: timeout on /v1/x, retry 1 in 1.5 s\n`,
          `\r${line}`,
          `\r${' '.repeat(line.length)}\rsvc-embed: 251 recipients\n`,
        ].join(''),
      );
    }
  });

  test('progress off a terminal or on TERM=dumb: only retry notices and the summary; --quiet: nothing', async () => {
    const { progress } = await import('../../packages/api/dist/cli/progress.js');
    for (const [tty, env] of [
      [false, { TERM: 'xterm' }],
      [true, { TERM: 'dumb' }],
      [false, {}],
    ]) {
      const { io, written } = await fakeIo({ tty, env });
      const show = progress(io, false, 'users');
      for (const p of pages) show.page({ ...p, total: 250 });
      show.retry({ retry: 1, delayMs: 500, status: 503, code: 'HTTP_ERROR', path: '/scim/v2/Users?startIndex=101' });
      show.retry({ retry: 2, delayMs: 1000, status: 0, code: 'NETWORK_ERROR', path: '/scim/v2/Users?startIndex=101' });
      show.done(250);
      assert.equal(
        written.err,
        'svc-embed: HTTP 503 on /scim/v2/Users, retry 1 in 0.5 s\n' +
          'svc-embed: network error on /scim/v2/Users, retry 2 in 1.0 s\nsvc-embed: 250 users\n',
        `${tty} ${JSON.stringify(env)}`,
      );
    }
    for (const tty of [true, false]) {
      const { io, written } = await fakeIo({ tty, env: { TERM: 'xterm' } });
      const show = progress(io, true, 'users');
      for (const p of pages) show.page(p);
      show.retry({ retry: 1, delayMs: 500, status: 503, code: 'HTTP_ERROR', path: '/scim/v2/Users' });
      show.done(250);
      assert.equal(written.err, '');
    }
  });

  test('stderr lines are neutralised and never hold the token; a failed stdout write rejects with its code', async () => {
    const token = 'cli-unit-token-42';
    const { io, written } = await fakeIo({ tty: false, env: { SVC_API_TOKEN: token } });
    io.err(`svc-embed: \u001b]0;title\u0007 ${token} \u202eok\nsecond line\n`);
    assert.equal(written.err, 'svc-embed: ?]0;title? [REDACTED] ?ok\nsecond line\n');
    const failing = await fakeIo({ tty: false, failWith: 'ENOSPC' });
    await assert.rejects(failing.io.out('data'), { name: 'OutputError', code: 'ENOSPC' });
  });
});

describe('docs examples (docs/api.md and docs/cli.md)', () => {
  let tenant;
  let dir;
  before(async () => {
    tenant = await startTenant({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'svc-embed-docs-'));
  });
  after(async () => {
    await tenant?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const MARKER = /^<!-- Run by test\/node\/api-cli\.test\.mjs[^>]*-->$/;

  /**
   * The code blocks of a docs page that a comment marks as run by this file, in `lang`. Every block of code on the
   * page must be so marked, so that no example goes unrun: the only others allowed are `text` (usage and the
   * generated help) and a `sh` block that only installs packages.
   */
  function blocks(page, lang) {
    const text = readFileSync(join(root, page), 'utf8');
    const fences = [...text.matchAll(/^```(\w*)\n([\s\S]*?)^```$/gm)];
    assert.ok(fences.length > 0, `${page} has code blocks`);
    const run = [];
    for (const m of fences) {
      const [, language, body] = m;
      const before = text.slice(0, m.index).trimEnd().split('\n').at(-1);
      if (MARKER.test(before)) {
        run.push({ language, body });
        continue;
      }
      const lines = body.trimEnd().split('\n');
      const install = language === 'sh' && lines.every((line) => /^npm install /.test(line));
      assert.ok(language === 'text' || install, `${page}: a ${language || 'plain'} block that no test runs:\n${body}`);
    }
    assert.ok(
      run.every((b) => b.language === 'js' || b.language === 'sh'),
      `${page}: this file runs js and sh blocks only`,
    );
    return run.filter((b) => b.language === lang).map((b) => b.body);
  }

  test('the JavaScript example of docs/api.md prints what its comments say', async () => {
    assert.equal(blocks('docs/api.md', 'sh').length, 0);
    const js = blocks('docs/api.md', 'js');
    assert.equal(js.length, 1, 'docs/api.md has its one example');
    const [code] = js;
    assert.ok(code.includes("from '@svc-embed/api'"));
    const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    assert.equal(expected.length, 4);
    // Run as written: the package resolves itself by name from the repository root.
    const r = await runProcess(process.execPath, ['--input-type=module', '-e', code], {
      env: cleanEnv({
        SVC_BASE_URL: `${tenant.origin}/api`,
        SVC_API_TOKEN: 'demo-admin-key',
        SVC_SCIM_TOKEN: 'demo-scim-token',
      }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), expected);
  });

  test('the shell example of docs/cli.md runs as written against the tenant', async () => {
    assert.equal(blocks('docs/cli.md', 'js').length, 0);
    const sh = blocks('docs/cli.md', 'sh');
    assert.equal(sh.length, 1, 'docs/cli.md has its one example');
    const [script] = sh;
    const documented = 'export SVC_BASE_URL=http://127.0.0.1:8001/api';
    assert.ok(script.includes(documented));
    // `svc-embed` on PATH, as `npm install -g @svc-embed/api` or `npx` would provide it.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'svc-embed'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
    chmodSync(join(bin, 'svc-embed'), 0o755);
    // The page runs it as `npx svc-embed`; here the `svc-embed` on PATH stands in, so nothing is fetched.
    assert.match(script, /^npx svc-embed /m);
    const local = script
      .replace(documented, `export SVC_BASE_URL=${tenant.origin}/api`)
      .replaceAll('npx svc-embed ', 'svc-embed ');
    const r = await runProcess('sh', ['-e', '-c', local], {
      cwd: dir,
      env: cleanEnv({ PATH: `${bin}:${process.env.PATH}` }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^TYPE\s+ID/);
    assert.equal(r.stdout.trimEnd().split('\n').length, 2 + 250);
    assert.equal(JSON.parse(readFileSync(join(dir, 'recipients.json'), 'utf8')).length, 250);
    const ndjson = readFileSync(join(dir, 'recipients.ndjson'), 'utf8').trimEnd().split('\n');
    assert.equal(ndjson.map((line) => JSON.parse(line)).length, 250);
    assert.equal(parseCsv(readFileSync(join(dir, 'recipients.csv'), 'utf8')).length, 1 + 250);
    assert.equal(parseCsv(readFileSync(join(dir, 'users.csv'), 'utf8')).length, 1 + SCIM_USERS.length);
  });
});
