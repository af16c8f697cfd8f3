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
 */
const EVERY_BYTES = 16 * 1024 * 1024;

/** A function to call with each page's response size; it collects the heap every `every` bytes. */
export async function collector(every = EVERY_BYTES): Promise<(bytes: number) => void> {
  let collect: (() => void) | undefined;
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import('node:v8'), import('node:vm')]);
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    if (typeof gc === 'function') collect = gc as () => void;
  } catch {
    // Not Node, or no flags: the listing still works, with memory as the runtime keeps it.
  }
  let since = 0;
  return (bytes) => {
    since += bytes;
    if (since < every || !collect) return;
    since = 0;
    collect();
  };
}
