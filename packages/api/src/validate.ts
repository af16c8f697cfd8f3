/**
 * Input checks (thrown as TypeError/RangeError before any request) and response checks (thrown as
 * SvcApiError with code INVALID_RESPONSE, naming the field).
 */
import { SCIM_LIST_RESPONSE, isLoopbackHost, isPlainObject } from '@svc-embed/protocol';
import { SvcApiError } from './errors.js';
import type {
  NotificationRecipient,
  NotificationRecipientsListResponse,
  PageInfo,
  ScimAuthScheme,
  ScimListResponse,
  ScimUser,
} from './types.js';

/** Largest page size of `getRecipients` (docs/api.md, "Recipients"). */
export const MAX_FIRST = 200;
/** Default `maxPages` of both iterators: they always end, even against a server that never does. */
export const DEFAULT_MAX_PAGES = 10_000;
/** Shortest accepted token: redaction by matching the token must not hit ordinary words. */
export const MIN_TOKEN_LENGTH = 8;
/** Largest accepted `maxRetries`: more would only hide an outage. */
export const MAX_RETRIES = 10;
/** `setTimeout` overflows above this and fires at once. */
const MAX_TIMER_MS = 2_147_483_647;

// Loopback only (the protocol's rule): WHATWG URL parsing has already canonicalised forms such as 127.1 or
// 0x7f.0.0.1 to dotted decimal, and IPv6 to '[::1]'.

/**
 * Checks a base address and returns it without trailing slashes, e.g. `https://acme.example.com/api`.
 * The input is never echoed: it may hold a password in its user-info part.
 */
export function normaliseBaseUrl(input: unknown): string {
  const form =
    'an absolute https: URL such as "https://acme.example.com/api" (http: only on localhost, ' +
    '127.0.0.0/8 or [::1]), with no user-info, query or fragment';
  if (typeof input !== 'string' && !(input instanceof URL)) throw new TypeError(`baseUrl must be ${form}`);
  const raw = String(input);
  // The URL parser drops an empty user-info ("https://@host"), so the authority is checked as written,
  // after the clean-up the parser itself does (tabs and line breaks removed, the ends trimmed).
  // eslint-disable-next-line no-control-regex -- trims C0 controls and spaces at the ends, as the URL parser does
  const written = raw.replace(/[\t\n\r]/g, '').replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '');
  const authority = /^[A-Za-z][A-Za-z0-9+.-]*:[\\/]*([^\\/?#]*)/.exec(written)?.[1] ?? '';
  if (authority.includes('@')) {
    throw new TypeError(`baseUrl must not contain user-info (credentials go in the token option); it must be ${form}`);
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`baseUrl is not a valid URL; it must be ${form}`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) {
    throw new TypeError(
      url.protocol === 'http:'
        ? `baseUrl uses http: on a non-loopback host; it must be ${form}`
        : `baseUrl must use https:; it must be ${form}`,
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new TypeError(`baseUrl must not contain user-info (credentials go in the token option); it must be ${form}`);
  }
  // An empty "?" or "#" leaves search/hash empty but stays in href; the path encodes literal ones.
  if (url.search !== '' || url.hash !== '' || url.href.includes('?') || url.href.includes('#')) {
    throw new TypeError(`baseUrl must not contain a query or fragment; it must be ${form}`);
  }
  return url.origin + url.pathname.replace(/\/+$/, '');
}

/**
 * Checks a token: visible ASCII only, so no CR/LF header injection and no runtime error echoing it;
 * at least 8 characters, so that redacting it from messages cannot hit ordinary words.
 */
export function checkToken(token: unknown): string {
  const form = `a string of at least ${MIN_TOKEN_LENGTH} visible ASCII characters (no spaces, line breaks or control characters)`;
  if (typeof token !== 'string') {
    throw new TypeError(
      token === undefined
        ? `token is missing (undefined; is its environment variable set?); it must be ${form}`
        : `token must be ${form}`,
    );
  }
  if (token.length === 0) throw new TypeError(`token is empty; it must be ${form}`);
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new TypeError(`token contains whitespace, control or non-ASCII characters; it must be ${form}`);
  }
  if (token.length < MIN_TOKEN_LENGTH)
    throw new TypeError(`token is too short (${token.length} characters); it must be ${form}`);
  return token;
}

/** Checks the SCIM authorization scheme (docs/api.md, "Authentication"). */
export function checkScheme(value: unknown): ScimAuthScheme {
  if (value === undefined) return 'Bearer';
  if (value !== 'Bearer' && value !== 'Api-Key') throw new TypeError('scimAuthScheme must be "Bearer" or "Api-Key"');
  return value;
}

/** Checks an integer option within bounds; `undefined` gives the default. */
export function checkInteger(
  name: string,
  value: unknown,
  min: number,
  max: number,
  fallback?: number,
): number | undefined {
  if (value === undefined) return fallback;
  const form = max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`;
  if (typeof value !== 'number') throw new TypeError(`${name} must be ${form}`);
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new RangeError(`${name} must be ${form}`);
  return value;
}

/** Checks an id: a positive safe integer (the path parameters of docs/api.md, "Recipients"). */
export function checkId(name: string, value: unknown): number {
  const form = `a positive safe integer (1 to ${Number.MAX_SAFE_INTEGER})`;
  if (typeof value !== 'number') throw new TypeError(`${name} must be ${form}`);
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be ${form}`);
  return value;
}

