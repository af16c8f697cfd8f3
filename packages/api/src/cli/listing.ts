/**
 * A listing command from flags to output: every page first, then the output in one write, then the
 * summary, so a failure never leaves half a JSON array and success is never claimed before stdout
 * took the data.
 */
import type { PageProgress, ScimAuthScheme, SvcClient } from '../index.js';
import { PageItems } from '../items.js';
import { choiceFlag } from './args.js';
import { makeClient } from './client.js';
import type { RunContext } from './command.js';
import { EXIT, asUsageError } from './errors.js';
import { FORMATS, render } from './format.js';
import type { Listing } from './format.js';
import { progress } from './progress.js';

export interface ListingSpec<T> {
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
  render(items: readonly T[]): Listing;
}

export async function runListing<T>(ctx: RunContext, spec: ListingSpec<T>): Promise<number> {
  const format = choiceFlag(ctx.flags, 'format', FORMATS, 'table', spec.command)!;
  const show = progress(ctx.io, ctx.flags.quiet === true, spec.noun);
  const client = makeClient(ctx, spec.command, {
    onRetry: show.retry,
    ...(spec.scimAuthScheme ? { scimAuthScheme: spec.scimAuthScheme } : {}),
  });
  let iterator: AsyncGenerator<T, void, undefined>;
  try {
    iterator = spec.iterate(client, show.page, ctx.signal);
  } catch (err) {
    throw asUsageError(err, spec.names, spec.command);
  }
  const items = await PageItems.all(iterator);
  await ctx.io.out(render(format, spec.render(items)));
  show.done(items.length);
  return EXIT.ok;
}
