/**
 * The one error class of `@svc-embed/api` for everything that goes wrong after input validation.
 * Input mistakes stay plain `TypeError`/`RangeError`, thrown before any request.
 */

/**
 * What went wrong:
 * - `HTTP_ERROR`: the server answered with a non-2xx status (see `status`);
 * - `NETWORK_ERROR`: no response (DNS, refused connection, reset, TLS...);
 * - `TIMEOUT`: an attempt exceeded `timeoutMs`;
 * - `REDIRECT`: the server answered with a redirect, which the client never follows;
 * - `INVALID_RESPONSE`: a 2xx response with the wrong content type, malformed JSON or a wrong shape;
 * - `PAGINATION_ERROR`: the server's cursors would make iteration loop forever.
 */
export type SvcApiErrorCode =
  'HTTP_ERROR' | 'NETWORK_ERROR' | 'TIMEOUT' | 'REDIRECT' | 'INVALID_RESPONSE' | 'PAGINATION_ERROR';

/** Fields of {@link SvcApiError}, as its constructor takes them. */
export interface SvcApiErrorInit {
  code: SvcApiErrorCode;
  /** HTTP status, or 0 when no response arrived. */
  status: number;
  method?: string;
  /** Path and query after the base URL. */
  path?: string;
  requestId?: string | undefined;
  detail?: string | undefined;
  scimType?: string | undefined;
  field?: string | undefined;
  attempts?: number;
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * A failed API call. `status` is the HTTP status (401, 403, 404, 429, 5xx...) or 0 when no response
 * arrived; `code` tells the classes apart. The token is never part of it: the client redacts it from
 * every string it copies in, including the server's own error text and a network error's cause.
 */
export class SvcApiError extends Error {
  /** What went wrong; see {@link SvcApiErrorCode}. */
  readonly code: SvcApiErrorCode;
  /** HTTP status, or 0 when no response arrived (network error, timeout). */
  readonly status: number;
  /** HTTP method of the failed request. */
  readonly method: string | undefined;
  /** Path and query of the failed request, after the base URL. */
  readonly path: string | undefined;
  /** The server's request id (`x-request-id` and similar headers), when it sent one. */
  readonly requestId: string | undefined;
  /** The server's own explanation (SCIM `detail`, or `message`/`detail`/`error` of a JSON body). */
  readonly detail: string | undefined;
  /** SCIM `scimType` of a SCIM error body (RFC 7644 3.12). */
  readonly scimType: string | undefined;
  /** For `INVALID_RESPONSE`: the path of the offending field, e.g. `items[3].email`. */
  readonly field: string | undefined;
  /** Attempts made, retries included. */
  readonly attempts: number;
  /**
   * The delay the server asked for with `Retry-After` on the last response (429, 502, 503, 504), in
   * milliseconds; undefined when it sent none or an unreadable one. When it is above
   * `retryMaxDelayMs`, the client gave up at once instead of retrying early.
   */
  readonly retryAfterMs: number | undefined;

  /**
   * @param message - Human-readable explanation; must already be free of credentials.
   * @param init - Structured fields.
   */
  constructor(message: string, init: SvcApiErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'SvcApiError';
    this.code = init.code;
    this.status = init.status;
    this.method = init.method;
    this.path = init.path;
    this.requestId = init.requestId;
    this.detail = init.detail;
    this.scimType = init.scimType;
    this.field = init.field;
    this.attempts = init.attempts ?? 1;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** A plain summary for logs; `JSON.stringify(error)` uses it. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      code: this.code,
      status: this.status,
      message: this.message,
      method: this.method,
      path: this.path,
      requestId: this.requestId,
      detail: this.detail,
      scimType: this.scimType,
      field: this.field,
      attempts: this.attempts,
      retryAfterMs: this.retryAfterMs,
    };
  }
}

/** Usual meaning of an HTTP status, as docs/api.md, "Errors", gives it. */
export function statusMeaning(status: number, scim: boolean): string {
  switch (status) {
    case 400:
      return 'the server rejected the request as malformed';
    case 401:
      return scim
        ? 'the SCIM token is missing, malformed or expired (check the token and the auth scheme)'
        : 'the credential is missing, malformed or expired';
    case 403:
      return scim
        ? // The usual cause in practice: the account's REST API key sent where the SCIM token belongs.
          'the credential is not accepted for SCIM: most likely a REST API key sent to the SCIM endpoint, which needs the SCIM token'
        : 'the key is not authorized for this deployment (a key scoped to other deployments), or the caller is not an admin';
    case 404:
      return scim
        ? 'no SCIM endpoint here (check the base URL)'
        : 'the notification is not in this deployment (or the base URL is wrong)';
    case 429:
      return 'rate limited: too many requests';
    case 500:
      return 'internal server error';
    case 502:
      return 'bad gateway';
    case 503:
      return 'service unavailable';
    case 504:
      return 'gateway timeout';
    default:
      return status >= 500
        ? 'server error'
        : status >= 300 && status < 400
          ? 'redirect (not followed)'
          : 'request failed';
  }
}
