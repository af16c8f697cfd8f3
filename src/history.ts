// svc-embed/history: the embed's in-embed path in a query parameter of the host page's URL, one history entry per
// navigation the viewer makes, and Back and Forward through them (docs/history.md). A module of its own, outside the
// element's bundle: it only uses the element's public API (navigate(), status, path, and its events). It imports
// nothing: a value of the parameter is checked by navigate(), which applies the protocol's path rule (pathProblem).

/**
 * Where `syncHistory` reads and writes the parameter, for a router that must own the URL. Without it, the module uses
 * `location`, `history` and `popstate`.
 */
export interface HistoryAdapter {
  /** The parameter's value in the current URL, or `null` when it is absent. */
  read(): string | null;
  /** Puts `path` in the parameter: a new entry (`push`) or in place of the current one (`replace`). */
  write(path: string, mode: 'push' | 'replace'): void;
  /** Calls `onChange` at each of the router's location changes (Back and Forward too); returns an unsubscribe. */
  subscribe(onChange: () => void): () => void;
}

/** Options of {@link syncHistory}. */
export interface SyncHistoryOptions {
  /** The query parameter that holds the embed's path: 1 to 64 of `A-Z a-z 0-9 _ . ~ -`. Default `'embed'`. */
  param?: string;
  /** For a router that must own the URL (see {@link HistoryAdapter}). */
  adapter?: HistoryAdapter;
}

/** What syncHistory reads of an `<svc-embed>`: its public API only. */
interface Embed extends HTMLElement {
  navigate(path: string): void;
  readonly status: string;
  path?: string | null;
}

type Detail = { type: string; payload: { path?: unknown } };

const NAME = 'svc-embed/history';
/** The longest value of the parameter that is read: the protocol has no path length limit of its own. */
const MAX_PATH = 2048;
/** Navigations that arrive within this many milliseconds of the previous make one entry. */
const COALESCE_MS = 50;
/**
 * What the syncHistory calls of this window share, whichever copy of this module made them (the npm one, the CDN
 * one): the params in use, and history.length when one of them last looked. Each call looks after its own writes
 * and at each event, so an entry that another embed's module pushed is not taken for a frame's own.
 */
const live = ((globalThis as Record<symbol, unknown>)[Symbol.for(NAME)] ??= { params: new Set() }) as {
  params: Set<string>;
  length?: number;
};

/** Throws the TypeError of a bad argument: its name, and the form it accepts. */
const fail = (what: string, form: string): never => {
  throw new TypeError(`${NAME}: ${what} must be ${form}`);
};

/** The default adapter: the parameter in `location.search`; the other parameters, as written, and the hash kept. */
const locationAdapter = (param: string): HistoryAdapter => ({
  read: () => new URLSearchParams(location.search).get(param),
  write(path, mode) {
    // `param` is unreserved characters only: its encoded form is itself.
    const rest = location.search
      .slice(1)
      .split('&')
      .filter((pair) => pair && pair.split('=')[0] != param);
    rest.push(`${param}=${encodeURIComponent(path).replace(/%2F/g, '/')}`);
    // The state the page or its router keeps there is carried into the entry.
    history[`${mode}State`](history.state, '', `${location.pathname}?${rest.join('&')}${location.hash}`);
  },
  subscribe(onChange) {
    addEventListener('popstate', onChange);
    return () => removeEventListener('popstate', onChange);
  },
});

/**
 * Keeps the in-embed path of `embed` in the query parameter `param` of the host page's URL (`?embed=/details/7`), with
 * one history entry per navigation the viewer makes in the embed, and none for anything else (the first view, a
 * renewal, a reload or re-insertion, a navigation the host asked for). Back and Forward navigate the embed to the
 * parameter's path; with the parameter absent, to the path it first showed. Started with the parameter present, it
 * opens the embed at that path. A value that is not an in-embed path is ignored, with one console warning.
 *
 * An embed that keeps its own history (its entries join the tab's) is told by `history.length`: its navigations then
 * replace the URL instead of adding a second entry.
 *
 * @param embed an `<svc-embed>` element
 * @param options `param` (default `'embed'`), and an `adapter` for a router that must own the URL
 * @returns `stop()`: removes every listener, and leaves the URL as it is
 * @throws {TypeError} for an embed that is not an `<svc-embed>`, a bad option, or a `param` that another live
 *   `syncHistory` of this window uses
 */
