// What mount/unmount cycles leave behind in a Chromium page, through CDP: shared by the bench and the
// Node leak test (test/node/leak.test.mjs).

async function countInstances(page, prototypeOf) {
  const proto = await page.evaluateHandle(prototypeOf);
  try {
    if (await proto.evaluate((p) => p === undefined)) return 0;
    const objects = await page.queryObjects(proto);
    const n = await objects.evaluate((list) => list.length);
    await objects.dispose();
    return n;
  } finally {
    await proto.dispose();
  }
}

/**
 * The page's state after a full garbage collection: `message` listeners on its window, frames and
 * documents alive in the renderer, live iframe and <svc-embed> objects (attached or detached), DOM
 * nodes, and the JS heap in use.
 */
export async function leftovers(page, cdp) {
  await cdp.send('HeapProfiler.enable');
  for (let i = 0; i < 3; i++) await cdp.send('HeapProfiler.collectGarbage');
  const { result } = await cdp.send('Runtime.evaluate', { expression: 'window' });
  const { listeners } = await cdp.send('DOMDebugger.getEventListeners', { objectId: result.objectId });
  await cdp.send('Runtime.releaseObject', { objectId: result.objectId });
  const { documents, nodes } = await cdp.send('Memory.getDOMCounters');
  const { metrics } = await cdp.send('Performance.getMetrics');
  const m = Object.fromEntries(metrics.map(({ name, value }) => [name, value]));
  return {
    messageListeners: listeners.filter((l) => l.type === 'message').length,
    frames: m.Frames,
    documents,
    nodes,
    iframes: await countInstances(page, () => HTMLIFrameElement.prototype),
    embeds: await countInstances(page, () => customElements.get('svc-embed')?.prototype),
    heapUsedBytes: m.JSHeapUsedSize,
  };
}

/**
 * Runs `cycles` mount/unmount cycles of `variant` (bench/pages/host.js) after a few to warm up, and
 * returns the leftovers before and after, and their difference.
 */
export async function leakCheck(page, cdp, cycles, variant = 'element') {
  await page.evaluate((v) => window.bench.cycles(v, 10), variant);
  const before = await leftovers(page, cdp);
  await page.evaluate((v, n) => window.bench.cycles(v, n), variant, cycles);
  const after = await leftovers(page, cdp);
  const delta = Object.fromEntries(Object.keys(after).map((k) => [k, after[k] - before[k]]));
  return { before, after, delta };
}
