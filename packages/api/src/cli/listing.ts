/**
 * A listing command from flags to output. JSON, NDJSON and CSV are written a page at a time, as the pages
 * arrive, so memory stays flat whatever the listing's length; each write is awaited, so a full disk or a
 * closed pipe stops the requests. A failure part-way leaves what was written, and the exit code says that
 * the listing is incomplete (a JSON array is then left open, so that no parser takes a part for the
 * whole). The table needs every row to size its columns: it stops once the responses pass --max-bytes.
 */
import type { PageProgress, ScimAuthScheme, SvcClient } from '../index.js';
import { PageItems } from '../items.js';
import { UsageError, choiceFlag, integerFlag } from './args.js';
import { baseUrlName, makeClient } from './client.js';
import type { RunContext } from './command.js';
import { EXIT, ListingTooLarge, asUsageError, withBaseUrl } from './errors.js';
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
  /** Starts the iteration; may throw the client's TypeError/RangeError for a bad flag value. */
  iterate(
    client: SvcClient,
    onPage: (p: PageProgress) => void,
    signal: AbortSignal,
  ): AsyncGenerator<T, void, undefined>;
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
  const onPage = (p: PageProgress) => {
    received += p.bytes;
    collect.page(p.bytes);
    show.page(p);
  };
  let iterator: AsyncGenerator<T, void, undefined>;
  try {
    iterator = spec.iterate(client, onPage, ctx.signal);
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
      await ctx.io.out(spec.table(items));
    } else {
      const out = streamed(format, spec);
      const put = (piece: string) => ctx.io.out(format === 'csv' ? piece : jsonText(piece));
      for await (const page of PageItems.pages(iterator)) {
        count += page.length;
        const text = out.page(page);
        // A page of 200 recipients is one piece: written as it is, without a generator or a call of its own.
        if (text.length <= SLICE) {
          if (text) await put(text);
        } else {
          for (const piece of slices(text)) await put(piece);
        }
      }
      const end = out.end();
      if (end) await put(end);
    }
  } catch (err) {
    // Reported with the base URL named as the user gave it: the hint then says which setting to change.
    throw withBaseUrl(err, { name: baseUrlName(ctx.flags), value: client.baseUrl });
  } finally {
    collect.end();
  }
  show.done(count);
  return EXIT.ok;
}
