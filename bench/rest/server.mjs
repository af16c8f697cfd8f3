// The REST bench's loopback server, run as its own process so its CPU never counts against the client:
// one notification of 10,000 recipients in 50 pages of 200, every page serialised once at start-up; or, with
// a count as its argument (1000000), that many, each page serialised when it is asked for.
// Prints its origin on stdout; answers like the tenant (JSON, x-request-id, opaque cursors).
import { createServer } from 'node:http';
import { LISTING, TOKEN, TOTAL } from './common.mjs';

const PAGE = LISTING.first;
const PATH = `/api/v1/deployments/${LISTING.deploymentId}/notifications/${LISTING.notificationId}/recipients`;

function recipient(i) {
  const blank = {
    userId: null,
    email: null,
    username: null,
    embedUserId: null,
    embedTenantName: null,
    externalId: null,
    channelId: null,
    channelName: null,
  };
  switch (i % 3) {
    case 0:
      return {
        type: 'USER',
        ...blank,
        userId: 2000 + i,
        email: `ken.wilson${i}@example.com`,
        username: `ken.wilson${i}`,
      };
    case 1:
      return {
        type: 'EMBED_USER',
        ...blank,
        email: `frances.allen${i}@globex.example`,
        username: `frances.allen${i}`,
        embedUserId: 50000 + i,
        embedTenantName: 'globex',
        externalId: `globex-${((i * 2654435761) >>> 0).toString(16)}`,
      };
    default:
      return {
        type: 'SLACK',
        ...blank,
        channelId: `C${((i * 40503) >>> 0).toString(16).toUpperCase()}`,
        channelName: `exec-weekly-${i}`,
      };
  }
}

const total = Number(process.argv[2] ?? TOTAL);
const cursor = (page, end = 'after') => Buffer.from(`rc1:1:${page}:${end}`).toString('base64url');
function pageBody(p) {
  const items = Array.from({ length: PAGE }, (_, k) => recipient(p * PAGE + k));
  const last = p === total / PAGE - 1;
  const body = {
    items,
    pageInfo: {
      hasNextPage: !last,
      hasPreviousPage: p > 0,
      startCursor: cursor(p, 'before'),
      endCursor: cursor(p + 1),
    },
  };
  return Buffer.from(JSON.stringify(body));
}
const pages = new Map();
if (total <= TOTAL) for (let p = 0; p < total / PAGE; p++) pages.set(p === 0 ? '' : cursor(p), pageBody(p));
/** The page that `after` names, or undefined. */
function lookup(after) {
  if (total <= TOTAL) return pages.get(after);
  const p = after === '' ? 0 : Number(/^rc1:1:(\d+):after$/.exec(Buffer.from(after, 'base64url').toString())?.[1]);
  return Number.isInteger(p) && p >= 0 && p < total / PAGE ? pageBody(p) : undefined;
}

let requests = 0;
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  const body =
    url.pathname === PATH && req.headers.authorization === `Bearer ${TOKEN}`
      ? lookup(url.searchParams.get('after') ?? '')
      : undefined;
  if (!body) {
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
    return;
  }
  requests++;
  res.writeHead(200, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': body.length,
    'x-request-id': `req-${requests}`,
  });
  res.end(body);
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${server.address().port}\n`);
});
// The parent closes stdin to stop it; also stop if the parent dies without doing so.
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