export function syncHistory(embed: Embed, options: SyncHistoryOptions = {}): () => void {
  if ((embed as Element | null)?.localName != 'svc-embed' || typeof embed.navigate != 'function')
    fail('embed', 'an <svc-embed> element');
  if (Object(options) !== options) fail('options', 'an object');
  const { param = 'embed', adapter } = options;
  if (typeof param != 'string' || !/^[\w.~-]{1,64}$/.test(param)) fail('param', '1-64 of [A-Za-z0-9_.~-]');
  if (adapter && !['read', 'write', 'subscribe'].every((k) => typeof adapter[k as keyof HistoryAdapter] == 'function'))
    fail('adapter', '{read, write, subscribe}');
  if (live.params.has(param)) fail(`param ${param}`, 'free: stop() the other syncHistory');
  live.params.add(param);
  const url = adapter ?? locationAdapter(param);

  /** The embed's path as its events last said it, or as this module last sent it there. */
  let at: string | undefined;
  /** The first path it viewed. */
  let first: string | undefined;
  /** The paths of the navigations posted to the embed (svc-action), whose answers are not the viewer's. */
  let asked: string[] = [];
  /** Whether this embed keeps its own history. */
  let own = false;
  /** When the viewer's last navigation arrived (an event's timeStamp). */
  let previous: number | undefined;

  /**
   * Navigates the embed to a value of the parameter. navigate() throws on a value that breaks the protocol's path
   * rule, before anything is posted: such a value, or one over MAX_PATH, is ignored with one warning (it is `at` from
   * then on, so that reading it again warns no more).
   */
  const go = (path: string) => {
    at = path;
    try {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- caught below: a byte, not an Error
      if (path.length > MAX_PATH) throw 0;
      embed.navigate(path);
    } catch {
      console.warn(`${NAME}: ignoring ${param}: not an in-embed path`);
    }
  };

  /** svc-action: the navigations posted; svc-navigate and svc-view: where the embed is, and whether the viewer moved. */
  const onEvent = (e: Event) => {
    const { type, payload } = (e as CustomEvent<Detail>).detail;
    const path = payload.path as string;
    if (e.type == 'svc-action') {
      if (type == 'svc:action:navigate') asked.push(path);
      return;
    }
    const answer = asked.indexOf(path);
    at = path;
    if (answer >= 0) asked = asked.slice(answer + 1);
    else if (e.type == 'svc-view') first ??= path;
    else if (embed.status == 'ready') {
      // A navigation the viewer made. A frame that pushed an entry of its own has made history.length grow (and once
      // it has, its traversals come with the length unchanged): replacing the URL keeps Back to one press per step.
      own ||= history.length > live.length!;
      url.write(path, own || e.timeStamp - previous! < COALESCE_MS ? 'replace' : 'push');
      previous = e.timeStamp;
    }
    live.length = history.length;
  };

  /** Back, Forward or the router moved: the embed follows the parameter, or goes back to the path it first showed. */
  const onChange = () => {
    live.length = history.length;
    // Absent: the path the host opens the embed at (the element checks it), or else the first it viewed.
    const path = url.read() ?? (embed.path || first);
    if (path != undefined && path != at) go(path);
  };

  live.length = history.length;
  const start = url.read();
  if (start != null) go(start);
  const types = ['svc-action', 'svc-navigate', 'svc-view'];
  for (const type of types) embed.addEventListener(type, onEvent);
  const unsubscribe = url.subscribe(onChange);
  let on = true;
  return () => {
    if (on) {
      on = false;
      live.params.delete(param);
      unsubscribe();
      for (const type of types) embed.removeEventListener(type, onEvent);
    }
  };
}
