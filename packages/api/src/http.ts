/**
 * One GET with timeout, abort, bounded retries and response checks. Holds no credential itself: the
 * caller passes the Authorization value per request and a redaction function built by the client.
 */
import { SCIM_ERROR, UNSAFE_CHARS } from '@svc-embed/protocol';
import { SvcApiError, statusMeaning } from './errors.js';
import type { SvcApiErrorInit } from './errors.js';
import { ELLIPSIS, replaceUnsafe } from './text.js';
import type { RetryInfo } from './types.js';

/** Settings a {@link Transport} is built with. */
export interface TransportConfig {
  baseUrl: string;
  fetch: typeof globalThis.fetch;
  timeoutMs: number;
  maxRetries: number;
  retryBaseDelayMs: number;
  retryMaxDelayMs: number;
  onRetry: ((info: RetryInfo) => void) | undefined;
  /** Removes the credential from any text copied into an error. */
  redact: (text: string) => string;
  /** The credential's length: how much of a cut body's end may hold a part of it. */
  tokenLength: number;
  /**
   * Whether an AbortController may serve several attempts ({@link Lease}): only with the runtime's own fetch, which
   * ignores an abort once its request is done. A fetch of the caller's own may keep listening to a signal after
   * its request, and would then hear the aborts of the requests after it.
   */
  reuseSignals: boolean;
}

/** The global fetch as this module found it: the runtime's own, unless something replaced it before. */
export const LOADED_FETCH: unknown = globalThis.fetch;

/** One request as the API layer describes it. */
export interface RequestSpec {
  /** Path and query after the base URL, starting with `/`. */
  path: string;
  authorization: string;
  accept: string;
  scim: boolean;
  signal: AbortSignal | undefined;
  /** A sharper 404 explanation than the generic one. */
  notFound?: string;
}

/** A successful response's parsed JSON body. */
export interface JsonResult {
  body: unknown;
  /** The body's size in bytes, as received. */
  bytes: number;
  status: number;
  requestId: string | undefined;
}

const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/**
 * Network failures that no retry can mend, by the code (or message) of their cause: Node's certificate checks
 * (OpenSSL's verify codes and ERR_TLS_CERT_ALTNAME_INVALID), fetch's blocked ports, and a proxy library that is not
 * there.
 */
const UNFIXABLE =
  /^(?:(?:DEPTH_ZERO_SELF_SIGNED|SELF_SIGNED)_CERT(?:_IN_CHAIN)?|UNABLE_TO_(?:VERIFY_LEAF_SIGNATURE|GET_ISSUER_CERT(?:_LOCALLY)?|GET_CRL|DECRYPT_CERT_SIGNATURE|DECODE_ISSUER_PUBLIC_KEY)|CERT_[A-Z_]+|INVALID_CA|PATH_LENGTH_EXCEEDED|INVALID_PURPOSE|HOSTNAME_MISMATCH|ERR_TLS_CERT_ALTNAME_INVALID|ERR_SVC_PROXY_UNAVAILABLE|bad port)$/;
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id', 'x-correlation-id', 'x-amzn-requestid', 'x-amz-request-id'];
/** Error bodies are read only this far, then the rest is cancelled: they are explanations, not data. */
const MAX_ERROR_BODY = 64 * 1024;
/** A successful response larger than this is refused (INVALID_RESPONSE) instead of filling the memory. */
export const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;
/** Levels of a network error's cause chain copied (scrubbed) into an error's `cause`. */
const MAX_CAUSE_DEPTH = 3;
const MAX_DETAIL = 300;

/**
 * Single-line, bounded, credential-free text for messages. Redaction comes on the text as received, and again
 * after it has been made one safe line, before the cut: the neutraliser can turn a token with a BEL or a line break
 * slipped into it into one with a space, which the second pass still recognises.
 */
function clean(text: string, redact: (t: string) => string, max = MAX_DETAIL): string {
  const flat = redact(replaceUnsafe(redact(text), ' ').replace(/\s+/g, ' ').trim());
  return flat.length > max ? `${flat.slice(0, max - 1)}${ELLIPSIS}` : flat;
}

