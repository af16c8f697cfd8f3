// The tenant's REST (spec 4.1, 5.1, 7, 8) and SCIM (spec 4.2, 5.2) endpoints under /api, as Koa
// middleware for @web/dev-server. Every answer carries an x-request-id; bad input gets a 400 with a
// JSON body and never reaches the data layer; credentials are never echoed.
import { randomUUID } from 'node:crypto';
import { CREDENTIALS, SCIM_USERS, recipientsOf } from './seed.js';

const RECIPIENTS = /^\/api\/v1\/deployments\/([^/]*)\/notifications\/([^/]*)\/recipients\/?$/;
const SCIM_USERS_PATH = /^\/api\/scim\/v2\/Users\/?$/;
const SCIM_USER = /^\/api\/scim\/v2\/Users\/([^/]+)$/;
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const SCIM_LIST = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const SCIM_USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
// RFC 6750 b64token: anything else (spaces, control characters, quotes) is a malformed credential.
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

class HttpError extends Error {
  constructor(status, code, message, headers = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.headers = headers;
  }
}

/**
 * Reads `Authorization: <scheme> <token>`. Returns the credential record, or throws 401.
 * `schemes` lists the accepted schemes in lower case (the scheme is case-insensitive, RFC 9110).
 */
function authenticate(ctx, schemes) {
  const header = ctx.get('authorization');
  const challenge = schemes.includes('api-key') ? 'Bearer realm="scim"' : 'Bearer realm="api"';
  if (!header) throw new HttpError(401, 'unauthenticated', 'An Authorization header is required.', { 'www-authenticate': challenge });
  const m = /^([A-Za-z-]+) ([^ ]+)$/.exec(header);
  if (!m || !schemes.includes(m[1].toLowerCase()) || !TOKEN.test(m[2])) {
    const accepted = schemes.map((s) => (s === 'api-key' ? 'Api-Key' : 'Bearer')).join(' or ');
    throw new HttpError(401, 'malformed_credentials', `The Authorization header must be "${accepted} <token>".`,
      { 'www-authenticate': `${challenge}, error="invalid_request"` });
  }
  const credential = CREDENTIALS.get(m[2]);
  if (!credential) {
    throw new HttpError(401, 'invalid_credentials', 'The credential is unknown, revoked or expired.',
      { 'www-authenticate': `${challenge}, error="invalid_token"` });
  }
  return credential;
}

/** A positive integer path segment, else 400. */
function idParam(raw, name) {
  if (!/^[0-9]{1,15}$/.test(raw) || Number(raw) < 1) {
    throw new HttpError(400, 'invalid_parameter', `${name}: must be a positive integer.`);
  }
  return Number(raw);
}

/** The single value of a query parameter; a repeated parameter is ambiguous, so it is a 400. */
function single(ctx, name) {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw new HttpError(400, 'invalid_parameter', `${name}: must be given at most once.`);
  return v;
}

// The cursor is opaque to clients; inside it names the notification and the last recipient seen, so a
// cursor from another notification or a tampered one is refused instead of silently mis-paging.
const encodeCursor = (notificationId, key) => Buffer.from(`rc1:${notificationId}:${key}`).toString('base64url');
function decodeCursor(raw, notificationId) {
  const bad = () => new HttpError(400, 'invalid_cursor', 'after: not a cursor returned by this endpoint for this notification.');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw bad();
  const m = /^rc1:(\d+):(\d+-\d+)$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!m || Number(m[1]) !== notificationId) throw bad();
  return m[2];
}

function listRecipients(ctx, match) {
  const credential = authenticate(ctx, ['bearer']);
  if (credential.kind !== 'api-key' || !credential.admin) {
    throw new HttpError(403, 'forbidden', 'Listing notification recipients requires an administrator credential.');
  }
  const deploymentId = idParam(match[1], 'deploymentId');
  const notificationId = idParam(match[2], 'id');
  if (credential.deployments && !credential.deployments.includes(deploymentId)) {
    throw new HttpError(403, 'forbidden', 'This API key is not scoped to the requested deployment.');
  }
  const firstRaw = single(ctx, 'first');
  let first = 100;
  if (firstRaw !== undefined) {
    first = /^[0-9]{1,4}$/.test(firstRaw) ? Number(firstRaw) : NaN;
    if (!(first >= 1 && first <= 200)) throw new HttpError(400, 'invalid_parameter', 'first: must be an integer from 1 to 200.');
  }
  const afterRaw = single(ctx, 'after');
  const afterKey = afterRaw === undefined ? undefined : decodeCursor(afterRaw, notificationId);
  const rows = recipientsOf(deploymentId, notificationId);
  if (!rows) throw new HttpError(404, 'not_found', 'The notification is not part of this deployment.');
  let start = 0;
  if (afterKey !== undefined) {
    start = rows.findIndex((r) => r.key === afterKey) + 1;
    if (start === 0) throw new HttpError(400, 'invalid_cursor', 'after: not a cursor returned by this endpoint for this notification.');
  }
  const page = rows.slice(start, start + first);
  ctx.body = {
    items: page.map((r) => ({ ...r.item })),
    pageInfo: {
      hasNextPage: start + page.length < rows.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? encodeCursor(notificationId, page[0].key) : null,
      endCursor: page.length ? encodeCursor(notificationId, page[page.length - 1].key) : null,
    },
  };
}

