/**
 * Keeps a long listing's memory flat. Every page leaves its garbage behind (the body's text, its parsed items, the
 * text written out), and the fetch implementation's buffers outside the heap are freed only when their owners are
 * collected. Two settings of V8 keep it flat, and a third keeps down what the first costs in CPU, each measured on the
 * bench's listing of 1,000,000 recipients in 5,000 pages and on 120 pages of 4 MB (test/node/cli-memory.test.mjs):
 *
 * - **The young generation stops growing early.** V8 doubles the nursery, up to 16 MiB a half, while the pages'
 *   garbage survives its scavenges, and then keeps both halves resident. Set once 4 MiB of responses have arrived,
 *   `--semi-space-growth-factor=1` took the peak of a listing of 1,000,000 from about 136 MB to 105-120 MB (set on
 *   the raw loop, it took the raw loop's from 126 MB to 98 MB). The nursery then holds 4 MiB a half, and is
 *   scavenged about 3.3 times as often (376 scavenges in that listing, against 114).
 * - **Those small scavenges run on the main thread alone** (`--no-parallel-scavenge`, set at the same time). V8 splits
 *   each scavenge into one task per MiB of nursery and one more, as many as its worker threads and the main thread
 *   (and at most 8), and wakes those threads every time: with 3.3 times the scavenges, the listing made 1.5 times
 *   the raw loop's futex calls (3,140 against 2,009 in 1,000 pages). On one thread (1,439 calls), ndjson and csv at
 *   1,000,000 took 2-8% less CPU in alternating pairs, json the same, all three in the same wall time.
 * - **Pages of a MiB and more get a full collection every 16 MiB.** With pages that large, V8's own full collections
 *   come too late: well over 200 MB on 120 pages of 4 MB. Forced every 16 MiB, 145-192 MB. Only for such pages:
 *   each forced collection frees the maps of the AbortSignals that fetch makes (every AbortSignal of Node 20 has a
 *   map of its own), and V8 throws away the optimized code that had seen them and compiles it again
 *   (`--trace-deopt`: "weak objects"). With ordinary pages, a collection every 16 MiB cost a listing of 1,000,000
 *   about 20% more CPU, the largest part of its cost over the raw loop.
 *
 * All three touch V8's flags, which Node shares with its own code cache: V8 refuses the cache of Node's modules while
 * the flags differ from those it was made with (with `--expose-gc` left on, `fetch`, compiled at the first request,
 * cost a listing of 10,000 about 20 ms more). So nothing is set before 4 MiB of responses, long after `fetch` was
 * compiled (a listing of 10,000, about 2 MB, never loads node:v8 or node:vm); `gc()` is taken from a fresh context only
 * when the first forced collection is due, with the flag turned off again at once; and the nursery's two flags go
 * back to their defaults when the listing ends (not to values given on Node's command line). Where any of it fails,
 * memory is as the runtime keeps it, and nothing else changes.
 */
const EVERY_BYTES = 16 * 1024 * 1024;
/** The average page, in bytes since the last collection, from which full collections are forced. */
const LARGE_PAGE = 1024 * 1024;

/** Responses, in bytes, after which the nursery stops growing. */
const YOUNG_AFTER = 4 * 1024 * 1024;

/** What the collector needs of Node. */
interface Runtime {
  setFlags(flags: string): void;
  runInNewContext(code: string): unknown;
}

/** `v8.setFlagsFromString` and `vm.runInNewContext`, or undefined where there are none. */
async function runtime(): Promise<Runtime | undefined> {
  try {
    const [{ setFlagsFromString }, { runInNewContext }] = await Promise.all([import('node:v8'), import('node:vm')]);
    return { setFlags: setFlagsFromString, runInNewContext };
  } catch {
    // Not Node: the listing still works, with memory as the runtime keeps it.
    return undefined;
  }
}

/** `gc()` for this process, or undefined. */
function exposeGc(node: Runtime): (() => void) | undefined {
  // Node started with --expose-gc: nothing to turn on.
  const own: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    node.setFlags('--expose-gc');
    try {
      const gc: unknown = node.runInNewContext('gc');
      return typeof gc === 'function' ? (gc as () => void) : undefined;
    } finally {
      node.setFlags('--no-expose-gc');
    }
  } catch {
    return undefined;
  }
}

/** What a listing tells the collector: each page's response size, and its end. */
export interface Collector {
  page(bytes: number): void;
  /** Gives V8's flags back their defaults. */
  end(): void;
}

export function collector(every = EVERY_BYTES): Collector {
  let node: Runtime | undefined;
  let asked = false;
  let ended = false;
  let gc: (() => void) | null | undefined = null;
  let total = 0;
  let bytes = 0;
  let pages = 0;
  const setFlags = (flags: string) => {
    try {
      node?.setFlags(flags);
    } catch {
      // A runtime whose setFlags throws: memory as it keeps it. (V8 itself does not throw for a flag it lacks: it
      // prints a line on stderr. Node 20's V8 has all three flags.)
    }
  };
  return {
    page(size) {
      total += size;
      bytes += size;
      pages++;
      if (!asked && total >= YOUNG_AFTER) {
        asked = true;
        void runtime().then((loaded) => {
          if (ended) return;
          node = loaded;
          setFlags('--semi-space-growth-factor=1');
          setFlags('--no-parallel-scavenge');
        });
      }
      if (bytes < every) return;
      const large = bytes / pages >= LARGE_PAGE;
      bytes = 0;
      pages = 0;
      if (!large || !node) return;
      if (gc === null) gc = exposeGc(node);
      gc?.();
    },
    end() {
      ended = true;
      setFlags('--semi-space-growth-factor=2');
      setFlags('--parallel-scavenge');
    },
  };
}
