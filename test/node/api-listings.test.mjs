// Listings that never lose or repeat rows silently, resume where they stopped, and go through the user's proxy
// (issue 39): the svc-embed command (dist/cli.js) and the client against fault-injecting loopback servers, plain and
// TLS, and through a real CONNECT proxy. Each test asserts the exit code, what stdout holds and what stderr says.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SvcClient } from '@svc-embed/api';
import { parseRetryAfter } from '../../packages/api/dist/http.js';
import {
  connectProxy,
  faultServer,
  haveOpenssl,
  jsonRes,
  scimList,
  scimUser,
  selfSignedCert,
} from '../support/faults.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'packages/api/dist/cli.js');
const CHILD_LIMIT_MS = 120_000;
const TOKEN = 'listing-secret-token-4821';
const RECIPIENTS = ['recipients', '--deployment', '1', '--notification', '1'];
const noTls = !haveOpenssl() && 'no openssl to make a certificate with';

/** The environment without SVC_* variables or proxy settings of the developer's shell. */
function cleanEnv(extra) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('SVC_') && !/^(https?|no)_proxy$/i.test(k)),
  );
  return { ...env, ...extra };
}

function start(args, env) {
  return spawn(process.execPath, [cli, ...args], {
    env: cleanEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: CHILD_LIMIT_MS,
  });
}