// ---- SCIM

function scimUser(user, origin) {
  return {
    schemas: [SCIM_USER_SCHEMA],
    id: user.id,
    externalId: user.externalId,
    userName: user.userName,
    name: { ...user.name },
    displayName: user.displayName,
    emails: [{ value: user.userName, type: 'work', primary: true }],
    active: user.active,
    meta: { resourceType: 'User', created: user.created, lastModified: user.created, location: `${origin}/api/scim/v2/Users/${user.id}` },
  };
}

/** Koa forces application/json on object bodies, so SCIM bodies are serialised here. */
function scimBody(ctx, body) {
  ctx.body = JSON.stringify(body);
  ctx.type = 'application/scim+json; charset=utf-8';
}

function scimAuth(ctx) {
  const credential = authenticate(ctx, ['bearer', 'api-key']);
  if (credential.kind !== 'scim') throw new HttpError(403, 'forbidden', 'This endpoint needs a SCIM token.');
}

/** A SCIM integer parameter (RFC 7644 3.4.2.4): garbage is a 400, out-of-range values are clamped. */
function scimInt(ctx, name, fallback) {
  const raw = single(ctx, name);
  if (raw === undefined) return fallback;
  if (!/^-?[0-9]{1,9}$/.test(raw)) throw new HttpError(400, 'invalidValue', `${name}: must be an integer.`);
  return Number(raw);
}

function listScimUsers(ctx) {
  scimAuth(ctx);
  const startIndex = Math.max(1, scimInt(ctx, 'startIndex', 1));
  const count = Math.min(200, Math.max(0, scimInt(ctx, 'count', 100)));
  let users = SCIM_USERS;
  const filter = single(ctx, 'filter');
  if (filter !== undefined) {
    // Identity providers look users up with exactly this filter before creating them.
    const m = /^\s*(userName|externalId)\s+eq\s+"([^"\\]*)"\s*$/i.exec(filter);
    if (!m) throw new HttpError(400, 'invalidFilter', 'filter: only `userName eq "…"` and `externalId eq "…"` are supported.');
    const attr = m[1].toLowerCase() === 'username' ? 'userName' : 'externalId';
    users = users.filter((u) => (attr === 'userName' ? u.userName.toLowerCase() === m[2].toLowerCase() : u.externalId === m[2]));
  }
  const page = users.slice(startIndex - 1, startIndex - 1 + count);
  scimBody(ctx, {
    schemas: [SCIM_LIST],
    totalResults: users.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page.map((u) => scimUser(u, ctx.origin)),
  });
}

function getScimUser(ctx, match) {
  scimAuth(ctx);
  const user = SCIM_USERS.find((u) => u.id === match[1]);
  if (!user) throw new HttpError(404, 'notFound', 'No user with this id.');
  scimBody(ctx, scimUser(user, ctx.origin));
}

const ROUTES = [
  [RECIPIENTS, listRecipients, 'rest'],
  [SCIM_USERS_PATH, listScimUsers, 'scim'],
  [SCIM_USER, getScimUser, 'scim'],
];

/** Koa middleware serving everything under /api. */
export function restMiddleware() {
  return async (ctx, next) => {
    if (ctx.path !== '/api' && !ctx.path.startsWith('/api/')) return next();
    const incoming = ctx.get('x-request-id');
    const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    ctx.set('x-request-id', requestId);
    ctx.set('cache-control', 'no-store');
    let flavour = ctx.path.startsWith('/api/scim/') ? 'scim' : 'rest';
    try {
      const route = ROUTES.find(([re]) => re.test(ctx.path));
      if (!route) throw new HttpError(404, 'not_found', 'No such endpoint.');
      flavour = route[2];
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        throw new HttpError(405, 'method_not_allowed', 'Only GET is supported here.', { allow: 'GET, HEAD' });
      }
      route[1](ctx, route[0].exec(ctx.path));
    } catch (error) {
      const known = error instanceof HttpError;
      if (!known) console.error('[tenant] unexpected error', error);
      const status = known ? error.status : 500;
      const message = known ? error.message : 'Internal error.';
      if (known) ctx.set(error.headers);
      ctx.status = status;
      if (flavour === 'scim') {
        const scimType = !known ? undefined
          : error.code === 'invalid_parameter' ? 'invalidValue'
          : /^(invalidValue|invalidFilter)$/.test(error.code) ? error.code : undefined;
        scimBody(ctx, { schemas: [SCIM_ERROR], status: String(status), ...(scimType ? { scimType } : {}), detail: message });
      } else {
        ctx.body = { error: { status, code: known ? error.code : 'internal', message }, requestId };
      }
    }
  };
}