function requestIdOf(headers: Headers, redact: (t: string) => string): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const v = headers.get(name);
    // Only a plausible id is copied: it ends up in messages and terminals. A server that echoes
    // the credential as its request id gets no request id at all.
    if (v && /^[\x21-\x7e]{1,128}$/.test(v) && redact(v) === v) return v;
  }
  return undefined;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
/** The three HTTP-date forms of RFC 9110 5.6.7: IMF-fixdate, the obsolete RFC 850 form, and asctime's. */
const IMF_FIXDATE = /^[A-Za-z]{3}, (\d{2}) ([A-Za-z]{3}) (\d{4}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const RFC850_DATE = /^[A-Za-z]{6,9}, (\d{2})-([A-Za-z]{3})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) GMT$/;
const ASCTIME_DATE = /^[A-Za-z]{3} ([A-Za-z]{3}) ([ \d]\d) (\d{2}):(\d{2}):(\d{2}) (\d{4})$/;

/** Milliseconds since the epoch of an HTTP date, or undefined when `v` is none of its forms or no real date. */
export function parseHttpDate(v: string, now = Date.now()): number | undefined {
  let parts: [day: string, month: string, year: number, h: string, m: string, s: string] | undefined;
  let match = IMF_FIXDATE.exec(v);
  if (match) parts = [match[1], match[2], Number(match[3]), match[4], match[5], match[6]];
  else if ((match = RFC850_DATE.exec(v))) {
    // A two-digit year more than 50 years ahead is the latest past year that ends in those digits (RFC 9110 5.6.7).
    const current = new Date(now).getUTCFullYear();
    let year = current - (current % 100) + Number(match[3]);
    if (year > current + 50) year -= 100;
    parts = [match[1], match[2], year, match[4], match[5], match[6]];
  } else if ((match = ASCTIME_DATE.exec(v))) {
    parts = [match[2].trim(), match[1], Number(match[6]), match[3], match[4], match[5]];
  }
  if (!parts) return undefined;
  const [day, monthName, year, h, m, s] = parts;
  const month = MONTHS.indexOf(monthName.toLowerCase());
  const at = Date.UTC(year, month, Number(day), Number(h), Number(m), Number(s));
  // Date.UTC rolls 31 Feb over into March: such a date is refused, not moved.
  const back = new Date(at);
  if (month < 0 || Number.isNaN(at) || back.getUTCDate() !== Number(day) || back.getUTCHours() !== Number(h))
    return undefined;
  if (Number(m) > 59 || Number(s) > 60) return undefined;
  return at;
}

/**
 * `Retry-After` as milliseconds (delay-seconds of any length, or an HTTP date in any of its three forms), or
 * undefined when absent or unreadable. Delays beyond what a number holds exactly are Number.MAX_SAFE_INTEGER: far
 * over any cap, so the client gives up at once.
 */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, Number.MAX_SAFE_INTEGER);
  const at = parseHttpDate(v, now);
  return at === undefined ? undefined : Math.max(0, at - now);
}

/** A media type as sent (redacted before anything else), and its lowercase form for comparisons. */
interface Media {
  readonly shown: string;
  readonly type: string;
}

function isJsonType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** What the attempt races its request and each read of the body with: see {@link Lease.race}. */
interface AbortRace {
  race<T>(promise: Promise<T>): Promise<T>;
}

/**
 * An AbortController that one attempt at a time holds, with one listener of its own for good. With the runtime's own
 * fetch ({@link TransportConfig.reuseSignals}), an attempt that ends without an abort hands it to the next, up to
 * {@link MAX_USES} attempts: each AbortSignal of Node 20 has a map (hidden class) of its own, and fetch leaves a
 * listener on the signal until the request it made is collected, so a listener added and removed there per attempt
 * walked past those of the requests before. The cap keeps them few. The caller's signal gets a listener for the
 * attempt only.
 */
