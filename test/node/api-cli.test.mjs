// Tests of the svc-embed command (dist/cli.js) as a user runs it: output formats, progress, exit codes,
// against the simulated tenant and a loopback server; and the README's client and CLI examples, run as
// written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startTenant } from '../../demo/tenant/server.mjs';
import { SCIM_USERS, recipientsOf } from '../../demo/tenant/seed.js';
import { expectedRecipient } from '../support/recipients.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'dist/cli.js');
const CSV_HEADER = 'type,userId,email,username,embedUserId,embedTenantName,externalId,channelId,channelName';

/** The environment without any SVC_* variable of the developer's shell. */
function cleanEnv(extra) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_')));
  return { ...env, ...extra };
}

/** Runs a child process to completion; resolves with {code, stdout, stderr}. */
function runProcess(command, args, { env, cwd = root, timeout = 15_000 } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: signal ? signal : code, stdout, stderr }));
  });
}

const run = (args, env = {}) => runProcess(process.execPath, [cli, ...args], { env: cleanEnv(env) });

/** RFC 4180 parser: quoted cells, doubled quotes, CRLF or LF records. */
function parseCsv(text) {
  const rows = [];
  let row = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (ch === '"') quoted = false; else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { row.push(cell); cell = ''; } else if (ch === '\r' && text[i + 1] === '\n') { /* CRLF: the \n ends it */ } else if (ch === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; } else cell += ch;
  }
  if (cell !== '' || row.length) { row.push(cell); rows.push(row); }
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

  test('no command: usage on stderr, exit 2; --version prints the package version', async () => {
    const r = await run([]);
    assert.equal(r.code, 2);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /Usage: svc-embed/);
    const v = await run(['--version']);
    assert.equal(v.code, 0);
    assert.equal(v.stdout.trim(), JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version);
  });

  test('usage errors exit 2 and send nothing', async () => {
    const srv = await loopback(() => assert.fail('no request expected'));
    try {
      const env = { SVC_BASE_URL: `${srv.origin}/api`, SVC_API_TOKEN: 'cli-usage-token' };
      const cases = [
        [['frobnicate'], env, /unknown command "frobnicate"/],
        [['recipients', '--notification', '1'], env, /--deployment is required/],
        [['recipients', '--deployment', '1'], env, /--notification is required/],
        [['recipients', '--deployment', 'abc', '--notification', '1'], env, /--deployment must be a positive integer/],
        [['recipients', '--deployment', '0', '--notification', '1'], env, /--deployment must be a positive safe integer/],
        [['recipients', '--deployment', '1', '--notification', '1', '--first', '500'], env, /--first must be an integer from 1 to 200/],
        [['recipients', '--deployment', '1', '--notification', '1', '--format', 'xml'], env, /--format must be table, json or csv/],
        [['recipients', '--deployment', '1', '--notification', '1', '--bogus'], env, /Unknown option '--bogus'/],
        [['recipients', '--deployment', '1', '--notification', '1'], { SVC_BASE_URL: env.SVC_BASE_URL }, /SVC_API_TOKEN is not set/],
        [['recipients', '--deployment', '1', '--notification', '1'], { SVC_API_TOKEN: 'cli-usage-token' }, /no base URL/],
        [['recipients', '--deployment', '1', '--notification', '1', '--base-url', 'http://example.com/api'], env, /http: on a non-loopback host/],
        [['recipients', '--deployment', '1', '--notification', '1'], { ...env, SVC_API_TOKEN: 'secret value\r\nX-Evil: 1' }, /SVC_API_TOKEN contains whitespace/],
        [['recipients', '--deployment', '1', '--notification', '1'], { ...env, SVC_API_TOKEN: 'short' }, /SVC_API_TOKEN is too short \(5 characters\)/],
        [['recipients', '--deployment', '1', '--notification', '1', '--base-url', `http://@${new URL(env.SVC_BASE_URL).host}/api`], env, /baseUrl must not contain user-info/],
        [['scim-users', '--auth-scheme', 'Basic'], env, /--auth-scheme must be Bearer or Api-Key/],
        [['scim-users', '--count', '0'], env, /--count must be a positive integer/],
        [['scim-users', '--deployment', '1'], env, /Unknown option '--deployment'/],
        [['scim-users', '--max-retries', '11'], env, /--max-retries must be an integer from 0 to 10/],
        [['scim-users', '--max-retries=-1'], env, /--max-retries must be an integer from 0 to 10/],
        [['scim-users', '--timeout', '0'], env, /--timeout must be a number of milliseconds/],
      ];
      const results = await Promise.all(cases.map(([args, e]) => run(args, e)));
      for (const [i, [args, , re]] of cases.entries()) {
        const r = results[i];
        assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
        assert.match(r.stderr, re);
        assert.match(r.stderr, /--help" for usage/);
        assert.equal(r.stdout, '');
        assert.ok(!r.stderr.includes('secret value'));
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

  test('--format json: one JSON array of all 250 recipients; progress on stderr', async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '1', '--format', 'json'], env);
    assert.equal(r.code, 0, r.stderr);
    const items = JSON.parse(r.stdout);
    assert.ok(Array.isArray(items));
    assert.deepEqual(items, seeded().map(expectedRecipient));
    assert.match(r.stderr, /page 2, 200 recipients so far/);
    assert.match(r.stderr, /page 3, 250 recipients so far/);
    assert.match(r.stderr, /250 recipients\n$/);
  });

  test('--format csv: a header row, then one row per recipient', async () => {
    const r = await run(['recipients', '--deployment', '1', '--notification', '1', '--first', '200', '--format', 'csv', '-q'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stderr, '', '--quiet silences progress');
    assert.ok(r.stdout.startsWith(`${CSV_HEADER}\r\n`));
    const [header, ...rows] = parseCsv(r.stdout);
    assert.deepEqual(header, CSV_HEADER.split(','));
    assert.equal(rows.length, 250);
    const asCsv = (item) => header.map((k) => (item[k] === null || item[k] === undefined ? '' : String(item[k])));
    assert.deepEqual(rows, seeded().map((item) => asCsv(expectedRecipient(item))));
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

  test('scim-users: every user, with Bearer or Api-Key', async () => {
    const scimEnv = { ...env, SVC_API_TOKEN: 'demo-scim-token' };
    const r = await run(['scim-users', '--format', 'json', '--count', '50'], scimEnv);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout).map((u) => u.id), SCIM_USERS.map((u) => u.id));
    assert.match(r.stderr, /page 3, 137 of 137 users so far/);
    const csv = await run(['scim-users', '--auth-scheme', 'Api-Key', '--format', 'csv'], scimEnv);
    assert.equal(csv.code, 0, csv.stderr);
    const [header, ...rows] = parseCsv(csv.stdout);
    assert.deepEqual(header, ['id', 'userName', 'externalId', 'displayName', 'givenName', 'familyName', 'email', 'active']);
    assert.equal(rows.length, 137);
    const u = SCIM_USERS[0];
    assert.deepEqual(rows[0], [u.id, u.userName, u.externalId, u.displayName, u.name.givenName, u.name.familyName, u.userName, String(u.active)]);
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
    assert.match(unauth.stderr, /HTTP 401, the credential is missing, malformed or expired \[request id [0-9a-f-]{36}\]/);
    assert.ok(!unauth.stderr.includes('not-a-key'));
    assert.equal(viewer.code, 4);
    assert.match(viewer.stderr, /not an admin/);
    assert.equal(scoped.code, 4);
    assert.match(scoped.stderr, /not authorized for this deployment/);
    assert.equal(scopedOk.code, 0);
    assert.equal(missing.code, 5);
    assert.match(missing.stderr, /HTTP 404, notification 20 is not in deployment 1/);
    assert.equal(scimAsAdmin.code, 4);
    assert.match(scimAsAdmin.stderr, /This endpoint needs a SCIM token/);
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
  srv.close = () => new Promise((resolve) => {
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
    await withServer((_req, res) => jsonRes(res, 503, { message: 'maintenance' }, { 'retry-after': '0' }), async (env, srv) => {
      const r = await run(args, env);
      assert.equal(r.code, 7, r.stderr);
      assert.equal(srv.requests.length, 3);
      assert.match(r.stderr, /HTTP 503 on \/v1\/deployments\/1\/notifications\/1\/recipients, retry 1 in 0\.0 s/);
      assert.match(r.stderr, /failed: HTTP 503, service unavailable \(after 3 attempts\)/);
    });
  });

  test('malformed JSON, a wrong shape or a cursor loop: exit 8 and no partial output', async () => {
    await withServer((_req, res) => jsonRes(res, 200, '{"items": ['), async (env) => {
      const r = await run([...args, '--format', 'json'], env);
      assert.equal(r.code, 8);
      assert.match(r.stderr, /not valid JSON/);
      assert.equal(r.stdout, '');
    });
    await withServer((_req, res) => jsonRes(res, 200, { items: [{ type: 'USER', userId: 'seven' }] }), async (env) => {
      const r = await run(args, env);
      assert.equal(r.code, 8);
      assert.match(r.stderr, /items\[0\]\.userId must be an integer or null/);
    });
    const loop = { items: [{ type: 'SLACK', channelId: 'C1' }], pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: 'same' } };
    await withServer((_req, res) => jsonRes(res, 200, loop), async (env, srv) => {
      const r = await run([...args, '--format', 'json'], env);
      assert.equal(r.code, 8);
      assert.match(r.stderr, /repeats an earlier cursor/);
      assert.equal(r.stdout, '');
      assert.equal(srv.requests.length, 2);
    });
  });

  test('a refused connection or a timeout: exit 6', async () => {
    const srv = await loopback(() => {});
    await srv.close();
    const r = await run([...args, '--max-retries', '1'], { SVC_BASE_URL: srv.origin, SVC_API_TOKEN: TOKEN });
    assert.equal(r.code, 6);
    assert.match(r.stderr, /network error on \/v1\/deployments\/1\/notifications\/1\/recipients, retry 1 in/);
    assert.match(r.stderr, /network error \(ECONNREFUSED\) \(after 2 attempts\)/);
    await withServer(() => {}, async (env, hung) => {
      const t = await run([...args, '--timeout', '100', '--max-retries', '0'], env);
      assert.equal(t.code, 6);
      assert.match(t.stderr, /no complete response within 100 ms/);
      assert.equal(hung.requests.length, 1);
    });
  });

  test('Ctrl-C (SIGINT) aborts the request in flight: exit 130', async () => {
    await withServer(() => {}, async (env, srv) => {
      const child = spawn(process.execPath, [cli, ...args], { env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d; });
      for (const deadline = Date.now() + 5000; srv.requests.length === 0;) {
        assert.ok(Date.now() < deadline, 'the CLI never sent its request');
        await new Promise((r) => setTimeout(r, 10));
      }
      child.kill('SIGINT');
      const [code] = await once(child, 'close');
      assert.equal(code, 130);
      assert.match(stderr, /svc-embed: interrupted/);
      assert.equal(srv.requests.length, 1);
    });
  });

  test('a server echoing the token never gets it printed', async () => {
    await withServer((req, res) => jsonRes(res, 401, { message: `bad ${req.headers.authorization}` }, { 'x-request-id': TOKEN }), async (env) => {
      const r = await run(args, env);
      assert.equal(r.code, 3);
      assert.match(r.stderr, /bad Bearer \[REDACTED\]/);
      assert.ok(!r.stderr.includes(TOKEN) && !r.stdout.includes(TOKEN));
    });
  });

  test('CSV quoting, formula guard, unknown kinds kept; the table strips control characters', async () => {
    const items = [
      { type: 'USER', userId: 1, email: 'a,b@example.com', username: 'say "hi"' },
      { type: 'SLACK', channelId: 'C1', channelName: 'line1\nline2' },
      { type: 'EMBED_USER', embedUserId: 2, externalId: '=HYPERLINK("http://evil")', email: '@x', username: '\u001b[31mred' },
      { type: 'TEAMS', email: 'team@example.com', teamId: 'T1' },
    ];
    await withServer((_req, res) => jsonRes(res, 200, { items, pageInfo: null }), async (env) => {
      const csv = await run([...args, '--format', 'csv'], env);
      assert.equal(csv.code, 0, csv.stderr);
      const [header, ...rows] = parseCsv(csv.stdout);
      assert.equal(header.join(','), CSV_HEADER);
      assert.equal(rows.length, 4);
      const col = (row, name) => row[header.indexOf(name)];
      assert.equal(col(rows[0], 'email'), 'a,b@example.com');
      assert.equal(col(rows[0], 'username'), 'say "hi"');
      assert.equal(col(rows[1], 'channelName'), 'line1\nline2');
      assert.equal(col(rows[2], 'externalId'), `'=HYPERLINK("http://evil")`);
      assert.equal(col(rows[2], 'email'), `'@x`);
      assert.equal(col(rows[3], 'type'), 'TEAMS');
      assert.equal(col(rows[3], 'email'), 'team@example.com');

      const json = await run([...args, '--format', 'json'], env);
      assert.deepEqual(JSON.parse(json.stdout)[3], items[3], 'an unknown kind comes out with its raw fields');

      const table = await run(args, env);
      assert.equal(table.code, 0);
      assert.ok(!table.stdout.includes('\u001b'), 'no escape sequence reaches the terminal');
      assert.match(table.stdout, /\?\[31mred/);
      assert.match(table.stdout, /TEAMS \(unknown kind\)/);
      assert.equal(table.stdout.trimEnd().split('\n').length, 2 + 4);
    });
  });
});

describe('README examples (section "REST and SCIM client")', () => {
  let tenant;
  let dir;
  before(async () => {
    tenant = await startTenant({ port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'svc-embed-readme-'));
  });
  after(async () => {
    await tenant?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** The fenced blocks of the section that a comment marks as run by this file. */
  function blocks(lang) {
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## REST and SCIM client\n'), readme.indexOf('## Simulated tenant and demo\n'));
    const re = new RegExp(`<!-- Run by test/node/api-cli\\.test\\.mjs[^>]*-->\\n\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g');
    return [...section.matchAll(re)].map((m) => m[1]);
  }

  test('the JavaScript example prints what its comments say', async () => {
    const [code] = blocks('js');
    assert.ok(code && code.includes("from 'svc-embed/api'"));
    const expected = [...code.matchAll(/console\.log\(.*\); \/\/ (.*)$/gm)].map((m) => m[1]);
    assert.equal(expected.length, 4);
    // Run as written: the package resolves itself by name from the repository root.
    const r = await runProcess(process.execPath, ['--input-type=module', '-e', code], {
      env: cleanEnv({ SVC_BASE_URL: `${tenant.origin}/api`, SVC_API_TOKEN: 'demo-admin-key', SVC_SCIM_TOKEN: 'demo-scim-token' }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(r.stdout.trimEnd().split('\n'), expected);
  });

  test('the shell example runs as written against the tenant', async () => {
    const [script] = blocks('sh');
    const documented = 'export SVC_BASE_URL=http://127.0.0.1:8001/api';
    assert.ok(script.includes(documented));
    // `svc-embed` on PATH, as `npm install -g svc-embed` or `npx` would provide it.
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'svc-embed'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`);
    chmodSync(join(bin, 'svc-embed'), 0o755);
    const r = await runProcess('sh', ['-e', '-c', script.replace(documented, `export SVC_BASE_URL=${tenant.origin}/api`)], {
      cwd: dir, env: cleanEnv({ PATH: `${bin}:${process.env.PATH}` }),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^TYPE\s+ID/);
    assert.equal(r.stdout.trimEnd().split('\n').length, 2 + 250);
    assert.equal(JSON.parse(readFileSync(join(dir, 'recipients.json'), 'utf8')).length, 250);
    assert.equal(parseCsv(readFileSync(join(dir, 'recipients.csv'), 'utf8')).length, 1 + 250);
    assert.equal(parseCsv(readFileSync(join(dir, 'users.csv'), 'utf8')).length, 1 + SCIM_USERS.length);
  });
});