/** Checks a delay or timeout option, in milliseconds. */
export function checkMs(name: string, value: unknown, min: number, fallback: number): number {
  const form = `a number of milliseconds from ${min} to ${MAX_TIMER_MS}`;
  if (value === undefined) return fallback;
  if (typeof value !== 'number') throw new TypeError(`${name} must be ${form}`);
  if (!Number.isFinite(value) || value < min || value > MAX_TIMER_MS) throw new RangeError(`${name} must be ${form}`);
  return value;
}

/** Checks a pagination cursor: `undefined`/`null` for none, otherwise a non-empty string. */
export function checkCursor(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw new TypeError('after must be a cursor string (a previous pageInfo.endCursor) or null');
  if (value === '')
    throw new RangeError('after must be a non-empty cursor string (a previous pageInfo.endCursor) or null');
  return value;
}

/** Checks an optional AbortSignal, duck-typed so signals from other realms or polyfills work. */
export function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined) return undefined;
  const s = value as AbortSignal | null;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.aborted !== 'boolean' ||
    typeof s.addEventListener !== 'function'
  ) {
    throw new TypeError('signal must be an AbortSignal');
  }
  return s;
}

/** Checks the optional call arguments object. */
export function checkParams(value: unknown, method: string, required: boolean): Record<string, unknown> {
  if (value === undefined && !required) return {};
  if (value === null || typeof value !== 'object') throw new TypeError(`${method} expects an options object`);
  return value as Record<string, unknown>;
}

// ---------------------------------------------------------------------------------------------
// Responses

function invalid(field: string, expected: string): never {
  throw new SvcApiError(`Invalid response: ${field} must be ${expected}`, {
    code: 'INVALID_RESPONSE',
    status: 200,
    field,
  });
}

// The fields of a recipient (docs/api.md, "Recipients"). A listing reads 90,000 of them, so they are read as plain
// properties (`item.email`), each checked by its value, and a bad one is named by its path, e.g.
// `items[3].email`, built only then. Only own properties count: see ownFieldsOnly.

/** A recipient's fields, in the order of the spec's table: also the CLI's CSV columns. */
export const RECIPIENT_FIELDS: readonly string[] = [
  'type',
  'userId',
  'email',
  'username',
  'embedUserId',
  'embedTenantName',
  'externalId',
  'channelId',
  'channelName',
];

/**
 * Whether reading a recipient field of a plain object can find only the object's own property. Its
 * prototype is Object.prototype or null (isPlainObject; JSON.parse makes this realm's), so this holds unless some code in the process put
 * one of the field names on Object.prototype (prototype pollution). Then each item is read from a copy
 * of its own properties without a prototype. Checked once per page: reading JSON data runs no code,
 * so the prototype cannot change while the page is checked.
 */
function ownFieldsOnly(): boolean {
  return !RECIPIENT_FIELDS.some((key) => key in Object.prototype);
}

/** A nullable string field: absent (JSON has no undefined) or null gives null. */
function str(v: unknown, key: string, index: number): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v === 'string') return v;
  return invalid(`items[${index}].${key}`, 'a string or null');
}

