/**
 * `SvcClient`: the recipients listing (docs/api.md, "Recipients") and the SCIM user listing (docs/api.md,
 * "SCIM users") over `fetch`.
 */
import { SvcApiError } from './errors.js';
import { LOADED_FETCH, Transport } from './http.js';
import { PageItems } from './items.js';
import { proxiedFetch, proxySettings } from './proxy.js';
import { REDACTED, redactor } from './text.js';
import type { JsonResult } from './http.js';
import type {
  ListRecipientsParams,
  ListingWarning,
  NotificationRecipient,
  NotificationRecipientsListResponse,
  PageProgress,
  RecipientsIterationParams,
  ScimAuthScheme,
  ScimListResponse,
  ScimListUsersParams,
  ScimUser,
  ScimUsersIterationParams,
  SvcClientOptions,
} from './types.js';
import {
  DEFAULT_MAX_PAGES,
  MAX_FIRST,
  MAX_RETRIES,
  checkCursor,
  checkId,
  checkInteger,
  checkMs,
  checkParams,
  checkScheme,
  checkSignal,
  checkToken,
  normaliseBaseUrl,
  parseRecipientsPage,
  parseScimList,
} from './validate.js';

/** Node's `util.inspect` hook, by its registry name so that nothing here imports `node:util`. */
export const inspectCustom: unique symbol = Symbol.for('nodejs.util.inspect.custom');

/** Pages in a row with no items but a next cursor before iteration gives up as a server loop. */
const MAX_EMPTY_PAGES = 3;

type Inspect = (value: unknown, options?: unknown) => string;

/** The runtime's environment variables, where it has `process.env`; else none. */
function processEnv(): Readonly<Record<string, string | undefined>> {
  const env = (globalThis as { process?: { env?: unknown } }).process?.env;
  return env !== null && typeof env === 'object' ? (env as Record<string, string | undefined>) : {};
}

/** Whether this looks like a browser: a page (`window` and `document`) or a Web, Shared or Service Worker. */
function inBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown; importScripts?: unknown };
  return (
    (typeof g.window !== 'undefined' && typeof g.document !== 'undefined') || typeof g.importScripts === 'function'
  );
}

function show(name: string, view: object, options: unknown, inspect: Inspect | undefined): string {
  return `${name} ${typeof inspect === 'function' ? inspect(view, options) : JSON.stringify(view)}`;
}

