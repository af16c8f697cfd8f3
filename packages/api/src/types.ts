/**
 * Public types of `@svc-embed/api`: the recipients listing (docs/api.md, "Recipients" and "Pagination") and
 * the SCIM user listing (docs/api.md, "SCIM users" and "Authentication").
 */

/** The recipient kinds this version knows (docs/api.md, "Recipients"). */
export type KnownRecipientType = 'USER' | 'EMBED_USER' | 'SLACK';

/** A main console user (docs/api.md, "Recipients"). */
export interface UserRecipient {
  readonly type: 'USER';
  readonly userId: number | null;
  readonly email: string | null;
  readonly username: string | null;
}

/** An embed user (docs/api.md, "Recipients"). */
export interface EmbedUserRecipient {
  readonly type: 'EMBED_USER';
  readonly embedUserId: number | null;
  readonly embedTenantName: string | null;
  readonly externalId: string | null;
  readonly email: string | null;
  readonly username: string | null;
}

/** A chat channel (docs/api.md, "Recipients"). */
export interface SlackRecipient {
  readonly type: 'SLACK';
  readonly channelId: string | null;
  readonly channelName: string | null;
  readonly username: string | null;
}

/**
 * A recipient whose `type` this version of the client does not know. It is kept, never dropped,
 * so a server that adds a kind does not break listings. `type` is the fixed marker `'UNKNOWN'` so
 * that `switch (r.type)` narrows cleanly; the server's value is in `rawType`.
 */
export interface UnknownRecipient {
  readonly type: 'UNKNOWN';
  /** The `type` value the server sent. */
  readonly rawType: string;
  /** Every field of the item as received (a fresh object; JSON values only). */
  readonly raw: Readonly<Record<string, unknown>>;
}

/** One recipient of a notification, discriminated on `type`. */
export type NotificationRecipient = UserRecipient | EmbedUserRecipient | SlackRecipient | UnknownRecipient;

/** Cursor pagination state (docs/api.md, "Pagination"). Absent cursors are normalised to `null`. */
export interface PageInfo {
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
  readonly startCursor: string | null;
  readonly endCursor: string | null;
}

/** One page of `getRecipients` (docs/api.md, "Recipients"). A missing `pageInfo` is normalised to `null`. */
export interface NotificationRecipientsListResponse {
  readonly items: readonly NotificationRecipient[];
  readonly pageInfo: PageInfo | null;
}