class Lease implements AbortRace {
  readonly ctrl = new AbortController();
  #uses = 0;
  /** Rejects the running attempt's race; unset between attempts. */
  #reject: ((reason: unknown) => void) | undefined;
  #aborted: Promise<never> | undefined;
  #outer: AbortSignal | undefined;
  readonly #onOuterAbort = () => this.ctrl.abort(this.#outer!.reason);

  constructor() {
    this.ctrl.signal.addEventListener('abort', () => this.#reject?.(this.ctrl.signal.reason), { once: true });
  }

  /** Starts an attempt that the caller's `outer` signal aborts too. */
  start(outer: AbortSignal | undefined): void {
    this.#uses++;
    this.#outer = outer;
    outer?.addEventListener('abort', this.#onOuterAbort, { once: true });
    this.#aborted = new Promise<never>((_, reject) => {
      this.#reject = reject;
    });
    this.#aborted.catch(() => {});
  }

  /** `promise`, or the abort's reason as soon as the controller aborts, even if `promise` never settles. */
  race<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.#aborted!]);
  }

  /** Ends the attempt; whether the lease may serve another. */
  end(): boolean {
    this.#outer?.removeEventListener('abort', this.#onOuterAbort);
    this.#outer = undefined;
    this.#reject = undefined;
    this.#aborted = undefined;
    return !this.ctrl.signal.aborted && this.#uses < MAX_USES;
  }
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function discard(res: Response): void {
  // Frees the connection; a failure here changes nothing for the caller.
  res.body?.cancel().catch(() => {});
}

/** The length of `bytes` without the start of a UTF-8 character at their end that the next bytes would complete. */
function completeLength(bytes: Uint8Array): number {
  const n = bytes.length;
  // Back over the continuation bytes (10xxxxxx) at the end, three at most, to the byte that may begin a character.
  let at = n - 1;
  while (at >= 0 && at >= n - 3 && (bytes[at] & 0xc0) === 0x80) at--;
  if (at < 0) return n;
  const lead = bytes[at];
  // What a lead byte announces (C2-DF two bytes, E0-EF three, F0-F4 four); anything else is complete already.
  const length =
    lead >= 0xc2 && lead <= 0xdf ? 2 : lead >= 0xe0 && lead <= 0xef ? 3 : lead >= 0xf0 && lead <= 0xf4 ? 4 : 1;
  return n - at < length ? at : n;
}

/**
 * UTF-8 text of a body that comes in chunks: what one TextDecoder gives with `{ stream: true }` (a BOM at the start
 * dropped, bad sequences as U+FFFD), but each chunk decoded at once, on the decoder's fast path, which Node leaves
 * for good at a decoder's first `stream` call: the slow path cost about 15 microseconds a page of 200 recipients. A
 * chunk is decoded up to its last whole character; the bytes of a character it splits (three at most) go before the
 * next chunk. Decoding starts afresh at a byte that begins a character, so the pieces decode as the whole would.
 */
class ChunkDecoder {
  /** Drops a BOM at the start of the body... */
  readonly #first = new TextDecoder();
  /** ...and only there. */
  readonly #rest = new TextDecoder('utf-8', { ignoreBOM: true });
  #started = false;
  #carry: Uint8Array | undefined;

