/**
 * Posting a message *from* a same-origin frame, as the frame itself would.
 *
 * `postMessage` does not stamp a message with the window whose `postMessage` is called: `event.source` and
 * `event.origin` come from the realm of the script that made the call (HTML's "incumbent settings object").
 * The test page calling `frame.contentWindow.parent.postMessage(...)` therefore sends as the page, and the
 * element's gate rightly ignores it. A function created by a script that runs *inside* the frame sends as
 * the frame. So the helper injects one `<script>` into the frame's document, which hands back such a
 * function. Checked in Chromium, Firefox and WebKit (test/browser/testing.test.ts), and checked again at
 * run time, once per frame document, with a probe message (`postsAsFrame`).
 *
 * The frame's document must be on the test page's origin, so that the page may script it. When it will
 * not run the script (a Content-Security-Policy on the server's page) or cannot be read (the request
 * failed and the browser shows its error page), the frame is navigated to a document of the helper's
 * own: a `blob:` URL made by this page, which has this page's origin and policies, in the same window.
 * (Not `about:blank`: WebKit gives an `about:blank` that `location.replace()` loads the CSP of the
 * document it replaces.)
 */

/** Posts `message` to the frame's parent, as the frame. */
export type FramePoster = (message: unknown, targetOrigin: string) => void;

const XHTML = 'http://www.w3.org/1999/xhtml';
const PROBE = 'svcEmbedTestingProbe';
const posters = new WeakMap<Document, FramePoster>();
/** Frames whose document was replaced here: it is not tried twice. */
const replaced = new WeakSet<HTMLIFrameElement>();
let nextKey = 0;

/** Runs a script in `doc` that hands back a posting function of the frame's realm; undefined when it did not run. */
function inject(win: Window, doc: Document): FramePoster | undefined {
  const key = `__svcEmbedTesting${++nextKey}`;
  const slot = win as unknown as Record<string, unknown>;
  let poster: FramePoster | undefined;
  try {
    slot[key] = (fn: FramePoster) => {
      poster = fn;
    };
    const script = doc.createElementNS(XHTML, 'script');
    script.textContent = `(function (p) { window[${JSON.stringify(key)}](function (message, target) { p.postMessage(message, target); }); })(parent);`;
    (doc.head ?? doc.documentElement ?? doc).appendChild(script);
    script.remove();
  } catch {
    // Trusted Types or a document that takes no element: the same outcome as a refused script.
  } finally {
    delete slot[key];
  }
  return poster;
}

/**
 * Whether `poster`'s messages reach this page as the frame's: from the frame's window, on this page's origin.
 * Checked once per document, so that a browser that stamps them otherwise fails here, clearly, rather than
 * every event being ignored.
 */
function postsAsFrame(frame: HTMLIFrameElement, poster: FramePoster): Promise<boolean> {
  const page = frame.ownerDocument.defaultView!;
  const win = frame.contentWindow;
  const id = ++nextKey;
  return new Promise((resolve, reject) => {
    const onMessage = (e: MessageEvent) => {
      if ((e.data as Record<string, unknown> | null)?.[PROBE] !== id) return;
      page.removeEventListener('message', onMessage);
      resolve(e.source === win && e.origin === page.location.origin);
    };
    page.addEventListener('message', onMessage);
    try {
      poster({ [PROBE]: id }, page.location.origin);
    } catch (error) {
      page.removeEventListener('message', onMessage);
      reject(error);
    }
  });
}

/**
 * The frame's current document once it has loaded: a readable one, or `null` when it cannot be read (a
 * cross-origin document, such as the browser's error page). Waits for `load` while the frame still holds
 * the initial `about:blank` of its creation.
 */
async function loadedDocument(frame: HTMLIFrameElement): Promise<Document | null> {
  for (;;) {
    const doc = frame.contentDocument;
    if (doc === null) return null;
    if (doc.URL !== 'about:blank' && doc.readyState === 'complete') return doc;
    await new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  }
}

/** Replaces the frame's document with an empty one of this page's origin, and resolves once it has loaded. */
async function replace(frame: HTMLIFrameElement): Promise<Document | null> {
  replaced.add(frame);
  const url = URL.createObjectURL(new Blob(['<!doctype html><title>svc-embed/testing</title>'], { type: 'text/html' }));
  try {
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    // replace(): no history entry, so the test page's history is left as it was.
    frame.contentWindow!.location.replace(url);
    await loaded;
    return loadedDocument(frame);
  } finally {
    URL.revokeObjectURL(url);
  }
}

/**
 * A function that posts from inside `frame`, whose `src` is on this page's origin. Waits for the frame's
 * document; rejects when no document of the frame can run a script of this page.
 */
export async function framePoster(frame: HTMLIFrameElement): Promise<FramePoster> {
  let doc = await loadedDocument(frame);
  const known = doc && posters.get(doc);
  if (known) return known;
  let poster = doc ? inject(frame.contentWindow!, doc) : undefined;
  if (!poster && !replaced.has(frame)) {
    doc = await replace(frame);
    poster = doc ? inject(frame.contentWindow!, doc) : undefined;
  }
  if (!poster || !doc) {
    throw new Error(
      "svc-embed/testing: the frame runs no script of the test page, even in a document of the helper's own; is the test page under a Content-Security-Policy without inline scripts?",
    );
  }
  if (!(await postsAsFrame(frame, poster))) {
    throw new Error(
      'svc-embed/testing: this browser does not send what a script in the frame posts as the frame (its window and origin), so the element would ignore it',
    );
  }
  posters.set(doc, poster);
  return poster;
}
