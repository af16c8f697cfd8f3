/**
 * Keeps a long listing's memory flat. Every page leaves megabytes of garbage behind (the body's text, its
 * parsed items, the text written out), most of it promoted out of the nursery before it dies, and the
 * fetch implementation's buffers outside the heap are freed only when their owners are collected. Left to
 * itself, the runtime let the heap grow to well over 200 MB on 120 pages of 4 MB before a full collection
 * came. One full collection every 16 MiB of responses held the peak near 160 MB, for about 5% more CPU on
 * pages that large, and next to nothing on ordinary pages (the heap is small there, so is the collection).
 *
 * Node gives a script `gc()` only behind a flag; the command turns it on for itself at run time, as test
 * runners' leak detectors do. Where that fails, nothing is collected early, and nothing else changes.
 *
 * The flag is turned on only when the first collection is due, never before: changing V8's flags makes V8
 * refuse the code cache of every Node module compiled afterwards, and `fetch` (undici) is compiled at the
 * first request. Turned on at start, it cost a listing of 10,000 recipients (2.3 MB of responses, so no
 * collection at all) about 20 ms of CPU; turned on after 16 MiB, everything is compiled by then.
 */
const EVERY_BYTES = 16 * 1024 * 1024;

/** `gc()`, turned on for this process; undefined where that is not possible. */
async function exposeGc(): Promise<(() => void) | undefined> {
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import('node:v8'), import('node:vm')]);
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    // Not Node, or no flags: the listing still works, with memory as the runtime keeps it.
    return undefined;
  }
}

/**
 * A function to call with the count of response bytes received so far, after each page: it collects the heap
 * every `every` bytes. It returns a promise only the first time a collection is due (while it turns `gc()` on);
 * await it when there is one.
 */
export function collector(every = EVERY_BYTES): (received: number) => Promise<void> | undefined {
  // undefined: not looked up yet; null: not available.
  let collect: (() => void) | null | undefined;
  let last = 0;
  return (received) => {
    if (received - last < every || collect === null) return undefined;
    last = received;
    if (collect) {
      collect();
      return undefined;
    }
    return exposeGc().then((gc) => {
      collect = gc ?? null;
      collect?.();
    });
  };
}