/** Runs the command to its end: {code, stdout, stderr}. */
async function run(args, env) {
  const child = start(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const [code, signal] = await once(child, 'close');
  return { code: signal ?? code, stdout, stderr };
}

const lastLine = (text) => text.trimEnd().split('\n').at(-1);
const lines = (text) => text.split('\n').filter(Boolean);

async function withServer(handle, fn, tls) {
  const srv = await faultServer(handle, tls);
  try {
    return await fn({ SVC_BASE_URL: `${srv.origin}/api`, SVC_API_TOKEN: TOKEN }, srv);
  } finally {
    await srv.close();
  }
}

/** Recipient `i`, a SLACK channel: one NDJSON line each. */
const recipient = (i) => ({ type: 'SLACK', channelId: `C${i}`, channelName: `channel-${i}` });

/**
 * A recipients listing of `pages` pages of 2, cursor `c<n>` after page n. `fault(n, req, res)` may answer page n
 * itself (it returns true then).
 */
function recipientsServer(pages, fault = () => false) {
  return (req, res) => {
    const after = new URL(req.url, 'http://x').searchParams.get('after');
    const n = after === null ? 1 : Number(after.slice(1)) + 1;
    if (fault(n, req, res)) return;
    jsonRes(res, 200, {
      items: [recipient(2 * n - 1), recipient(2 * n)],
      pageInfo: { hasNextPage: n < pages, hasPreviousPage: n > 1, startCursor: `s${n}`, endCursor: `c${n}` },
    });
  };
}

/** A SCIM listing of `total` users that honours startIndex and count. `fault` as for recipientsServer. */
function scimServer(total, fault = () => false) {
  return (req, res) => {
    const q = new URL(req.url, 'http://x').searchParams;
    const startIndex = Number(q.get('startIndex') ?? 1);
    const count = Number(q.get('count') ?? 10);
    if (fault(startIndex, req, res)) return;
    const users = [];
    for (let i = startIndex; i < startIndex + count && i <= total; i++) users.push(scimUser(i));
    jsonRes(res, 200, scimList(users, total, { startIndex, itemsPerPage: users.length }));
  };
}

describe('SCIM users are never repeated nor lost silently', () => {
  test('a server that ignores startIndex and leaves it out: exit 8 at page 2, and no user is written twice', async () => {
    // 25 users announced; every page holds users 1 to 10, whatever was asked, and no startIndex.
    const same = (_req, res) =>
      jsonRes(
        res,
        200,
        scimList(
          [...Array(10)].map((_, i) => scimUser(i + 1)),
          25,
        ),
      );
    await withServer(same, async (env, srv) => {
      const r = await run(['scim-users', '--count', '10', '--format', 'ndjson'], env);
      assert.equal(r.code, 8, r.stderr);
      const ids = lines(r.stdout).map((l) => JSON.parse(l).id);
      assert.equal(ids.length, 10);
      assert.equal(new Set(ids).size, 10);
      assert.equal(srv.requests.length, 2);
      assert.match(r.stderr, /Pagination stopped: page 2 repeats users of page 1 \(the server ignores startIndex/);
      // A pagination error is not resumable: resuming would meet the same pages.
      assert.doesNotMatch(r.stderr, /to resume/);
    });
  });

  test('a listing started past 1 whose first page has no startIndex cannot be checked: exit 8, nothing written', async () => {
    const same = (_req, res) => jsonRes(res, 200, scimList([scimUser(1), scimUser(2)], 25));
    await withServer(same, async (env) => {
      const r = await run(['scim-users', '--start-index', '11', '--format', 'ndjson'], env);
      assert.equal(r.code, 8, r.stderr);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /page 1 has no startIndex, so whether the server began at index 11 cannot be checked/);
    });
  });

  test('a page without Resources while totalResults says 25: invalid response, exit 8; with nothing to list, fine', async () => {
    await withServer(
      (_req, res) => jsonRes(res, 200, scimList(undefined, 25, { startIndex: 1 })),
      async (env) => {
        const r = await run(['scim-users', '--format', 'csv'], env);
        assert.equal(r.code, 8, r.stderr);
        assert.equal(r.stdout, '');
        assert.match(r.stderr, /Resources must be an array: totalResults is 25, so users remain from index 1/);
        assert.doesNotMatch(r.stderr, /0 users/);
      },
    );
    await withServer(
      (_req, res) => jsonRes(res, 200, scimList(undefined, 0)),
      async (env) => {
        const r = await run(['scim-users', '--format', 'ndjson'], env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr, 'svc-embed: 0 users\n');
      },
    );
  });

  test('a listing that ends with fewer users than totalResults, or more, warns with both numbers (also with -q)', async () => {
    // 10 users, then an empty page, where 25 were announced.
    const short = scimServer(25, (startIndex, _req, res) => {
      if (startIndex <= 10) return false;
      jsonRes(res, 200, scimList([], 25, { startIndex }));
      return true;
    });
    await withServer(short, async (env) => {
      const r = await run(['scim-users', '--count', '10', '--format', 'ndjson', '-q'], env);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(lines(r.stdout).length, 10);
      assert.equal(
        r.stderr,
        'svc-embed: warning: the SCIM listing ended at page 2 with 10 users, but totalResults says 25\n',
      );
    });
    // 5 users sent where 3 were announced: the 2 beyond are not written, and the warning says so.
    await withServer(
      (_req, res) => jsonRes(res, 200, scimList([1, 2, 3, 4, 5].map(scimUser), 3, { startIndex: 1 })),
      async (env) => {
        const r = await run(['scim-users', '--format', 'ndjson'], env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(lines(r.stdout).length, 3);
        assert.match(
          r.stderr,
          /^svc-embed: warning: the SCIM listing ended at page 1 with 5 users, but totalResults says 3; the 2 beyond it were left out\nsvc-embed: 3 users\n$/,
        );
      },
    );
  });
});

describe('recipients: cut short or repeated', () => {
  test('hasNextPage, then a page without pageInfo: the listing ends there, and stderr names the page', async () => {
    await withServer(
      recipientsServer(3, (n, _req, res) => {
        if (n !== 2) return false;
        jsonRes(res, 200, { items: [recipient(3)] });
        return true;
      }),
      async (env, srv) => {
        const r = await run([...RECIPIENTS, '--format', 'ndjson'], env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(lines(r.stdout).length, 3);
        assert.equal(srv.requests.length, 2);
        assert.equal(
          r.stderr,
          'svc-embed: warning: page 2 has no pageInfo, though page 1 said hasNextPage: the listing ends at page 2 and may be incomplete\n' +
            'svc-embed: 3 recipients\n',
        );
      },
    );
  });

  test('a server that ignores after but hands out a new cursor each time: exit 8 at the first repeated page', async () => {
    let n = 0;
    await withServer(
      (_req, res) => {
        n++;
        jsonRes(res, 200, {
          items: [recipient(1), recipient(2)],
          pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: `fresh-${n}` },
        });
      },
      async (env, srv) => {
        const r = await run([...RECIPIENTS, '--format', 'ndjson'], env);
        assert.equal(r.code, 8, r.stderr);
        assert.equal(srv.requests.length, 2);
        assert.deepEqual(
          lines(r.stdout).map((l) => JSON.parse(l).channelId),
          ['C1', 'C2'],
        );
        assert.match(
          r.stderr,
          /page 2 repeats the recipients of page 1 under a new cursor \(the server ignores after\)/,
        );
      },
    );
  });
});

describe('a stopped listing resumes where it stopped', () => {
  test('recipients: a 503 after the retries, then --after from the last line: every row exactly once', async () => {
    let broken = true;
    const handle = recipientsServer(5, (n, _req, res) => {
      if (!broken || n !== 3) return false;
      jsonRes(res, 503, { message: 'down' });
      return true;
    });
    await withServer(handle, async (env) => {
      const first = await run([...RECIPIENTS, '--format', 'ndjson', '--max-retries', '1'], {
        ...env,
        // Keep the retry quick whatever the default backoff is: the server asks for none.
      });
      assert.equal(first.code, 7, first.stderr);
      assert.equal(lines(first.stdout).length, 4);
      assert.equal(
        lastLine(first.stderr),
        'svc-embed: to resume after the last page written, run the same command with --after c2',
      );
      broken = false;
      const second = await run([...RECIPIENTS, '--format', 'ndjson', '--after', 'c2'], env);
      assert.equal(second.code, 0, second.stderr);
      const all = [...lines(first.stdout), ...lines(second.stdout)].map((l) => JSON.parse(l).channelId);
      assert.deepEqual(
        all,
        [...Array(10)].map((_, i) => `C${i + 1}`),
      );
    });
  });

  test('scim-users: a network failure mid-listing, then --start-index from the last line: every user exactly once', async () => {
    let broken = true;
    const handle = scimServer(23, (startIndex, req) => {
      if (!broken || startIndex !== 11) return false;
      req.socket.destroy();
      return true;
    });
    await withServer(handle, async (env) => {
      const first = await run(['scim-users', '--count', '5', '--format', 'csv', '--max-retries', '0'], env);
      assert.equal(first.code, 6, first.stderr);
      assert.equal(
        lastLine(first.stderr),
        'svc-embed: to resume after the last page written, run the same command with --start-index 11',
      );
      broken = false;
      const second = await run(['scim-users', '--count', '5', '--format', 'csv', '--start-index', '11'], env);
      assert.equal(second.code, 0, second.stderr);
      const ids = [first.stdout, second.stdout].flatMap((t) =>
        lines(t.replace(/\r/g, ''))
          .slice(1)
          .map((l) => l.split(',')[0]),
      );
      assert.deepEqual(
        ids,
        [...Array(23)].map((_, i) => `id-${i + 1}`),
      );
    });
  });

  test('Ctrl-C mid-listing: exit 130, and the last line gives --after of the last page written', async () => {
    let arrived;
    const reached = new Promise((resolve) => (arrived = resolve));
    const handle = recipientsServer(5, (n) => {
      if (n !== 3) return false;
      arrived();
      return true; // never answered
    });
    await withServer(handle, async (env) => {
      const child = start([...RECIPIENTS, '--format', 'ndjson'], env);
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      const closed = once(child, 'close');
      assert.equal(await Promise.race([reached.then(() => 'request'), closed.then(() => 'closed')]), 'request', stderr);
      child.kill('SIGINT');
      const [code] = await closed;
      assert.equal(code, 130, stderr);
      assert.equal(lines(stdout).length, 4);
      assert.match(stderr, /svc-embed: interrupted\n/);
      assert.equal(
        lastLine(stderr),
        'svc-embed: to resume after the last page written, run the same command with --after c2',
      );
    });
  });

  test('a cursor that a shell would read otherwise is quoted in the resume line', async () => {
    const handle = (req, res) => {
      const after = new URL(req.url, 'http://x').searchParams.get('after');
      if (after !== null) return jsonRes(res, 503, { message: 'down' });
      jsonRes(res, 200, {
        items: [recipient(1)],
        pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: "it's $HOME" },
      });
    };
    await withServer(handle, async (env) => {
      const r = await run([...RECIPIENTS, '--format', 'ndjson', '--max-retries', '0'], env);
      assert.equal(r.code, 7, r.stderr);
      assert.equal(
        lastLine(r.stderr),
        "svc-embed: to resume after the last page written, run the same command with --after 'it'\\''s $HOME'",
      );
    });
  });
});

describe('Ctrl-C while stdout is blocked', () => {
  test('exit 130 even when the reader then goes away (EPIPE)', async () => {
    // One page far larger than a pipe holds: the command blocks on writing it until the reader reads or leaves.
    const big = { items: [], pageInfo: null };
    for (let i = 0; i < 2000; i++) big.items.push({ type: 'SLACK', channelId: `C${i}`, channelName: 'x'.repeat(200) });
    await withServer(
      (_req, res) => jsonRes(res, 200, big),
      async (env) => {
        const child = start([...RECIPIENTS, '--format', 'ndjson'], env);
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        const closed = once(child, 'close');
        // The first bytes arrive: the command is writing the page, which the pipe cannot take whole.
        await once(child.stdout, 'readable');
        child.kill('SIGINT');
        child.stdout.destroy();
        const [code] = await closed;
        assert.equal(code, 130, stderr);
        assert.match(stderr, /svc-embed: interrupted\n/);
      },
    );
  });
});

describe('Retry-After and faults no retry can mend', () => {
  test('Retry-After: delay-seconds of any length and the three HTTP-date forms of RFC 9110', () => {
    const now = Date.UTC(2026, 10, 6, 8, 49, 0);
    assert.equal(parseRetryAfter('120', now), 120_000);
    assert.equal(parseRetryAfter(' 007 ', now), 7000);
    assert.equal(parseRetryAfter('9'.repeat(400), now), Number.MAX_SAFE_INTEGER);
    assert.equal(parseRetryAfter('12345678901', now), 12_345_678_901_000);
    assert.equal(parseRetryAfter('Fri, 06 Nov 2026 08:49:37 GMT', now), 37_000);
    assert.equal(parseRetryAfter('Friday, 06-Nov-26 08:49:37 GMT', now), 37_000);
    assert.equal(parseRetryAfter('Fri Nov  6 08:49:37 2026', now), 37_000);
    assert.equal(parseRetryAfter('Fri Nov 16 08:49:37 2026', now), 10 * 86_400_000 + 37_000);
    // A past date: retry now. A two-digit year more than 50 years ahead is in the past century (RFC 9110 5.6.7).
    assert.equal(parseRetryAfter('Sunday, 06-Nov-94 08:49:37 GMT', now), 0);
    for (const bad of ['', '-1', '1.5', 'soon', 'Fri, 31 Feb 2026 08:49:37 GMT', 'Fri, 06 Nov 2026 24:49:37 GMT'])
      assert.equal(parseRetryAfter(bad, now), undefined, bad);
  });

  test('a Retry-After as an RFC 850 date, far ahead: one request, exit 7; as an asctime date passed: retried', async () => {
    await withServer(
      (_req, res) => jsonRes(res, 503, { message: 'later' }, { 'retry-after': 'Thursday, 01-Jan-37 00:00:00 GMT' }),
      async (env, srv) => {
        const r = await run(RECIPIENTS, env);
        assert.equal(r.code, 7, r.stderr);
        assert.equal(srv.requests.length, 1);
        assert.match(r.stderr, /longer than the client waits \(30 s at most\), so it gives up now/);
      },
    );
    await withServer(
      (_req, res, n) =>
        n === 1
          ? jsonRes(res, 503, { message: 'later' }, { 'retry-after': 'Sun Nov  6 08:49:37 1994' })
          : jsonRes(res, 200, { items: [recipient(1)], pageInfo: null }),
      async (env, srv) => {
        const r = await run([...RECIPIENTS, '--format', 'ndjson'], env);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(srv.requests.length, 2);
        assert.match(r.stderr, /HTTP 503 on \S+, retry 1 in 0\.0 s/);
      },
    );
  });

  test('a blocked port of fetch: one attempt, exit 6', async () => {
    // 6000 (X11) is on fetch's list of bad ports: no connection is even tried, so nothing needs to listen there.
    const r = await run([...RECIPIENTS, '--max-retries', '3'], {
      SVC_BASE_URL: 'http://127.0.0.1:6000/api',
      SVC_API_TOKEN: TOKEN,
    });
    assert.equal(r.code, 6, r.stderr);
    assert.doesNotMatch(r.stderr, /retry 1 in|attempts/);
    assert.match(r.stderr, /network error \(bad port\); tried 127\.0\.0\.1 port 6000/);
  });

  test(
    'a certificate the machine does not trust, or that does not name the host: one attempt, exit 6',
    { skip: noTls },
    async () => {
      const cert = selfSignedCert();
      try {
        let handshakes = 0;
        await withServer(
          (_req, res) => jsonRes(res, 200, { items: [], pageInfo: null }),
          async (env, srv) => {
            const untrusted = await run([...RECIPIENTS, '--max-retries', '3'], env);
            assert.equal(untrusted.code, 6, untrusted.stderr);
            assert.doesNotMatch(untrusted.stderr, /retry 1 in|attempts/);
            assert.match(untrusted.stderr, /network error \(DEPTH_ZERO_SELF_SIGNED_CERT\)/);
            assert.equal(srv.requests.length, 0);
            // Trusted (NODE_EXTRA_CA_CERTS), but asked for by a name it does not hold: localhost.
            const named = await run([...RECIPIENTS, '--max-retries', '3'], {
              ...env,
              NODE_EXTRA_CA_CERTS: cert.certFile,
              SVC_BASE_URL: `https://localhost:${srv.port}/api`,
            });
            assert.equal(named.code, 6, named.stderr);
            assert.doesNotMatch(named.stderr, /retry 1 in|attempts/);
            assert.match(named.stderr, /ERR_TLS_CERT_ALTNAME_INVALID/);
            // Trusted and named: the listing works, so the two failures above were the certificate's.
            const fine = await run([...RECIPIENTS, '--format', 'ndjson'], {
              ...env,
              NODE_EXTRA_CA_CERTS: cert.certFile,
            });
            assert.equal(fine.code, 0, fine.stderr);
            handshakes = srv.requests.length;
          },
          cert,
        );
        assert.equal(handshakes, 1);
      } finally {
        cert.remove();
      }
    },
  );
});

describe("the user's proxy (a real CONNECT proxy on loopback)", () => {
  test(
    'HTTPS_PROXY: the command goes through a CONNECT tunnel, and the proxy never sees the token; NO_PROXY goes direct',
    { skip: noTls },
    async () => {
      const cert = selfSignedCert();
      const proxy = await connectProxy();
      try {
        await withServer(
          recipientsServer(2),
          async (env, srv) => {
            const base = { ...env, NODE_EXTRA_CA_CERTS: cert.certFile };
            for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY']) {
              proxy.connects.length = 0;
              proxy.relayed.length = 0;
              const r = await run([...RECIPIENTS, '--format', 'ndjson'], { ...base, [name]: proxy.url });
              assert.equal(r.code, 0, `${name}: ${r.stderr}`);
              assert.equal(lines(r.stdout).length, 4);
              assert.ok(proxy.connects.length >= 1, name);
              assert.ok(proxy.connects.every((c) => c.target === `127.0.0.1:${srv.port}`));
              assert.ok(proxy.connects.every((c) => !('authorization' in c.headers)));
              // The tunnel carried TLS: neither the token nor the request line in the clear.
              const relayed = Buffer.concat(proxy.relayed);
              assert.ok(relayed.length > 0);
              assert.equal(relayed.indexOf(TOKEN), -1);
              assert.equal(relayed.indexOf('/recipients'), -1);
              assert.equal(proxy.plain.length, 0);
            }
            // The server got its requests with the token: through the tunnel, end to end.
            assert.ok(srv.headers.every((h) => h.authorization === `Bearer ${TOKEN}`));
            proxy.connects.length = 0;
            const direct = await run([...RECIPIENTS, '--format', 'ndjson'], {
              ...base,
              HTTPS_PROXY: proxy.url,
              NO_PROXY: '127.0.0.1',
            });
            assert.equal(direct.code, 0, direct.stderr);
            assert.equal(lines(direct.stdout).length, 4);
            assert.equal(proxy.connects.length, 0);
          },
          cert,
        );
      } finally {
        await proxy.close();
        cert.remove();
      }
    },
  );

  test('an http: base URL (loopback only) never goes through a proxy, which would read the token', async () => {
    const proxy = await connectProxy();
    try {
      await withServer(recipientsServer(1), async (env) => {
        const r = await run([...RECIPIENTS, '--format', 'ndjson'], {
          ...env,
          HTTP_PROXY: proxy.url,
          HTTPS_PROXY: proxy.url,
        });
        assert.equal(r.code, 0, r.stderr);
        assert.equal(lines(r.stdout).length, 2);
        assert.equal(proxy.connects.length + proxy.plain.length, 0);
      });
    } finally {
      await proxy.close();
    }
  });

  test('a proxy that cannot be reached: exit 6, after the retries', { skip: noTls }, async () => {
    const proxy = await connectProxy();
    await proxy.close();
    const r = await run([...RECIPIENTS, '--max-retries', '1'], {
      SVC_BASE_URL: 'https://127.0.0.1:8443/api',
      SVC_API_TOKEN: TOKEN,
      HTTPS_PROXY: proxy.url,
    });
    assert.equal(r.code, 6, r.stderr);
    assert.match(r.stderr, /retry 1 in/);
    assert.ok(!r.stderr.includes(TOKEN));
  });

  test(
    'the client goes through the proxy only when asked (proxyFromEnv), and refuses it with a fetch of its own',
    { skip: noTls },
    async () => {
      assert.throws(
        () =>
          new SvcClient({
            baseUrl: 'https://x.example/api',
            token: TOKEN,
            proxyFromEnv: true,
            fetch: globalThis.fetch,
          }),
        /proxyFromEnv and fetch exclude each other/,
      );
      assert.throws(
        () => new SvcClient({ baseUrl: 'https://x.example/api', token: TOKEN, proxyFromEnv: 'yes' }),
        TypeError,
      );
      const cert = selfSignedCert();
      const proxy = await connectProxy();
      try {
        await withServer(
          recipientsServer(2),
          async (env) => {
            // In a process of its own: NODE_EXTRA_CA_CERTS is read when Node starts.
            const script = `
            import { SvcClient } from '@svc-embed/api';
            const out = [];
            for (const proxyFromEnv of [false, true]) {
              const client = new SvcClient({ baseUrl: process.env.SVC_BASE_URL, token: process.env.SVC_API_TOKEN, proxyFromEnv });
              let n = 0;
              for await (const r of client.recipients({ deploymentId: 1, notificationId: 1 })) n++;
              out.push(n);
            }
            console.log(out.join(' '));`;
            const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
              cwd: root,
              env: cleanEnv({ ...env, NODE_EXTRA_CA_CERTS: cert.certFile, HTTPS_PROXY: proxy.url }),
              stdio: ['ignore', 'pipe', 'pipe'],
              timeout: CHILD_LIMIT_MS,
            });
            let stdout = '';
            let stderr = '';
            child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
            child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
            const [code] = await once(child, 'close');
            assert.equal(code, 0, stderr);
            assert.equal(stdout.trim(), '4 4');
            // The first client went direct; the second through the proxy.
            assert.ok(proxy.connects.length >= 1);
          },
          cert,
        );
      } finally {
        await proxy.close();
        cert.remove();
      }
    },
  );
});