/** Options shared by every call. */
export interface CallOptions {
  /** Cancels the request in flight and any retry wait; the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** Arguments of {@link SvcClient.listRecipients}. */
export interface ListRecipientsParams extends CallOptions {
  /** Numeric id of the deployment that owns the notification (a positive safe integer). */
  deploymentId: number;
  /** Numeric id of the notification (a positive safe integer). */
  notificationId: number;
  /** Page size, an integer from 1 to 200. When omitted the server default (100) applies. */
  first?: number;
  /** The previous page's `pageInfo.endCursor`; `null` or omitted for the first page. */
  after?: string | null;
}

/** Progress report for multi-page iteration. */
export interface PageProgress {
  /** 1-based number of the page just received. */
  readonly page: number;
  /** Items on that page. */
  readonly pageItems: number;
  /** Items received so far, this page included. */
  readonly received: number;
  /** Total announced by the server, when it announces one (SCIM `totalResults`). */
  readonly total?: number;
  /** The size of that page's response body, in bytes. */
  readonly bytes: number;
  /**
   * Recipients: that page's `pageInfo.endCursor` (`null` when it has none). Passed as `after`, it starts a listing
   * right after that page.
   */
  readonly endCursor?: string | null;
  /** SCIM users: the index that follows that page's users. Passed as `startIndex`, it starts a listing right after it. */
  readonly nextStartIndex?: number;
}

/**
 * What an iterator reports when a listing ended where the server's own numbers say it should not have. The listing
 * still ends there: these are not errors, but its caller should not take the result for the whole.
 * - `PAGE_INFO_MISSING` (recipients): a page said `hasNextPage: true`, and the next page has no `pageInfo`;
 * - `TOTAL_MISMATCH` (SCIM users): the listing ended with fewer or more users than `totalResults` announces.
 */
export interface ListingWarning {
  readonly code: 'PAGE_INFO_MISSING' | 'TOTAL_MISMATCH';
  /** One line for people, naming the page or both numbers. */
  readonly message: string;
  /** The 1-based number of the page at which the listing ended. */
  readonly page: number;
  /** `TOTAL_MISMATCH`: the users the server sent from the listing's `startIndex` on, and the number it announced. */
  readonly received?: number;
  readonly expected?: number;
}

/** Options of both iterators. */
export interface IterationOptions {
  /** Called after each page arrives, before its items are yielded. */
  onPage?: (progress: PageProgress) => void;
  /**
   * Called once when the listing ends short of, or past, what the server announced ({@link ListingWarning}). Without
   * it, the warning goes to `process.emitWarning` (type `SvcApiWarning`) where the runtime has one.
   */
  onWarning?: (warning: ListingWarning) => void;
  /**
   * Most pages requested; a server still claiming a next page after them raises `PAGINATION_ERROR`,
   * so iteration always ends. A positive integer. Default 10000.
   */
  maxPages?: number;
}

/** Arguments of {@link SvcClient.recipients}. */
export interface RecipientsIterationParams extends ListRecipientsParams, IterationOptions {}

/** The SCIM authorization schemes the service accepts (docs/api.md, "Authentication"). */
export type ScimAuthScheme = 'Bearer' | 'Api-Key';

/** A SCIM multi-valued attribute entry such as an e-mail address (RFC 7643 2.4). */
export interface ScimMultiValued {
  readonly value?: string;
  readonly type?: string;
  readonly primary?: boolean;
  readonly display?: string;
  readonly [key: string]: unknown;
}

/**
 * A SCIM user resource (RFC 7643 4.1). The service does not document its fields (docs/api.md, "SCIM users"), so
 * only `id` and `userName` are required; every other field the server sends is kept.
 */
export interface ScimUser {
  readonly id: string;
  readonly userName: string;
  readonly externalId?: string;
  readonly displayName?: string;
  readonly active?: boolean;
  readonly emails?: readonly ScimMultiValued[];
  readonly name?: Readonly<Record<string, unknown>>;
  readonly schemas?: readonly string[];
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly [key: string]: unknown;
}

/** A SCIM ListResponse (RFC 7644 3.4.2). */
export interface ScimListResponse<T = ScimUser> {
  readonly schemas: readonly string[];
  readonly totalResults: number;
  /** 1-based index of the first resource in `Resources`; the request's when the server omits it. */
  readonly startIndex: number;
  /** Number of resources on this page; `Resources.length` when the server omits it. */
  readonly itemsPerPage: number;
  readonly Resources: readonly T[];
}

/** Arguments of {@link ScimApi.listUsers}. */
export interface ScimListUsersParams extends CallOptions {
  /** 1-based index of the first user (RFC 7644 3.4.2.4). Default 1. */
  startIndex?: number;
  /** Page size, a non-negative integer. When omitted the server default applies. */
  count?: number;
}

/** Arguments of {@link ScimApi.users}. */
export interface ScimUsersIterationParams extends CallOptions, IterationOptions {
  /** Page size, a positive integer. When omitted the server default applies. */
  count?: number;
  /** 1-based index to start from. Default 1. */
  startIndex?: number;
}

/** Reported before each retry wait. */
export interface RetryInfo {
  /** 1-based number of the retry about to happen. */
  readonly retry: number;
  /** How long the client waits before it. */
  readonly delayMs: number;
  /** The HTTP status that caused it, or 0 for a network error or timeout. */
  readonly status: number;
  /**
   * What failed: `HTTP_ERROR` (a 429, 502, 503 or 504, see `status`), `NETWORK_ERROR` (no response)
   * or `TIMEOUT` (no complete response within `timeoutMs`).
   */
  readonly code: 'HTTP_ERROR' | 'NETWORK_ERROR' | 'TIMEOUT';
  /** The request path, without the base URL. */
  readonly path: string;
}

/** Options of {@link SvcClient}. */
export interface SvcClientOptions {
  /**
   * The service base address, e.g. `https://acme.example.com/api`. `https:` only; `http:` only on
   * loopback hosts (`localhost`, `127.0.0.0/8`, `[::1]`). No user-info, query or fragment.
   */
  baseUrl: string | URL;
  /**
   * API key, OAuth access token or SCIM token: at least 8 visible ASCII characters, never logged or
   * serialised. `undefined` is accepted by the type, so that `process.env.SVC_API_TOKEN` can be
   * passed as is, and refused at run time with a TypeError saying the token is missing.
   */
  token: string | undefined;
  /** Authorization scheme on `/scim/v2` requests (docs/api.md, "Authentication"). Default `'Bearer'`. */
  scimAuthScheme?: ScimAuthScheme;
  /** A `fetch` implementation. Default: the global `fetch`. Not with `proxyFromEnv`. */
  fetch?: typeof globalThis.fetch;
  /**
   * Send `https:` requests through the proxy that `HTTPS_PROXY`, `https_proxy`, `HTTP_PROXY` or `http_proxy` names,
   * except to the hosts `NO_PROXY` lists, as read from `process.env` when the client is made (undici's
   * `EnvHttpProxyAgent`, through a `CONNECT` tunnel). `http:` base URLs (loopback only) never go through a proxy,
   * which would see the token. Default `false`.
   */
  proxyFromEnv?: boolean;
  /** Time limit of each attempt (request and body), in milliseconds. Default 30000. */
  timeoutMs?: number;
  /** Retries after a 429, 502, 503, 504 or a network error; an integer 0..10. Default 2. */
  maxRetries?: number;
  /** First backoff step in milliseconds, doubled on each retry (with jitter). Default 500. */
  retryBaseDelayMs?: number;
  /**
   * Upper bound of any wait, in milliseconds. Default 30000. A `Retry-After` longer than this is not
   * waited for at all: the call fails at once with an `SvcApiError` whose `retryAfterMs` holds the
   * server's delay.
   */
  retryMaxDelayMs?: number;
  /** Called before each retry wait (for logging or progress). */
  onRetry?: (info: RetryInfo) => void;
  /**
   * Permit construction in a browser. An unscoped key grants full account access (docs/api.md, "Authentication"), so
   * only pass `true` for a key that is safe to expose to the page's users.
   */
  allowBrowser?: boolean;
}
