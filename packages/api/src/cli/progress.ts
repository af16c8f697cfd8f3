/**
 * What a listing says on stderr while it runs. On a live terminal: the page count, redrawn in place.
 * Elsewhere (a file, a pipe, a CI log, TERM=dumb): no page lines, only retry notices and the final
 * count. With --quiet: nothing. No colour and no escape sequence is ever written.
 */
import type { PageProgress, RetryInfo } from '../index.js';
import type { Io } from './io.js';

/** Its functions are passed around as callbacks (the client's onPage and onRetry): they use no `this`. */
export interface Progress {
  page(this: void, p: PageProgress): void;
  retry(this: void, r: RetryInfo): void;
  /** A listing that ended where the server's numbers say it should not have: printed even with --quiet. */
  warning(this: void, message: string): void;
  done(this: void, count: number): void;
}

const RETRY_CAUSE: Record<RetryInfo['code'], (r: RetryInfo) => string> = {
  HTTP_ERROR: (r) => `HTTP ${r.status}`,
  NETWORK_ERROR: () => 'network error',
  TIMEOUT: () => 'timeout',
};

/** @param noun - What is counted, plural: `recipients`, `users`. */
export function progress(io: Io, quiet: boolean, noun: string): Progress {
  return {
    page(p) {
      // A single page needs no progress: the summary follows at once.
      if (quiet || p.page < 2) return;
      const of = p.total !== undefined ? ` of ${p.total}` : '';
      io.status(`svc-embed: page ${p.page}, ${p.received}${of} ${noun} so far`);
    },
    retry(r) {
      if (quiet) return;
      const why = (RETRY_CAUSE[r.code] ?? RETRY_CAUSE.NETWORK_ERROR)(r);
      io.err(`svc-embed: ${why} on ${r.path.split('?')[0]}, retry ${r.retry} in ${(r.delayMs / 1000).toFixed(1)} s\n`);
    },
    warning(message) {
      io.err(`svc-embed: warning: ${message}\n`);
    },
    done(count) {
      if (quiet) return;
      io.err(`svc-embed: ${count} ${noun}\n`);
    },
  };
}