describe('the client reports the same warnings', () => {
  const page = (body) => new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json' } });
  const fetchOf = (...bodies) => {
    let i = 0;
    return async () => page(bodies[Math.min(i++, bodies.length - 1)]);
  };
  const client = (fetch) => new SvcClient({ baseUrl: 'https://acme.example.com/api', token: TOKEN, fetch });

  test('onWarning gets PAGE_INFO_MISSING and TOTAL_MISMATCH, once, with the page and the numbers', async () => {
    const warnings = [];
    const fetch = fetchOf(
      { items: [recipient(1)], pageInfo: { hasNextPage: true, hasPreviousPage: false, endCursor: 'c1' } },
      { items: [recipient(2)] },
    );
    const got = [];
    for await (const r of client(fetch).recipients({
      deploymentId: 1,
      notificationId: 1,
      onWarning: (w) => warnings.push(w),
    }))
      got.push(r.channelId);
    assert.deepEqual(got, ['C1', 'C2']);
    assert.deepEqual(warnings, [
      {
        code: 'PAGE_INFO_MISSING',
        message:
          'page 2 has no pageInfo, though page 1 said hasNextPage: the listing ends at page 2 and may be incomplete',
        page: 2,
      },
    ]);
    const scimWarnings = [];
    const scim = fetchOf(
      scimList([scimUser(1), scimUser(2)], 5, { startIndex: 1 }),
      scimList([], 5, { startIndex: 3 }),
    );
    let users = 0;
    for await (const _ of client(scim).scim.users({ onWarning: (w) => scimWarnings.push(w) })) users++;
    assert.equal(users, 2);
    assert.deepEqual(
      scimWarnings.map((w) => [w.code, w.page, w.received, w.expected]),
      [['TOTAL_MISMATCH', 2, 2, 5]],
    );
    assert.throws(() => client(scim).scim.users({ onWarning: 'log' }), /onWarning must be a function/);
  });

  test('without onWarning, the warning is a process warning of type SvcApiWarning', async () => {
    const seen = [];
    const listener = (w) => seen.push(w);
    process.on('warning', listener);
    try {
      const fetch = fetchOf(scimList([scimUser(1)], 3, { startIndex: 1 }), scimList([], 3, { startIndex: 2 }));
      for await (const _ of client(fetch).scim.users()) void _;
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', listener);
    }
    assert.deepEqual(
      seen.map((w) => [w.name, w.code]),
      [['SvcApiWarning', 'TOTAL_MISMATCH']],
    );
    assert.match(seen[0].message, /ended at page 2 with 1 user, but totalResults says 3/);
  });
});

describe('the bins exist before the build', () => {
  test('a bin run before the build says to build, with exit 1', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-embed-bin-'));
    try {
      for (const [pkg, file, name] of [
        ['api', 'svc-embed.js', 'svc-embed'],
        ['tenant', 'svc-embed-tenant.js', 'svc-embed-tenant'],
      ]) {
        mkdirSync(join(dir, pkg, 'bin'), { recursive: true });
        copyFileSync(join(root, 'packages', pkg, 'bin', file), join(dir, pkg, 'bin', file));
        const child = spawn(process.execPath, [join(dir, pkg, 'bin', file), '--help'], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
        const [code] = await once(child, 'close');
        assert.equal(code, 1, stderr);
        assert.equal(
          stderr,
          `${name}: the command is not built yet: run "npm run build" at the root of the repository${pkg === 'api' ? ' (or in packages/api)' : ''}\n`,
        );
      }
      // Built, the bin runs the command.
      const built = spawn(process.execPath, [join(root, 'packages/api/bin/svc-embed.js'), '--version'], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      built.stdout.setEncoding('utf8').on('data', (d) => (out += d));
      const [code] = await once(built, 'close');
      assert.equal(code, 0);
      assert.match(out, /^\d+\.\d+\.\d+/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