function checkCallback<T>(name: string, value: unknown): T | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function`);
  return value as T;
}

/** Where a listing's warnings go: the caller's `onWarning`, else the runtime's process warnings, else nowhere. */
function warner(value: unknown): (warning: ListingWarning) => void {
  const own = checkCallback<(warning: ListingWarning) => void>('onWarning', value);
  if (own) return own;
  return (warning) => {
    const proc = (globalThis as { process?: { emitWarning?: unknown } }).process;
    if (typeof proc?.emitWarning === 'function')
      (proc.emitWarning as (m: string, o: object) => void).call(proc, warning.message, {
        type: 'SvcApiWarning',
        code: warning.code,
      });
  };
}

/** Whether two recipients hold the same fields (an unknown kind: the same fields as received). */
function sameRecipient(a: NotificationRecipient, b: NotificationRecipient): boolean {
  if (a.type !== b.type) return false;
  if (a.type === 'UNKNOWN' || b.type === 'UNKNOWN') {
    return (
      a.type === 'UNKNOWN' &&
      b.type === 'UNKNOWN' &&
      a.rawType === b.rawType &&
      JSON.stringify(a.raw) === JSON.stringify(b.raw)
    );
  }
  const x = a as unknown as Record<string, unknown>;
  const y = b as unknown as Record<string, unknown>;
  for (const key in x) if (x[key] !== y[key]) return false;
  return true;
}

/**
 * Whether `page` holds the very recipients of `previous`, in order: what a server that ignores `after` but hands out
 * a new cursor each time sends. Usually the first items differ, and that is the whole cost.
 */
function repeatsPage(page: readonly NotificationRecipient[], previous: readonly NotificationRecipient[]): boolean {
  if (page.length === 0 || page.length !== previous.length) return false;
  for (let i = 0; i < page.length; i++) if (!sameRecipient(page[i], previous[i])) return false;
  return true;
}

/** The warning of a SCIM listing that ended with another number of users than `totalResults` announced. */
function totalMismatch(page: number, start: number, sent: number, expected: number, total: number): ListingWarning {
  const from = start > 1 ? ` from index ${start}` : '';
  const announced = start > 1 ? `totalResults ${total} means ${expected}` : `totalResults says ${total}`;
  const extra = sent > expected ? `; the ${sent - expected} beyond it were left out` : '';
  return {
    code: 'TOTAL_MISMATCH',
    message: `the SCIM listing ended at page ${page} with ${sent} user${sent === 1 ? '' : 's'}${from}, but ${announced}${extra}`,
    page,
    received: sent,
    expected,
  };
}

function paginationError(message: string, path: string, field?: string): SvcApiError {
  return new SvcApiError(`Pagination stopped: ${message}`, {
    code: 'PAGINATION_ERROR',
    status: 200,
    method: 'GET',
    path,
    field,
  });
}

/** Adds request context to a response-shape error raised by a parser. */
function withContext<T>(parse: () => T, path: string, res: JsonResult, redact: (t: string) => string): T {
  try {
    return parse();
  } catch (err) {
    if (!(err instanceof SvcApiError)) throw err;
    const rid = res.requestId ? ` [request id ${res.requestId}]` : '';
    throw new SvcApiError(`GET ${path.split('?')[0]} failed: ${err.message}${rid}`, {
      code: err.code,
      status: res.status,
      method: 'GET',
      path: redact(path),
      requestId: res.requestId,
      field: err.field,
    });
  }
}

/** Recipients arguments after validation. */
interface CheckedRecipients {
  deploymentId: number;
  notificationId: number;
  first: number | undefined;
  after: string | undefined;
  signal: AbortSignal | undefined;
}

type Get = (path: string, signal: AbortSignal | undefined) => Promise<JsonResult>;

/**
 * The SCIM 2 user listing (docs/api.md, "SCIM users"), reached as `client.scim`. Requests carry
 * `Authorization: <scimAuthScheme> <token>` (docs/api.md, "Authentication").
 */
export class ScimApi {
  readonly #get: Get;
  readonly #view: object;
  readonly #redact: (text: string) => string;

  /** @internal Built by {@link SvcClient}; not meant to be constructed directly. */
  constructor(get: Get, view: object, redact: (text: string) => string) {
    this.#get = get;
    this.#view = view;
    this.#redact = redact;
  }

  /**
   * Lists one page of users: `GET {baseUrl}/scim/v2/Users?startIndex=&count=`.
   * @returns The checked ListResponse; `Resources` is always an array.
   * @throws TypeError or RangeError (as a rejection, before any request) for invalid arguments.
   * @throws SvcApiError for HTTP, network and response-shape failures; SCIM error bodies fill
   *   `detail` and `scimType`.
   */
  async listUsers(params?: ScimListUsersParams): Promise<ScimListResponse> {
    const p = checkParams(params, 'listUsers', false);
    const startIndex = checkInteger('startIndex', p.startIndex, 1, Number.MAX_SAFE_INTEGER);
    const count = checkInteger('count', p.count, 0, Number.MAX_SAFE_INTEGER);
    const signal = checkSignal(p.signal);
    return this.#list(startIndex, count, signal);
  }

  /**
   * Iterates over every user, page after page. `startIndex` is 1-based and advances by the number of
   * users actually returned; iteration stops at `totalResults` or at an empty page, and never yields
   * more users than `totalResults` announces. Breaking out of `for await` sends no further request.
   * @throws TypeError or RangeError synchronously, before any request, for invalid arguments.
   * @throws SvcApiError (code `PAGINATION_ERROR`, `field: 'startIndex'`) when a page's `startIndex`
   *   is not the one requested: a server that ignores `startIndex` would repeat the same page. Also
   *   `PAGINATION_ERROR` when users remain after `maxPages` pages (default 10,000).
   */
  users(params?: ScimUsersIterationParams): AsyncGenerator<ScimUser, void, undefined> {
    const p = checkParams(params, 'users', false);
    const count = checkInteger('count', p.count, 1, Number.MAX_SAFE_INTEGER);
    const start = checkInteger('startIndex', p.startIndex, 1, Number.MAX_SAFE_INTEGER, 1)!;
    const signal = checkSignal(p.signal);
    const onPage = checkCallback<(progress: PageProgress) => void>('onPage', p.onPage);
    const warn = warner(p.onWarning);
    const maxPages = checkInteger('maxPages', p.maxPages, 1, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_PAGES)!;
    return new PageItems(this.#pages(start, count, signal, onPage, warn, maxPages));
  }

  /**
   * One page of users; `size`, when given, receives the response body's size, and whether the server sent
   * `startIndex` itself.
   */
  async #list(
    startIndex: number | undefined,
    count: number | undefined,
    signal?: AbortSignal,
    size?: { bytes: number; startIndexSent: boolean },
  ): Promise<ScimListResponse> {
    const query = new URLSearchParams();
    if (startIndex !== undefined) query.set('startIndex', String(startIndex));
    if (count !== undefined) query.set('count', String(count));
    const qs = query.toString();
    const path = `/scim/v2/Users${qs ? `?${qs}` : ''}`;
    const res = await this.#get(path, signal);
    if (size) {
      size.bytes = res.bytes;
      const body = res.body;
      size.startIndexSent = body !== null && typeof body === 'object' && Object.hasOwn(body, 'startIndex');
    }
    return withContext(() => parseScimList(res.body, startIndex ?? 1, count), path, res, this.#redact);
  }

  /**
   * Every page's users, by startIndex, with the pagination checks. A page's startIndex is taken at its word only when
   * the server sent it; every page is also checked against the previous one (and only that one: memory stays flat),
   * so a server that ignores startIndex cannot hand out the same users twice.
   */
  async *#pages(
    start: number,
    count: number | undefined,
    signal: AbortSignal | undefined,
    onPage: ((progress: PageProgress) => void) | undefined,
    warn: (warning: ListingWarning) => void,
    maxPages: number,
  ): AsyncGenerator<readonly ScimUser[], void, undefined> {
    const where = '/scim/v2/Users';
    let next = start;
    let received = 0;
    /** Users the server sent, those beyond totalResults included. */
    let sent = 0;
    let previous: ReadonlySet<string> | undefined;
    for (let page = 1; ; page++) {
      const size = { bytes: 0, startIndexSent: false };
      const list = await this.#list(next, count, signal, size);
      if (list.startIndex !== next) {
        throw paginationError(
          `page ${page} has startIndex ${list.startIndex} but startIndex ${next} was requested ` +
            '(the server would repeat or skip users)',
          where,
          'startIndex',
        );
      }
      if (!size.startIndexSent && page === 1 && next > 1 && list.Resources.length > 0) {
        throw paginationError(
          `page 1 has no startIndex, so whether the server began at index ${next} cannot be checked ` +
            '(RFC 7644 requires startIndex in a paged answer)',
          where,
          'startIndex',
        );
      }
      // Ids are unique: a user of the previous page again means the server repeats itself (it ignores startIndex,
      // or the listing changed while it was read). Nothing of such a page is yielded.
      if (previous !== undefined && list.Resources.some((u) => previous!.has(u.id))) {
        throw paginationError(
          `page ${page} repeats users of page ${page - 1} (the server ignores startIndex, or the users changed while ` +
            'they were listed)',
          where,
          size.startIndexSent ? 'Resources' : 'startIndex',
        );
      }
      // Never more users than the server announces: index `next` onwards, up to `totalResults`.
      const room = Math.max(0, list.totalResults - (next - 1));
      const users = list.Resources.length > room ? list.Resources.slice(0, room) : list.Resources;
      const n = users.length;
      sent += list.Resources.length;
      received += n;
      onPage?.({
        page,
        pageItems: n,
        received,
        total: list.totalResults,
        bytes: size.bytes,
        nextStartIndex: next + n,
      });
      yield users;
      // Advance by what actually came back: servers may return fewer than `count`.
      next += n;
      if (n === 0 || next > list.totalResults) {
        const expected = Math.max(0, list.totalResults - (start - 1));
        if (sent !== expected) warn(totalMismatch(page, start, sent, expected, list.totalResults));
        return;
      }
      if (page >= maxPages) {
        throw paginationError(
          `users remain after maxPages (${maxPages}) pages; pass a larger maxPages to go on`,
          where,
        );
      }
      previous = new Set(list.Resources.map((u) => u.id));
    }
  }

  /** Redacted summary for logs. */
  toJSON(): object {
    return this.#view;
  }

  /** Redacted view for `util.inspect`. */
  [inspectCustom](_depth: number, options: unknown, inspect?: Inspect): string {
    return show('ScimApi', this.#view, options, inspect);
  }
}

/**
 * Typed client of the REST recipients listing and the SCIM user listing. Runs wherever a standard `fetch` exists
 * (Node 20+, Deno, Bun, edge runtimes); with `proxyFromEnv`, it loads undici to go through the environment's proxy.
 *
 * The token lives in a private field: it never appears in `JSON.stringify(client)`,
 * `util.inspect(client)`, nor in any error. Redirects are never followed.
 *
 * @example
 * ```ts
 * const client = new SvcClient({ baseUrl: 'https://acme.example.com/api', token: process.env.SVC_API_TOKEN });
 * for await (const r of client.recipients({ deploymentId: 1, notificationId: 10, first: 200 })) console.log(r.type);
 * ```
 */
export class SvcClient {
  /** The normalised base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** The SCIM 2 interface (docs/api.md, "SCIM users"). */
  readonly scim: ScimApi;
  readonly #token: string;
  readonly #scimScheme: ScimAuthScheme;
  readonly #transport: Transport;
  readonly #view: Record<string, unknown>;
  readonly #redact: (text: string) => string;

  /**
   * Validates every option; nothing is sent.
   * @throws Error in a browser (a page, or a Web, Shared or Service Worker) unless `allowBrowser: true`.
   * @throws TypeError or RangeError for an invalid option, naming the accepted form.
   */
  constructor(options: SvcClientOptions) {
    if (options === null || typeof options !== 'object') throw new TypeError('SvcClient expects an options object');
    if (inBrowser() && options.allowBrowser !== true) {
      throw new Error(
        'SvcClient refuses to run in a browser: an API key in a page is readable by its users, and an ' +
          'unscoped key grants full account access. Call the API from a server, or pass allowBrowser: true for a key ' +
          'that is safe to expose.',
      );
    }
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    const token = checkToken(options.token);
    this.#token = token;
    this.#scimScheme = checkScheme(options.scimAuthScheme);
    const ownFetch = checkCallback<typeof globalThis.fetch>('fetch', options.fetch);
    if (options.proxyFromEnv !== undefined && typeof options.proxyFromEnv !== 'boolean')
      throw new TypeError('proxyFromEnv must be a boolean');
    if (options.proxyFromEnv && ownFetch)
      throw new TypeError('proxyFromEnv and fetch exclude each other: a fetch of your own chooses its proxy itself');
    // http: is taken on loopback only, and a proxy would read the token there: such requests go direct.
    const proxy =
      options.proxyFromEnv === true && this.baseUrl.startsWith('https:') ? proxySettings(processEnv()) : undefined;
    const fetchImpl =
      ownFetch ??
      (proxy ? proxiedFetch(proxy) : undefined) ??
      (typeof globalThis.fetch === 'function' ? globalThis.fetch.bind(globalThis) : undefined);
    if (!fetchImpl)
      throw new TypeError('no global fetch in this runtime: pass a fetch implementation in options.fetch');
    const timeoutMs = checkMs('timeoutMs', options.timeoutMs, 1, 30_000);
    const maxRetries = checkInteger('maxRetries', options.maxRetries, 0, MAX_RETRIES, 2)!;
    const redact = redactor(token);
    this.#transport = new Transport({
      baseUrl: this.baseUrl,
      fetch: fetchImpl,
      timeoutMs,
      maxRetries,
      retryBaseDelayMs: checkMs('retryBaseDelayMs', options.retryBaseDelayMs, 0, 500),
      retryMaxDelayMs: checkMs('retryMaxDelayMs', options.retryMaxDelayMs, 0, 30_000),
      onRetry: checkCallback('onRetry', options.onRetry),
      redact,
      tokenLength: token.length,
      reuseSignals: options.fetch === undefined && !proxy && globalThis.fetch === LOADED_FETCH,
    });
    this.#view = { baseUrl: this.baseUrl, token: REDACTED, scimAuthScheme: this.#scimScheme, timeoutMs, maxRetries };
    if (proxy) this.#view.proxy = 'env';
    this.scim = new ScimApi(
      (path, signal) =>
        this.#transport.getJson({
          path,
          signal,
          scim: true,
          authorization: `${this.#scimScheme} ${this.#token}`,
          accept: 'application/scim+json, application/json',
        }),
      { baseUrl: this.baseUrl, scimAuthScheme: this.#scimScheme },
      redact,
    );
    this.#redact = redact;
  }

  /**
   * Lists one page of a notification's recipients:
   * `GET {baseUrl}/v1/deployments/{deploymentId}/notifications/{notificationId}/recipients`.
   * @returns The checked page; unknown recipient kinds come through as `type: 'UNKNOWN'`.
   * @throws TypeError or RangeError (as a rejection, before any request) for invalid arguments.
   * @throws SvcApiError for HTTP, network and response-shape failures.
   */
  async listRecipients(params: ListRecipientsParams): Promise<NotificationRecipientsListResponse> {
    const p = this.#checkRecipients(params, 'listRecipients');
    return this.#page(p.deploymentId, p.notificationId, p.first, p.after, p.signal);
  }

  /**
   * Iterates over every recipient of every page, following `pageInfo.endCursor` until
   * `hasNextPage` is false. Breaking out of `for await` sends no further request.
   * @throws TypeError or RangeError synchronously, before any request, for invalid arguments.
   * @throws SvcApiError (code `PAGINATION_ERROR`) when the server claims a next page without a
   *   cursor, repeats a cursor, keeps sending empty pages, or still claims a next page after
   *   `maxPages` pages (default 10,000).
   */
  recipients(params: RecipientsIterationParams): AsyncGenerator<NotificationRecipient, void, undefined> {
    const p = this.#checkRecipients(params, 'recipients');
    const extra = params as { onPage?: unknown; onWarning?: unknown; maxPages?: unknown };
    const onPage = checkCallback<(progress: PageProgress) => void>('onPage', extra.onPage);
    const warn = warner(extra.onWarning);
    const maxPages = checkInteger('maxPages', extra.maxPages, 1, Number.MAX_SAFE_INTEGER, DEFAULT_MAX_PAGES)!;
    return new PageItems(this.#pages(p, onPage, warn, maxPages));
  }

  /** Redacted summary for logs: the token shows as `[REDACTED]`. */
  toJSON(): Record<string, unknown> {
    return { ...this.#view };
  }

  /** Redacted view for `util.inspect` and `console.log`. */
  [inspectCustom](_depth: number, options: unknown, inspect?: Inspect): string {
    return show('SvcClient', this.#view, options, inspect);
  }

  #checkRecipients(params: unknown, method: string): CheckedRecipients {
    const p = checkParams(params, method, true);
    return {
      deploymentId: checkId('deploymentId', p.deploymentId),
      notificationId: checkId('notificationId', p.notificationId),
      first: checkInteger('first', p.first, 1, MAX_FIRST),
      after: checkCursor(p.after),
      signal: checkSignal(p.signal),
    };
  }

  async #page(
    deploymentId: number,
    notificationId: number,
    first: number | undefined,
    after: string | undefined,
    signal: AbortSignal | undefined,
    size?: { bytes: number },
  ): Promise<NotificationRecipientsListResponse> {
    const query = new URLSearchParams();
    if (first !== undefined) query.set('first', String(first));
    if (after !== undefined) query.set('after', after);
    const qs = query.toString();
    const path = `/v1/deployments/${deploymentId}/notifications/${notificationId}/recipients${qs ? `?${qs}` : ''}`;
    const res = await this.#transport.getJson({
      path,
      signal,
      scim: false,
      authorization: `Bearer ${this.#token}`,
      accept: 'application/json',
      notFound: `notification ${notificationId} is not in deployment ${deploymentId} (or the base URL is wrong)`,
    });
    if (size) size.bytes = res.bytes;
    return withContext(() => parseRecipientsPage(res.body), path, res, this.#redact);
  }

  /**
   * Every page's recipients, following the cursors, with the pagination checks. Each page is compared with the
   * previous one only (memory stays flat): a server that ignores `after` but hands out a new cursor each time sends
   * the same page again, and is stopped there.
   */
  async *#pages(
    p: CheckedRecipients,
    onPage: ((progress: PageProgress) => void) | undefined,
    warn: (warning: ListingWarning) => void,
    maxPages: number,
  ): AsyncGenerator<readonly NotificationRecipient[], void, undefined> {
    const seen = new Set<string>();
    if (p.after !== undefined) seen.add(p.after);
    let after = p.after;
    let received = 0;
    let emptyRun = 0;
    let previous: readonly NotificationRecipient[] = [];
    const where = `/v1/deployments/${p.deploymentId}/notifications/${p.notificationId}/recipients`;
    for (let page = 1; ; page++) {
      const size = { bytes: 0 };
      const res = await this.#page(p.deploymentId, p.notificationId, p.first, after, p.signal, size);
      const info = res.pageInfo;
      // A cursor seen before is the loop that the cursor checks below report, once the page is out.
      const known = info !== null && info.hasNextPage && info.endCursor !== null && seen.has(info.endCursor);
      if (!known && repeatsPage(res.items, previous)) {
        throw paginationError(
          `page ${page} repeats the recipients of page ${page - 1} under a new cursor (the server ignores after)`,
          where,
          'items',
        );
      }
      received += res.items.length;
      onPage?.({ page, pageItems: res.items.length, received, bytes: size.bytes, endCursor: info?.endCursor ?? null });
      yield res.items;
      if (!info) {
        // Page 1 without pageInfo is a listing of one page; a later page had been announced by hasNextPage.
        if (page > 1) {
          warn({
            code: 'PAGE_INFO_MISSING',
            message:
              `page ${page} has no pageInfo, though page ${page - 1} said hasNextPage: the listing ends at page ` +
              `${page} and may be incomplete`,
            page,
          });
        }
        return;
      }
      if (!info.hasNextPage) return;
      const next = info.endCursor;
      if (next === null || next === '') {
        throw paginationError(`page ${page} has hasNextPage true but no endCursor`, where);
      }
      if (seen.has(next))
        throw paginationError(`page ${page} repeats an earlier cursor (the server would loop)`, where);
      if (page >= maxPages) {
        throw paginationError(
          `still a next page after maxPages (${maxPages}) pages; pass a larger maxPages to go on`,
          where,
        );
      }
      emptyRun = res.items.length === 0 ? emptyRun + 1 : 0;
      if (emptyRun >= MAX_EMPTY_PAGES) {
        throw paginationError(`${MAX_EMPTY_PAGES} empty pages in a row still claim a next page`, where);
      }
      seen.add(next);
      after = next;
      previous = res.items;
    }
  }
}
