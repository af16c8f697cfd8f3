/**
 * A listing command from flags to output. JSON, NDJSON and CSV are written a page at a time, as the pages
 * arrive, so memory stays flat whatever the listing's length; each write is awaited, so a full disk or a
 * closed pipe stops the requests. A failure part-way leaves what was written, and the exit code says that
 * the listing is incomplete (a JSON array is then left open, so that no parser takes a part for the
 * whole). The table needs every row to size its columns: it stops once the responses pass --max-bytes.
 */
import { SvcApiError } from '../index.js';
import type { ListingWarning, PageProgress, ScimAuthScheme, SvcClient } from '../index.js';
import { PageItems } from '../items.js';
import { UsageError, choiceFlag, integerFlag } from './args.js';
import { baseUrlName, makeClient } from './client.js';
import type { RunContext } from './command.js';
import { EXIT, ListingTooLarge, asUsageError, shellWord, withBaseUrl, withResume } from './errors.js';
import type { Resume } from './errors.js';
import { FORMATS, SLICE, jsonText, slices, streamed } from './format.js';
import { collector } from './memory.js';
import type { ListingFormats } from './format.js';
import { progress } from './progress.js';

/** What the table format reads at most, in response bytes, unless --max-bytes says otherwise: 64 MiB. */
export const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export interface ListingSpec<T> extends ListingFormats<T> {
  command: string;
  /** What is counted, plural, for progress and the summary. */
  noun: string;
  /** The client's parameter names as flags, for messages about them. */
  names: Readonly<Record<string, string>>;
  scimAuthScheme?: ScimAuthScheme | undefined;
  /**
   * How a stopped listing resumes: its flag, the position this run started from (undefined: the beginning), and the
   * position after a page, from that page's progress (undefined: the page gives none).
   */
  resume: {
    flag: Resume['flag'];
    from: string | undefined;
    after(p: PageProgress): string | undefined;
  };
  /** Starts the iteration; may throw the client's TypeError/RangeError for a bad flag value. */
  iterate(
    client: SvcClient,
    onPage: (p: PageProgress) => void,
    signal: AbortSignal,
    onWarning: (w: ListingWarning) => void,
  ): AsyncGenerator<T, void, undefined>;
}

/** Rejects with the signal's reason as soon as it aborts: a write that stdout holds up does not hold up Ctrl-C. */
function unlessAborted(write: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  let stop: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    stop = () => reject(signal.reason as Error);
    signal.addEventListener('abort', stop, { once: true });
  });
  return Promise.race([write, aborted]).finally(() => signal.removeEventListener('abort', stop!));
}

export async function runListing<T>(ctx: RunContext, spec: ListingSpec<T>): Promise<number> {
  const format = choiceFlag(ctx.flags, 'format', FORMATS, 'table', spec.command)!;
  const maxBytes = integerFlag(ctx.flags, 'max-bytes', false, spec.command, 'a positive number of bytes');
  if (maxBytes === 0) throw new UsageError('--max-bytes must be a positive number of bytes', spec.command);
  if (maxBytes !== undefined && format !== 'table') {
    throw new UsageError(
      `--max-bytes applies to --format table only: ${format} is written as it arrives`,
      spec.command,
    );
  }
  const show = progress(ctx.io, ctx.flags.quiet === true, spec.noun);
  const client = makeClient(ctx, spec.command, {
    onRetry: show.retry,
    ...(spec.scimAuthScheme ? { scimAuthScheme: spec.scimAuthScheme } : {}),
  });
  let received = 0;
  const collect = collector();
  // The position after the page on its way to stdout, and after the last page written in full.
  let arriving: string | undefined;
  let written = spec.resume.from;
  const onPage = (p: PageProgress) => {
    received += p.bytes;
    collect.page(p.bytes);
    show.page(p);
    arriving = spec.resume.after(p);
  };
  const onWarning = (w: ListingWarning) => show.warning(w.message);
  let iterator: AsyncGenerator<T, void, undefined>;
  try {
    iterator = spec.iterate(client, onPage, ctx.signal, onWarning);
  } catch (err) {
    throw asUsageError(err, spec.names, spec.command);
  }
  let count = 0;
  try {
    if (format === 'table') {
      const limit = maxBytes ?? DEFAULT_MAX_BYTES;
      const items: T[] = [];
      for await (const page of PageItems.pages(iterator)) {
        // Leaving the loop ends the iteration: no further request.
        if (received > limit) throw new ListingTooLarge(limit, spec.command);
        for (const item of page) items.push(item);
      }
      count = items.length;
      await unlessAborted(ctx.io.out(spec.table(items)), ctx.signal);
    } else {
      const out = streamed(format, spec);
      const put = (piece: string) => unlessAborted(ctx.io.out(format === 'csv' ? piece : jsonText(piece)), ctx.signal);
      for await (const page of PageItems.pages(iterator)) {
        count += page.length;
        const text = out.page(page);
        // A page of 200 recipients is one piece: written as it is, without a generator or a call of its own.
        if (text.length <= SLICE) {
          if (text) await put(text);
        } else {
          for (const piece of slices(text)) await put(piece);
        }
        if (arriving !== undefined) written = arriving;
      }
      const end = out.end();
      if (end) await put(end);
    }
  } catch (err) {
    // A listing that stopped where a rerun may go on says from where: not after a pagination error, which a rerun
    // meets again, nor after a failed write, which may have left part of a page.
    const resumable = ctx.signal.aborted || (err instanceof SvcApiError && err.code !== 'PAGINATION_ERROR');
    if (resumable && written !== undefined) withResume(err, { flag: spec.resume.flag, value: shellWord(written) });
    // Reported with the base URL named as the user gave it: the hint then says which setting to change.
    throw withBaseUrl(err, { name: baseUrlName(ctx.flags), value: client.baseUrl });
  } finally {
    collect.end();
  }
  show.done(count);
  return EXIT.ok;
}
