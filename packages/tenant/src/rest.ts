// The tenant's REST and SCIM endpoints, to mount at /api: what docs/api.md describes in "Recipients", "SCIM users",
// "Authentication" and "Errors".
// Every answer carries an x-request-id; bad input gets a 400 with a JSON body and never reaches the
// data layer; credentials are never echoed.
import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import { SCIM_ERROR, SCIM_LIST_RESPONSE, SCIM_USER } from '@svc-embed/protocol';
import { chain, printable } from './http.js';
import type { Headers, Thrown } from './http.js';
import { CREDENTIALS, SCIM_USERS, recipientsOf } from './seed.js';
import { DEFAULT_EXCHANGE_SECONDS, EMBED_TENANT, MAX_EXCHANGE_SECONDS, MAX_TTL_SECONDS } from './sessions.js';
import type { Sessions } from './sessions.js';
import type { Credential, ScimUserRecord } from './seed.js';

// RFC 6750 b64token: anything else (spaces, control characters, quotes) is a malformed credential.
const TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A REST or SCIM failure: its status, the error code of its body, and extra response headers. */
class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly headers: Headers;

  constructor(status: number, code: string, message: string, headers: Headers = {}) {
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
function authenticate(ctx: Koa.Context, schemes: readonly string[]): Credential {
  // Node keeps only the first of repeated Authorization headers; which credential was meant is unknowable.
  const values = ctx.req.headersDistinct.authorization ?? [];
  if (values.length > 1) throw new HttpError(400, 'invalid_request', 'Send one Authorization header, not several.');
  const header = values[0] ?? '';
  const challenge = schemes.includes('api-key') ? 'Bearer realm="scim"' : 'Bearer realm="api"';
  if (!header)
    throw new HttpError(401, 'unauthenticated', 'An Authorization header is required.', {
      'www-authenticate': challenge,
    });
  // credentials = auth-scheme 1*SP token68 (RFC 9110 11.4, RFC 6750 2.1): one or more spaces, no tabs.
  const m = /^([A-Za-z-]+) +([^ ]+)$/.exec(header);
  if (!m || !schemes.includes(m[1].toLowerCase()) || !TOKEN.test(m[2])) {
    const accepted = schemes.map((s) => (s === 'api-key' ? 'Api-Key' : 'Bearer')).join(' or ');
    throw new HttpError(401, 'malformed_credentials', `The Authorization header must be "${accepted} <token>".`, {
      'www-authenticate': `${challenge}, error="invalid_request"`,
    });
  }
  const credential = CREDENTIALS.get(m[2]);
  if (!credential) {
    throw new HttpError(401, 'invalid_credentials', 'The credential is unknown, revoked or expired.', {
      'www-authenticate': `${challenge}, error="invalid_token"`,
    });
  }
  return credential;
}

/** A positive integer path segment, else 400. */
function idParam(raw: string, name: string): number {
  if (!/^[0-9]{1,15}$/.test(raw) || Number(raw) < 1) {
    throw new HttpError(400, 'invalid_parameter', `${name}: must be a positive integer.`);
  }
  return Number(raw);
}

/** The single value of a query parameter; a repeated parameter is ambiguous, so it is a 400. */
function single(ctx: Koa.Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw new HttpError(400, 'invalid_parameter', `${name}: must be given at most once.`);
  return v;
}

// The cursor is opaque to clients; inside it names the notification and the last recipient seen, so a
// cursor from another notification or a tampered one is refused instead of silently mis-paging.
const encodeCursor = (notificationId: number, key: string): string =>
  Buffer.from(`rc1:${notificationId}:${key}`).toString('base64url');
function decodeCursor(raw: string, notificationId: number): string {
  const bad = () =>
    new HttpError(400, 'invalid_cursor', 'after: not a cursor returned by this endpoint for this notification.');
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) throw bad();
  const m = /^rc1:(\d+):(\d+-\d+)$/.exec(Buffer.from(raw, 'base64url').toString('utf8'));
  if (!m || Number(m[1]) !== notificationId) throw bad();
  return m[2];
}