/** A nullable integer field: absent or null gives null. */
function int(v: unknown, key: string, index: number): number | null {
  if (v === undefined || v === null) return null;
  if (Number.isSafeInteger(v)) return v as number;
  return invalid(`items[${index}].${key}`, 'an integer or null');
}

/**
 * isPlainObject, answering first for what JSON.parse makes: objects whose prototype is this realm's Object.prototype.
 * isPlainObject then asks Object.prototype for its own prototype, which V8 answers in its runtime on every call, even
 * from optimised code: about 140 instructions, for every item of a listing.
 */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  return (
    (typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype) ||
    isPlainObject(value)
  );
}

function parseRecipient(value: unknown, index: number, ownOnly: boolean): NotificationRecipient {
  if (!isJsonObject(value)) invalid(`items[${index}]`, 'an object');
  const item: Record<string, unknown> = ownOnly
    ? value
    : Object.assign(Object.create(null) as Record<string, unknown>, value);
  const type = item.type;
  if (typeof type !== 'string' || type === '') invalid(`items[${index}].type`, 'a non-empty string');
  if (type !== 'USER' && type !== 'EMBED_USER' && type !== 'SLACK') {
    // Object.fromEntries defines an own "__proto__" key instead of setting the prototype.
    return { type: 'UNKNOWN', rawType: type, raw: Object.freeze(Object.fromEntries(Object.entries(value))) };
  }
  // Every declared field is type-checked on every known kind, in this order (the first bad one is
  // reported), so a malformed page is never accepted; each kind only carries the fields the spec
  // populates for it. One object literal per kind keeps every recipient of a kind in one shape.
  // The usual recipient, every field absent, null or of its type, passes one test without a call per field (a
  // listing's first pages run before the code is optimised, where those calls were most of the check); any other
  // is checked field by field, which names the first bad one.
  const v = item;
  const ok =
    (v.userId == null || Number.isSafeInteger(v.userId)) &&
    (v.email == null || typeof v.email === 'string') &&
    (v.username == null || typeof v.username === 'string') &&
    (v.embedUserId == null || Number.isSafeInteger(v.embedUserId)) &&
    (v.embedTenantName == null || typeof v.embedTenantName === 'string') &&
    (v.externalId == null || typeof v.externalId === 'string') &&
    (v.channelId == null || typeof v.channelId === 'string') &&
    (v.channelName == null || typeof v.channelName === 'string');
  const userId = ok ? ((v.userId ?? null) as number | null) : int(v.userId, 'userId', index);
  const email = ok ? ((v.email ?? null) as string | null) : str(v.email, 'email', index);
  const username = ok ? ((v.username ?? null) as string | null) : str(v.username, 'username', index);
  const embedUserId = ok ? ((v.embedUserId ?? null) as number | null) : int(v.embedUserId, 'embedUserId', index);
  const embedTenantName = ok
    ? ((v.embedTenantName ?? null) as string | null)
    : str(v.embedTenantName, 'embedTenantName', index);
  const externalId = ok ? ((v.externalId ?? null) as string | null) : str(v.externalId, 'externalId', index);
  const channelId = ok ? ((v.channelId ?? null) as string | null) : str(v.channelId, 'channelId', index);
  const channelName = ok ? ((v.channelName ?? null) as string | null) : str(v.channelName, 'channelName', index);
  switch (type) {
    case 'USER':
      return { type, userId, email, username };
    case 'EMBED_USER':
      return { type, embedUserId, embedTenantName, externalId, email, username };
    case 'SLACK':
      return { type, channelId, channelName, username };
  }
}

function parseCursor(info: Record<string, unknown>, key: string): string | null {
  if (!Object.hasOwn(info, key) || info[key] === null) return null;
  if (typeof info[key] !== 'string') invalid(`pageInfo.${key}`, 'a string or null');
  return info[key];
}

