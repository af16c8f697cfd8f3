/**
 * Keeps a long listing's memory flat. Every page leaves megabytes of garbage behind (the body's text, its
 * parsed items, the text written out), most of it promoted out of the nursery before it dies, and the
 * fetch implementation's buffers outside the heap are freed only when their owners are collected. Left to
 * itself, the runtime let the heap grow to well over 200 MB on 120 pages of 4 MB before a full collection
 * came. One full collection every 16 MiB of responses held the peak near 160 MB, for about 5% more CPU on
 * pages that large, and next to nothing on ordinary pages (the heap is small there, so is the collection).
 *
 * Node gives a script `gc()` only behind a flag; the command turns it on for itself at run time, as test
 * runners' leak detectors do, takes `gc()` from a fresh context, and turns the flag off again at once. Where
 * that fails, nothing is collected early, and nothing else changes.
 *
 * Both halves count. V8 refuses the code cache of Node's own modules while its flags differ from those the
 * cache was made with: with the flag left on, `fetch` (compiled at the first request) cost a listing of
 * 10,000 about 20 ms more CPU. And the flag turned on later in the run (when the first collection is due)
 * made a listing of 1,000,000 about 10% slower, and the raw loop 6% slower: so it is done at the start.
 */
const EVERY_BYTES = 16 * 1024 * 1024;

/** `gc()` for this process, or undefined. */
async function exposeGc(): Promise<(() => void) | undefined> {
  // Node started with --expose-gc: nothing to turn on.
  const own: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import('node:v8'), import('node:vm')]);
    setFlagsFromString('--expose-gc');
    try {
      const gc: unknown = runInNewContext('gc');
      return typeof gc === 'function' ? (gc as () => void) : undefined;
    } finally {
      setFlagsFromString('--no-expose-gc');
    }
  } catch {
    // Not Node, or no flags: the listing still works, with memory as the runtime keeps it.
    return undefined;
  }
}

/** A function to call with each page's response size; it collects the heap every `every` bytes. */
export async function collector(every = EVERY_BYTES): Promise<(bytes: number) => void> {
  const collect = await exposeGc();
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every || !collect) return;
    since = 0;
    collect();
  };
}