function listRecipients(ctx: RouterContext): void {
  const credential = authenticate(ctx, ['bearer']);
  if (credential.kind !== 'api-key' || !credential.admin) {
    throw new HttpError(403, 'forbidden', 'Listing notification recipients requires an administrator credential.');
  }
  const deploymentId = idParam(ctx.params.deploymentId, 'deploymentId');
  const notificationId = idParam(ctx.params.id, 'id');
  if (credential.deployments && !credential.deployments.includes(deploymentId)) {
    throw new HttpError(403, 'forbidden', 'This API key is not scoped to the requested deployment.');
  }
  const firstRaw = single(ctx, 'first');
  let first = 100;
  if (firstRaw !== undefined) {
    first = /^[0-9]{1,4}$/.test(firstRaw) ? Number(firstRaw) : NaN;
    if (!(first >= 1 && first <= 200))
      throw new HttpError(400, 'invalid_parameter', 'first: must be an integer from 1 to 200.');
  }
  const afterRaw = single(ctx, 'after');
  const afterKey = afterRaw === undefined ? undefined : decodeCursor(afterRaw, notificationId);
  const rows = recipientsOf(deploymentId, notificationId);
  if (!rows) throw new HttpError(404, 'not_found', 'The notification is not part of this deployment.');
  let start = 0;
  if (afterKey !== undefined) {
    start = rows.findIndex((r) => r.key === afterKey) + 1;
    if (start === 0)
      throw new HttpError(
        400,
        'invalid_cursor',
        'after: not a cursor returned by this endpoint for this notification.',
      );
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

function scimUser(user: ScimUserRecord, origin: string) {
  return {
    schemas: [SCIM_USER],
    id: user.id,
    externalId: user.externalId,
    userName: user.userName,
    name: { ...user.name },
    displayName: user.displayName,
    emails: [{ value: user.userName, type: 'work', primary: true }],
    active: user.active,
    meta: {
      resourceType: 'User',
      created: user.created,
      lastModified: user.created,
      location: `${origin}/api/scim/v2/Users/${user.id}`,
    },
  };
}

/** This server's origin as the client named it (the guard has checked the Host header by now). */
const selfOrigin = (ctx: Koa.Context): string => `${ctx.protocol}://${ctx.host.toLowerCase()}`;

/** Koa forces application/json on object bodies, so SCIM bodies are serialised here. */
function scimBody(ctx: Koa.Context, body: unknown): void {
  ctx.body = JSON.stringify(body);
  ctx.type = 'application/scim+json; charset=utf-8';
}

function scimAuth(ctx: Koa.Context): void {
  const credential = authenticate(ctx, ['bearer', 'api-key']);
  if (credential.kind !== 'scim') throw new HttpError(403, 'forbidden', 'This endpoint needs a SCIM token.');
}

/**
 * A SCIM integer parameter (RFC 7644 3.4.2.4) clamped to [min, max]: garbage is a 400, but any integer,
 * however many digits, is valid and clamped (an integer beyond the list is an empty page, not an error).
 */
function scimInt(ctx: Koa.Context, name: string, fallback: number, min: number, max: number): number {
  const raw = single(ctx, name);
  if (raw === undefined) return fallback;
  if (!/^-?[0-9]+$/.test(raw)) throw new HttpError(400, 'invalidValue', `${name}: must be an integer.`);
  return Math.min(max, Math.max(min, Number(raw)));
}

const SCIM_MAX_COUNT = 200;

function listScimUsers(ctx: Koa.Context): void {
  scimAuth(ctx);
  const startIndex = scimInt(ctx, 'startIndex', 1, 1, Number.MAX_SAFE_INTEGER);
  const count = scimInt(ctx, 'count', 100, 0, SCIM_MAX_COUNT);
  let users = SCIM_USERS;
  const filter = single(ctx, 'filter');
  if (filter !== undefined) {
    // Identity providers look users up with exactly this filter before creating them.
    const m = /^\s*(userName|externalId)\s+eq\s+"([^"\\]*)"\s*$/i.exec(filter);
    if (!m)
      throw new HttpError(
        400,
        'invalidFilter',
        'filter: only `userName eq "\u2026"` and `externalId eq "\u2026"` are supported.',
      );
    const attr = m[1].toLowerCase() === 'username' ? 'userName' : 'externalId';
    users = users.filter((u) =>
      attr === 'userName' ? u.userName.toLowerCase() === m[2].toLowerCase() : u.externalId === m[2],
    );
  }
  const page = users.slice(startIndex - 1, startIndex - 1 + count);
  scimBody(ctx, {
    schemas: [SCIM_LIST_RESPONSE],
    totalResults: users.length,
    startIndex,
    itemsPerPage: page.length,
    Resources: page.map((u) => scimUser(u, selfOrigin(ctx))),
  });
}

function getScimUser(ctx: RouterContext): void {
  scimAuth(ctx);
  const user = SCIM_USERS.find((u) => u.id === ctx.params.id);
  if (!user) throw new HttpError(404, 'notFound', 'No user with this id.');
  scimBody(ctx, scimUser(user, selfOrigin(ctx)));
}

// ---- Embed sessions: the session-generation API that a customer's backend calls with its API key

/** A request body of at most this many bytes: a session request is a few dozen. */
const MAX_BODY_BYTES = 1024;

/** The JSON object of a request body, or a 400 (415 for another content type). */
async function jsonBody(ctx: Koa.Context): Promise<Record<string, unknown>> {
  if (!ctx.is('application/json'))
    throw new HttpError(415, 'unsupported_media_type', 'Send a JSON body (Content-Type: application/json).');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES)
      throw new HttpError(413, 'body_too_large', `The body must be at most ${MAX_BODY_BYTES} bytes.`);
    chunks.push(chunk);
  }
  let value: unknown;
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'invalid_body', 'The body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'invalid_body', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/**
 * `POST /v1/embed/sessions` with `{"embedTenant": "acme", "ttlSeconds": 20}`: a session that ends at a fixed time,
 * whatever happens meanwhile (it carries its end, signed with a key the tenant made at start-up). It must be
 * exchanged (loaded) within `exchangeSeconds` of minting (optional, default 300), and is single-use unless the tenant
 * runs with reusable sessions.
 */