  /** The text of `chunk`'s whole characters, and of those it completes. */
  decode(chunk: Uint8Array): string {
    let bytes = chunk;
    if (this.#carry) {
      bytes = new Uint8Array(this.#carry.length + chunk.length);
      bytes.set(this.#carry);
      bytes.set(chunk, this.#carry.length);
      this.#carry = undefined;
    }
    const whole = completeLength(bytes);
    if (whole < bytes.length) this.#carry = bytes.slice(whole);
    return this.#text(whole < bytes.length ? bytes.subarray(0, whole) : bytes);
  }

  /** At the end of the body: a character left unfinished is U+FFFD. */
  end(): string {
    const carry = this.#carry;
    this.#carry = undefined;
    return carry ? this.#text(carry) : '';
  }

  #text(bytes: Uint8Array): string {
    if (bytes.length === 0) return '';
    const decoder = this.#started ? this.#rest : this.#first;
    this.#started = true;
    return decoder.decode(bytes);
  }
}

/**
 * Reads a body as a stream, at most `cap` bytes: past it, reading stops, the rest is cancelled and
 * `truncated` is true. Rejects with the attempt's abort reason (the stream is cancelled), even while a read is
 * pending that would never settle: each read is raced with `abort`, the attempt's one listener.
 */
async function readCapped(
  res: Response,
  cap: number,
  abort: AbortRace,
): Promise<{ text: string; truncated: boolean; bytes: number }> {
  const body = res.body;
  if (!body) return { text: '', truncated: false, bytes: 0 };
  const reader = body.getReader();
  // Decoded chunk by chunk (a character split between chunks is kept for the next): no copy of the whole body
  // into one buffer. Large buffers freed page after page make the process's memory grow (the allocator keeps
  // them); strings live in the JavaScript heap, which gives its space back.
  const decoder = new ChunkDecoder();
  let text = '';
  let size = 0;
  let truncated = false;
  try {
    for (;;) {
      const { done, value } = await abort.race(reader.read());
      if (done) break;
      if (!(value instanceof Uint8Array))
        throw new TypeError('the response body stream gave a chunk that is not bytes');
      const room = cap - size;
      if (value.byteLength > room) {
        text += decoder.decode(value.subarray(0, room));
        size = cap;
        truncated = true;
        break;
      }
      text += decoder.decode(value);
      size += value.byteLength;
    }
  } catch (err) {
    reader.cancel().catch(() => {});
    throw err;
  }
  if (truncated) reader.cancel().catch(() => {});
  return { text: text + decoder.end(), truncated, bytes: size };
}

/** How many attempts one {@link Lease} serves at most, and how many idle ones a transport keeps. */
const MAX_USES = 16;
const MAX_SPARE = 4;

/** A retried failure is always an HTTP_ERROR (429, 502, 503, 504), a NETWORK_ERROR or a TIMEOUT. */
type Attempt = { done: JsonResult } | { retry: SvcApiError; delayMs: number | undefined };

/** A delay in seconds for messages: whole seconds for a server's delay, up to milliseconds for a limit. */
function seconds(ms: number, round: (n: number) => number = (n) => n): string {
  return String(round(Math.round(ms) / 1000));
}

/** Where a wrong base URL usually shows: the one hint for a 404 or a 2xx that is not JSON. */
const CHECK_BASE_URL = 'check the base URL first (it usually ends in /api)';

/** Performs GET requests for the client. Not part of the public API. */
export class Transport {
  readonly #c: TransportConfig;
  readonly #spare: Lease[] = [];
  /** The last content type read, and its media type: every page of a listing has the same one. */
  #lastType: { sent: string; media: Media } | undefined;

  constructor(config: TransportConfig) {
    this.#c = config;
  }

  /** The media type of a response, parsed once for each new content type. */
  #media(headers: Headers): Media {
    const sent = headers.get('content-type') ?? '';
    if (this.#lastType?.sent !== sent) {
      const shown = this.#c.redact(sent).split(';')[0].trim();
      this.#lastType = { sent, media: { shown, type: shown.toLowerCase() } };
    }
    return this.#lastType.media;
  }

  /** The normalised base URL (no credential). */
  get baseUrl(): string {
    return this.#c.baseUrl;
  }

  /** GETs `spec.path` and returns its JSON body, retrying what may be retried. */
  async getJson(spec: RequestSpec): Promise<JsonResult> {
    const { signal } = spec;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw signal.reason;
      const outcome = await this.#attempt(spec, attempt);
      if ('done' in outcome) return outcome.done;
      const retries = attempt - 1;
      if (retries >= this.#c.maxRetries) throw outcome.retry;
      const delayMs = this.#delay(retries + 1, outcome.delayMs);
      this.#c.onRetry?.({
        retry: retries + 1,
        delayMs,
        status: outcome.retry.status,
        code: outcome.retry.code as RetryInfo['code'],
        // The query may hold a server-supplied cursor, which may echo the token.
        path: this.#c.redact(spec.path),
      });
      await sleep(delayMs, signal);
    }
  }

  /**
   * Backoff: the server's Retry-After when given (never above the cap: #attempt gives up on a longer
   * one), else exponential with jitter, capped.
   */
  #delay(retry: number, retryAfterMs: number | undefined): number {
    const cap = this.#c.retryMaxDelayMs;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, cap);
    const exp = this.#c.retryBaseDelayMs * 2 ** (retry - 1);
    return Math.min(Math.round(exp * (0.5 + Math.random() * 0.5)), cap);
  }

  async #attempt(spec: RequestSpec, attempt: number): Promise<Attempt> {
    const { redact } = this.#c;
    // Built only for a failure. The query may hold a server-supplied cursor: redacted like any other server text.
    const fail = (text: string, init: Partial<SvcApiErrorInit>) =>
      new SvcApiError(
        `GET ${spec.path.split('?')[0]} failed: ${text}${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`,
        { code: 'HTTP_ERROR', status: 0, method: 'GET', path: redact(spec.path), attempts: attempt, ...init },
      );

    // A controller of its own for the attempt joins the caller's signal and the timeout.
    const outer = spec.signal;
    const abort = (this.#c.reuseSignals ? this.#spare.pop() : undefined) ?? new Lease();
    abort.start(outer);
    const ctrl = abort.ctrl;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctrl.abort(new Error('timeout'));
    }, this.#c.timeoutMs);

    // Turns a rejection from fetch or the body read into the right error; the caller's abort wins.
    const noResponse = (err: unknown): Attempt => {
      if (outer?.aborted) throw outer.reason;
      if (timedOut) {
        return {
          retry: fail(`no complete response within ${this.#c.timeoutMs} ms`, { code: 'TIMEOUT' }),
          delayMs: undefined,
        };
      }
      const cause = prop(err, 'cause');
      const why = describe(prop(cause, 'code') ?? prop(cause, 'message') ?? prop(err, 'message') ?? err);
      if (/redirect/i.test(why)) {
        throw fail(
          'the server answered with a redirect, which is never followed with credentials (check the base URL)',
          {
            code: 'REDIRECT',
            cause: safeCause(err, redact),
          },
        );
      }
      const error = fail(`network error (${clean(why, redact, 120)})`, {
        code: 'NETWORK_ERROR',
        cause: safeCause(err, redact),
      });
      // A certificate, a host name that the certificate does not name, a port that fetch refuses: the same again.
      if (unfixable(err)) throw error;
      return { retry: error, delayMs: undefined };
    };

    try {
      const fetchImpl = this.#c.fetch;
      let res: Response;
      try {
        res = await abort.race(
          fetchImpl(this.#c.baseUrl + spec.path, {
            method: 'GET',
            headers: { authorization: spec.authorization, accept: spec.accept },
            redirect: 'error',
            signal: ctrl.signal,
          }),
        );
      } catch (err) {
        return noResponse(err);
      }

      const status = res.status;
      const requestId = requestIdOf(res.headers, redact);
      const rid = requestId ? ` [request id ${requestId}]` : '';

      if (status >= 200 && status < 300) {
        const { shown, type } = this.#media(res.headers);
        if (!isJsonType(type)) {
          discard(res);
          throw fail(
            `expected a JSON response but got content type "${clean(shown || 'none', redact, 80)}"${rid}; ${CHECK_BASE_URL}`,
            {
              code: 'INVALID_RESPONSE',
              status,
              requestId,
              field: 'content-type',
            },
          );
        }
        let read: { text: string; truncated: boolean; bytes: number };
        try {
          read = await readCapped(res, MAX_RESPONSE_BYTES, abort);
        } catch (err) {
          return noResponse(err);
        }
        if (read.truncated) {
          throw fail(`the response body exceeds the ${MAX_RESPONSE_BYTES / (1024 * 1024)} MiB cap${rid}`, {
            code: 'INVALID_RESPONSE',
            status,
            requestId,
            field: 'body',
          });
        }
        try {
          return { done: { body: JSON.parse(read.text) as unknown, bytes: read.bytes, status, requestId } };
        } catch {
          throw fail(`the response body is not valid JSON${rid}`, {
            code: 'INVALID_RESPONSE',
            status,
            requestId,
            field: 'body',
          });
        }
      }

      if (status >= 300 && status < 400) {
        discard(res);
        throw fail(`HTTP ${status}, a redirect, which is never followed with credentials (check the base URL)${rid}`, {
          code: 'REDIRECT',
          status,
          requestId,
        });
      }

      if (RETRY_STATUSES.has(status)) {
        discard(res);
        const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
        const what = `HTTP ${status}, ${statusMeaning(status, spec.scim)}${rid}`;
        const cap = this.#c.retryMaxDelayMs;
        // Waiting the cap and retrying early would only meet the same answer again, and again.
        if (retryAfterMs !== undefined && retryAfterMs > cap) {
          throw fail(
            `${what}; the server asks to retry in ${seconds(retryAfterMs, Math.ceil)} s, longer than the ` +
              `client waits (${seconds(cap)} s at most), so it gives up now`,
            { status, requestId, retryAfterMs },
          );
        }
        return { retry: fail(what, { status, requestId, retryAfterMs }), delayMs: retryAfterMs };
      }

      const extra = await this.#errorDetail(res, abort, outer);
      // A 404 that is not JSON comes from a web server or a proxy, not from the API: most often the
      // base URL lacks its /api part, and the API's own explanation would mislead.
      const notJson = status === 404 && !isJsonType(this.#media(res.headers).type);
      const meaning = notJson
        ? `a non-JSON answer, so probably not the API: ${CHECK_BASE_URL}`
        : status === 404 && spec.notFound
          ? spec.notFound
          : statusMeaning(status, spec.scim);
      const said = extra.detail ? `. Server says: ${extra.detail}` : '';
      throw fail(`HTTP ${status}, ${meaning}${rid}${said}`, { status, requestId, ...extra });
    } finally {
      clearTimeout(timer);
      if (abort.end() && this.#c.reuseSignals && this.#spare.length < MAX_SPARE) this.#spare.push(abort);
    }
  }

  /**
   * Best effort: the server's explanation from a SCIM error or a JSON/plain-text body, of which at
   * most 64 KiB are read. The caller's abort while reading still wins: it rejects with its reason.
   */
  async #errorDetail(
    res: Response,
    abort: AbortRace,
    outer: AbortSignal | undefined,
  ): Promise<{ detail?: string; scimType?: string }> {
    const { redact } = this.#c;
    const { type } = this.#media(res.headers);
    if (!isJsonType(type) && type !== 'text/plain') {
      discard(res);
      return {};
    }
    let text: string;
    try {
      const read = await readCapped(res, MAX_ERROR_BODY, abort);
      // A cut may split a token, which redaction would then miss: drop what may hold a part of one, the trailing
      // run of token characters and of what a server may slip between them.
      text = read.truncated ? dropTrailingWord(read.text, this.#c.tokenLength) : read.text;
    } catch {
      if (outer?.aborted) throw outer.reason;
      return {};
    }
    if (type === 'text/plain') return text.trim() ? { detail: clean(text, redact) } : {};
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return {};
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
    const o = body as Record<string, unknown>;
    const str = (k: string) =>
      Object.hasOwn(o, k) && typeof o[k] === 'string' && o[k] !== '' ? clean(o[k], redact) : undefined;
    const out: { detail?: string; scimType?: string } = {};
    if (Array.isArray(o.schemas) && o.schemas.includes(SCIM_ERROR)) {
      const detail = str('detail');
      const scimType = str('scimType');
      if (detail) out.detail = detail;
      if (scimType) out.scimType = scimType;
      return out;
    }
    // Common shapes: { message }, { detail }, OAuth's { error, error_description }, { error: { message } }.
    const nested =
      o.error !== null && typeof o.error === 'object' && !Array.isArray(o.error)
        ? (o.error as Record<string, unknown>).message
        : undefined;
    const detail =
      str('message') ??
      str('detail') ??
      str('error_description') ??
      str('error') ??
      (typeof nested === 'string' && nested !== '' ? clean(nested, redact) : undefined);
    if (detail) out.detail = detail;
    return out;
  }
}

