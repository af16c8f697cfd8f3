// Chromium: evaluating in a page's out-of-process (cross-site) frames through CDP sessions on the frames' own
// targets, not through puppeteer's frames.
//
// Puppeteer 24 can leave an out-of-process frame bound to its parent's session when the iframe swaps from
// about:blank to the cross-origin embed on a loaded machine. Every evaluation, wait or click in that frame
// then waits for an execution context that never comes ("Timed out after waiting 30000ms"), and a new page
// can meet it again (puppeteer/puppeteer#10715 is the same race). Reproduced about once in a hundred frames
// under four busy loops; a session on the frame's own target answered such a frame at once.
import { CDPSessionEvent } from 'puppeteer-core';

/** Per page: a CDP session of the page, and a session per out-of-process frame, by frame id. */
const pages = new WeakMap();
/** How many calls of frameTargets there have been: each names its own group of remote objects. */
let calls = 0;

async function of(page) {
  if (!pages.has(page)) pages.set(page, { cdp: await page.createCDPSession(), frames: new Map() });
  return pages.get(page);
}

/**
 * The frames of the iframes that `expression` (evaluated in `page`) returns, an iframe or an array of them
 * (null or an empty array: none): for each, `{frameId, session}`, where `session` is the CDP session of the
 * frame's own target, or null when the frame is in the page's process (it has no target of its own).
 */
export async function frameTargets(page, expression) {
  const { cdp, frames } = await of(page);
  // Every remote object made here (the result, its items, an exception) is in a group of this call's own, released
  // at the end: calls that overlap on one page never release each other's objects.
  const objectGroup = `frame-targets-${++calls}`;
  try {
    const { result, exceptionDetails } = await cdp.send('Runtime.evaluate', { expression, objectGroup });
    if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
    const ids = [];
    if (result.subtype === 'array') {
      const { result: items } = await cdp.send('Runtime.getProperties', {
        objectId: result.objectId,
        ownProperties: true,
      });
      for (const item of items) if (/^\d+$/.test(item.name) && item.value?.objectId) ids.push(item.value.objectId);
    } else if (result.objectId) {
      ids.push(result.objectId);
    }
    const found = [];
    for (const objectId of ids) {
      const { node } = await cdp.send('DOM.describeNode', { objectId });
      if (node.frameId) found.push({ frameId: node.frameId, session: await targetOf(cdp, frames, node.frameId) });
    }
    return found;
  } finally {
    await cdp.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {});
  }
}

async function targetOf(cdp, frames, frameId) {
  if (!frames.has(frameId)) {
    let attached;
    try {
      attached = await cdp.send('Target.attachToTarget', { targetId: frameId, flatten: true });
    } catch (error) {
      if (/no target/i.test(error.message)) return null;
      throw error;
    }
    const session = cdp.connection().session(attached.sessionId);
    session.once(CDPSessionEvent.Disconnected, () => frames.delete(frameId));
    frames.set(frameId, session);
  }
  return frames.get(frameId);
}

/** In a document: a value to hand back, a DOM node as true (CDP hands back an empty object for one, BiDi nothing). */
export const nodeAsTrue = (v) => (v instanceof Node ? true : v);

/**
 * Evaluates `fn(arg)` in the main world of the frame of `session` (from `frameTargets`) and returns its value,
 * awaited; `arg` goes as JSON, and the value comes back as JSON (a DOM node comes back as true). `prelude`, a
 * script, runs first in the same evaluation.
 */
export async function evaluateIn(session, fn, arg, prelude = '') {
  const call = `(${nodeAsTrue})(await (${fn})(${arg === undefined ? '' : JSON.stringify(arg)}))`;
  const { result, exceptionDetails } = await session.send('Runtime.evaluate', {
    expression: `${prelude};(async () => ${call})()`,
    returnByValue: true,
    awaitPromise: true,
  });
  if (exceptionDetails) throw new Error(exceptionDetails.exception?.description ?? exceptionDetails.text);
  return result.value;
}