function mintSession(sessions: Sessions): (ctx: Koa.Context) => Promise<void> {
  return async (ctx) => {
    const credential = authenticate(ctx, ['bearer']);
    if (credential.kind !== 'api-key' || !credential.admin) {
      throw new HttpError(403, 'forbidden', 'Generating embed sessions requires an administrator credential.');
    }
    const { embedTenant, ttlSeconds, exchangeSeconds = DEFAULT_EXCHANGE_SECONDS, ...rest } = await jsonBody(ctx);
    const unknown = Object.keys(rest);
    if (unknown.length) throw new HttpError(400, 'invalid_parameter', `Unknown field: ${printable(unknown[0], 40)}.`);
    if (typeof embedTenant !== 'string' || !EMBED_TENANT.test(embedTenant)) {
      throw new HttpError(400, 'invalid_parameter', 'embedTenant: 1 to 32 letters or digits.');
    }
    if (
      typeof ttlSeconds !== 'number' ||
      !Number.isInteger(ttlSeconds) ||
      ttlSeconds < 1 ||
      ttlSeconds > MAX_TTL_SECONDS
    ) {
      throw new HttpError(400, 'invalid_parameter', `ttlSeconds: whole seconds from 1 to ${MAX_TTL_SECONDS}.`);
    }
    if (
      typeof exchangeSeconds !== 'number' ||
      !Number.isInteger(exchangeSeconds) ||
      exchangeSeconds < 1 ||
      exchangeSeconds > MAX_EXCHANGE_SECONDS
    ) {
      throw new HttpError(
        400,
        'invalid_parameter',
        `exchangeSeconds: whole seconds from 1 to ${MAX_EXCHANGE_SECONDS}, the time to load the session after minting (default ${DEFAULT_EXCHANGE_SECONDS}).`,
      );
    }
    const { session, expiresAt } = sessions.mint(embedTenant, ttlSeconds, exchangeSeconds);
    ctx.status = 201;
    ctx.body = { session, embedTenant: embedTenant.toLowerCase(), expiresAt: new Date(expiresAt).toISOString() };
  };
}

/** x-request-id on every answer, and errors in the body shape of REST or of SCIM (RFC 7644 3.12). */
async function errors(ctx: Koa.Context, next: Koa.Next): Promise<void> {
  const incoming = ctx.get('x-request-id');
  const requestId = SAFE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  ctx.set('x-request-id', requestId);
  ctx.set('cache-control', 'no-store');
  try {
    await next();
    // What the router left without a body: no such path (404), or a method it does not take (405, 501).
    if (ctx.body == null && ctx.status === 404) throw new HttpError(404, 'not_found', 'No such endpoint.');
    if (ctx.body == null && (ctx.status === 405 || ctx.status === 501)) {
      const allow = ctx.response.get('allow') || 'HEAD, GET';
      throw new HttpError(
        ctx.status,
        'method_not_allowed',
        allow === 'POST' ? 'Only POST is supported here.' : 'Only GET is supported here.',
        {
          allow,
        },
      );
    }
  } catch (caught) {
    let error: HttpError;
    if (caught instanceof HttpError) {
      error = caught;
    } else {
      console.error(
        `[tenant] 500 ${ctx.method} /api${printable(ctx.path)}: ${printable((caught as Thrown)?.message ?? caught)}`,
      );
      error = new HttpError(500, 'internal', 'Internal error.');
    }
    ctx.set(error.headers);
    ctx.status = error.status;
    if (ctx.path.startsWith('/scim/')) {
      const scimType =
        error.code === 'invalid_parameter'
          ? 'invalidValue'
          : /^(invalidValue|invalidFilter)$/.test(error.code)
            ? error.code
            : undefined;
      scimBody(ctx, {
        schemas: [SCIM_ERROR],
        status: String(error.status),
        ...(scimType ? { scimType } : {}),
        detail: error.message,
      });
    } else {
      ctx.body = { error: { status: error.status, code: error.code, message: error.message }, requestId };
    }
  }
}

/** Middleware serving the REST, SCIM and session endpoints; mount it at /api. Sessions are minted in `sessions`. */
export function restApi(sessions: Sessions): Koa.Middleware {
  const router = new Router({ sensitive: true });
  router.get('/v1/deployments/:deploymentId/notifications/:id/recipients', listRecipients);
  router.post('/v1/embed/sessions', mintSession(sessions));
  router.get('/scim/v2/Users', listScimUsers);
  router.get('/scim/v2/Users/:id', getScimUser);
  // A router sets ctx.params itself; its typings ask for a context that has them already.
  return chain(errors, router.routes() as Koa.Middleware, router.allowedMethods() as Koa.Middleware);
}