/** Whether a rejection of fetch, its cause or theirs, has a code (or a message) that no retry can mend. */
function unfixable(err: unknown): boolean {
  for (let e = err, depth = 0; e !== undefined && depth < MAX_CAUSE_DEPTH; e = prop(e, 'cause'), depth++) {
    const code = prop(e, 'code');
    const message = prop(e, 'message');
    if ((typeof code === 'string' && UNFIXABLE.test(code)) || (typeof message === 'string' && UNFIXABLE.test(message)))
      return true;
  }
  return false;
}

/** Reads a property of any value; a throwing getter or proxy gives undefined. */
function prop(value: unknown, key: string): unknown {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return undefined;
  try {
    return (value as Record<string, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** Text of a thrown value's message, code or the value itself, without calling its own methods. */
function describe(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === undefined || value === null) return String(value);
  return typeof value === 'symbol' ? 'a symbol' : 'a value without a message';
}

/**
 * `text` without the end that could hold the start of a token: back over token characters and what a server may
 * slip between them (whitespace, unsafe characters, ?), up to `tokenLength` token characters. A part of the
 * token cut at the end has fewer than that, so it is gone; ordinary text before it stays.
 */
function dropTrailingWord(text: string, tokenLength: number): string {
  let end = text.length;
  let tokenChars = 0;
  // Character by character: a pattern anchored at the end would retry from every position of a long run.
  while (end > 0 && TOKEN_OR_FILLER.test(text[end - 1])) {
    if (!FILLER_CHAR.test(text[end - 1]) && ++tokenChars > tokenLength) break;
    end--;
  }
  return text.slice(0, end);
}

const TOKEN_OR_FILLER = new RegExp(`[A-Za-z0-9\\-._~+/=\\s?]|${UNSAFE_CHARS.source}`, 'u');
const FILLER_CHAR = new RegExp(`[\\s?]|${UNSAFE_CHARS.source}`, 'u');

/**
 * A fresh, minimal copy of a network error for `cause`: name, message and code only, each scrubbed,
 * and the same for its own cause down to a few levels. The original is never kept: any property of
 * it (a request, its headers, options, nested errors) could hold the token, and `util.inspect(error)`
 * prints causes in full.
 */
function safeCause(err: unknown, redact: (t: string) => string, depth = 1): Error {
  const message = prop(err, 'message');
  const copy = new Error(clean(typeof message === 'string' ? message : describe(err), redact));
  const name = prop(err, 'name');
  const safeName =
    typeof name === 'string' && /^[A-Za-z_$][\w$.]{0,63}$/.test(name) && redact(name) === name ? name : 'Error';
  // Not enumerable, as on Error.prototype: util.inspect shows it in the header only.
  if (safeName !== 'Error')
    Object.defineProperty(copy, 'name', { value: safeName, enumerable: false, writable: true, configurable: true });
  copy.stack = `${copy.name}: ${copy.message}`;
  const code = prop(err, 'code');
  if (typeof code === 'string' || (typeof code === 'number' && Number.isFinite(code))) {
    Object.defineProperty(copy, 'code', {
      value: typeof code === 'string' ? clean(code, redact, 80) : code,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  const cause = prop(err, 'cause');
  if (cause !== undefined && depth < MAX_CAUSE_DEPTH) {
    Object.defineProperty(copy, 'cause', {
      value: safeCause(cause, redact, depth + 1),
      enumerable: false,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}