/** Checks one `getRecipients` page (docs/api.md, "Recipients" and "Pagination"); returns a fresh, normalised copy. */
export function parseRecipientsPage(body: unknown): NotificationRecipientsListResponse {
  if (!isPlainObject(body)) invalid('body', 'a JSON object');
  if (!Array.isArray(body.items)) invalid('items', 'an array');
  const ownOnly = ownFieldsOnly();
  const items = body.items.map((item, i) => parseRecipient(item, i, ownOnly));
  let pageInfo: PageInfo | null = null;
  if (Object.hasOwn(body, 'pageInfo') && body.pageInfo !== null) {
    const info = body.pageInfo;
    if (!isPlainObject(info)) invalid('pageInfo', 'an object or null');
    if (typeof info.hasNextPage !== 'boolean') invalid('pageInfo.hasNextPage', 'a boolean');
    if (typeof info.hasPreviousPage !== 'boolean') invalid('pageInfo.hasPreviousPage', 'a boolean');
    pageInfo = {
      hasNextPage: info.hasNextPage,
      hasPreviousPage: info.hasPreviousPage,
      startCursor: parseCursor(info, 'startCursor'),
      endCursor: parseCursor(info, 'endCursor'),
    };
  }
  return { items, pageInfo };
}

function optionalInt(body: Record<string, unknown>, key: string, min: number): number | undefined {
  if (!Object.hasOwn(body, key)) return undefined;
  const v = body[key];
  if (!Number.isSafeInteger(v) || (v as number) < min) invalid(key, `an integer >= ${min}`);
  return v as number;
}

function parseScimUser(value: unknown, at: string): ScimUser {
  if (!isPlainObject(value)) invalid(at, 'an object');
  if (typeof value.id !== 'string' || value.id === '') invalid(`${at}.id`, 'a non-empty string');
  if (typeof value.userName !== 'string') invalid(`${at}.userName`, 'a string');
  for (const key of ['externalId', 'displayName'] as const) {
    if (Object.hasOwn(value, key) && typeof value[key] !== 'string') invalid(`${at}.${key}`, 'a string');
  }
  if (Object.hasOwn(value, 'active') && typeof value.active !== 'boolean') invalid(`${at}.active`, 'a boolean');
  if (Object.hasOwn(value, 'emails')) {
    const emails = value.emails;
    if (!Array.isArray(emails)) invalid(`${at}.emails`, 'an array');
    emails.forEach((e, i) => {
      if (!isPlainObject(e)) invalid(`${at}.emails[${i}]`, 'an object');
      if (Object.hasOwn(e, 'value') && typeof e.value !== 'string') invalid(`${at}.emails[${i}].value`, 'a string');
    });
  }
  return Object.fromEntries(Object.entries(value)) as unknown as ScimUser;
}

/**
 * Checks a SCIM ListResponse (RFC 7644 3.4.2). `Resources` may be absent only when there is nothing left to list:
 * `totalResults` ends before the page's start, or the request asked for `count=0`. Missing `startIndex`/`itemsPerPage`
 * are filled in from the request and the page (a filled-in `startIndex` confirms nothing: see ScimApi.users).
 */
export function parseScimList(body: unknown, requestedStart: number, requestedCount?: number): ScimListResponse {
  if (!isPlainObject(body)) invalid('body', 'a JSON object');
  if (Object.hasOwn(body, 'schemas')) {
    const schemas = body.schemas;
    if (!Array.isArray(schemas) || !schemas.includes(SCIM_LIST_RESPONSE))
      invalid('schemas', `an array containing "${SCIM_LIST_RESPONSE}"`);
  }
  const totalResults = optionalInt(body, 'totalResults', 0);
  if (totalResults === undefined) invalid('totalResults', 'an integer >= 0');
  const startIndex = optionalInt(body, 'startIndex', 1) ?? requestedStart;
  let resources: unknown[] = [];
  if (Object.hasOwn(body, 'Resources')) {
    if (!Array.isArray(body.Resources)) invalid('Resources', 'an array');
    resources = body.Resources;
  } else if (requestedCount !== 0 && totalResults >= startIndex) {
    // A page that leaves its users out while totalResults says some remain would end a listing short, silently.
    invalid('Resources', `an array: totalResults is ${totalResults}, so users remain from index ${startIndex}`);
  }
  const users = resources.map((r, i) => parseScimUser(r, `Resources[${i}]`));
  return {
    schemas: [SCIM_LIST_RESPONSE],
    totalResults,
    startIndex,
    itemsPerPage: optionalInt(body, 'itemsPerPage', 0) ?? users.length,
    Resources: users,
  };
}
