// What the viewer sees of an element, through puppeteer-core in Chromium (CDP) and Firefox (WebDriver BiDi):
// screenshots of its box, taken one after another as fast as the browser gives them, each compared with a
// reference screenshot as the share of pixels that differ. The PNGs are decoded by the browser itself
// (createImageBitmap, then a canvas's getImageData) in a blank page of its own, after the filming: decoding
// while filming would take CPU from the page being filmed.

/** How far apart one channel (0–255) of two pixels may be and still count as the same: anti-aliasing, rounding. */
export const TOLERANCE = 16;
/** A screenshot with more than this share of its pixels different from the reference shows something else. */
export const THRESHOLD = 0.02;

/** The border box of the first element matching `selector`, in whole CSS pixels inside it (a screenshot clip). */
export function clipOf(page, selector) {
  return page.$eval(selector, (el) => {
    const r = el.getBoundingClientRect();
    const x = Math.ceil(r.left);
    const y = Math.ceil(r.top);
    return { x, y, width: Math.floor(r.right) - x, height: Math.floor(r.bottom) - y };
  });
}

/** One PNG screenshot of `clip` (which must lie in the viewport), as a Buffer. */
export async function shoot(page, clip) {
  return Buffer.from(await page.screenshot({ clip, type: 'png', captureBeyondViewport: false }));
}

/**
 * Screenshots of `clip`, one after another, until `until` (a promise) settles; then one more, so that the film
 * ends after it. Resolves with `[{ at, end, png }]`, in ms of performance.now() in this process: when the screenshot
 * was asked for, and when it came; rejects when `until` rejects. At most `max` screenshots are kept: a film that would
 * hold more is an error, not an unbounded heap. `missed` on the array counts the screenshots the browser refused.
 * `onShot(count)`, when given, is called after each screenshot kept: a scene can wait for the film to have begun.
 */
export async function film(page, clip, until, { max = 1500, onShot } = {}) {
  let done = false;
  let failure;
  until.then(
    () => (done = true),
    (error) => {
      done = true;
      failure = error ?? new Error('the film was stopped');
    },
  );
  const shots = [];
  let missed = 0;
  for (let last = false, inRow = 0; !last;) {
    last = done;
    if (shots.length >= max) throw new Error(`over ${max} screenshots: the end of the film never came`);
    const at = performance.now();
    let png;
    try {
      png = await shoot(page, clip);
    } catch (error) {
      // Firefox with site isolation was seen to refuse one capture while a cross-process frame left the page
      // ("Unable to capture screenshot"): the next is taken at once, and the misses are counted.
      missed++;
      if (++inRow >= 5) throw error;
      last = false;
      continue;
    }
    inRow = 0;
    shots.push({ at, end: performance.now(), png });
    onShot?.(shots.length);
  }
  if (failure) throw failure;
  shots.missed = missed;
  return shots;
}

/**
 * A judge of screenshots: a blank page of its own in `browser` that decodes PNGs and counts, against the
 * reference, the pixels of which any channel differs by more than TOLERANCE. `share(png)` is that count over the
 * pixel count; a screenshot of another size than the reference differs entirely (1).
 */
export async function judge(browser) {
  const page = await browser.newPage();
  await page.goto('about:blank');
  await page.evaluate(() => {
    const decode = async (base64) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const bitmap = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
      const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
      const context = canvas.getContext('2d', { willReadFrequently: true });
      context.drawImage(bitmap, 0, 0);
      bitmap.close();
      return context.getImageData(0, 0, canvas.width, canvas.height);
    };
    window.judge = {
      async reference(base64) {
        this.ref = await decode(base64);
        return [this.ref.width, this.ref.height];
      },
      async share(base64, tolerance) {
        const { ref } = this;
        const shot = await decode(base64);
        if (shot.width !== ref.width || shot.height !== ref.height) return 1;
        const a = ref.data;
        const b = shot.data;
        // Whole pixels first, as 32-bit words: most are the same, and this loop is fast in every engine.
        const wa = new Uint32Array(a.buffer, a.byteOffset, a.length / 4);
        const wb = new Uint32Array(b.buffer, b.byteOffset, b.length / 4);
        let differ = 0;
        for (let p = 0; p < wa.length; p++) {
          if (wa[p] === wb[p]) continue;
          const i = p * 4;
          if (
            Math.abs(a[i] - b[i]) > tolerance ||
            Math.abs(a[i + 1] - b[i + 1]) > tolerance ||
            Math.abs(a[i + 2] - b[i + 2]) > tolerance ||
            Math.abs(a[i + 3] - b[i + 3]) > tolerance
          )
            differ++;
        }
        return differ / (a.length / 4);
      },
      // Named references beside the main one, for films judged against several views.
      named: {},
      masks: {},
      async keep(name, base64) {
        const ref = (this.named[name] = await decode(base64));
        return [ref.width, ref.height];
      },
      async shareWith(name, base64, tolerance) {
        const main = this.ref;
        this.ref = this.named[name];
        try {
          return await this.share(base64, tolerance);
        } finally {
          this.ref = main;
        }
      },
      // The pixels of reference `name` that differ from the same pixel of every reference in `others`: what only
      // that view shows. Resolves with their share of the picture.
      async distinct(name, others, tolerance) {
        const ref = this.named[name];
        const rest = others.map((o) => this.named[o]);
        if (rest.some((o) => o.width !== ref.width || o.height !== ref.height)) throw new Error('sizes differ');
        const mask = new Uint8Array(ref.width * ref.height);
        let count = 0;
        for (let p = 0; p < mask.length; p++) {
          const i = p * 4;
          const off = (o) =>
            Math.abs(ref.data[i] - o.data[i]) > tolerance ||
            Math.abs(ref.data[i + 1] - o.data[i + 1]) > tolerance ||
            Math.abs(ref.data[i + 2] - o.data[i + 2]) > tolerance ||
            Math.abs(ref.data[i + 3] - o.data[i + 3]) > tolerance;
          if (rest.every(off)) count += mask[p] = 1;
        }
        this.masks[name] = { mask, count };
        return count / mask.length;
      },
      // Of the pixels that only reference `name` shows (distinct), the share that this screenshot shows too.
      async likeness(name, base64, tolerance) {
        const ref = this.named[name];
        const { mask, count } = this.masks[name];
        const shot = await decode(base64);
        if (shot.width !== ref.width || shot.height !== ref.height || !count) return 0;
        const a = ref.data;
        const b = shot.data;
        let same = 0;
        for (let p = 0; p < mask.length; p++) {
          if (!mask[p]) continue;
          const i = p * 4;
          if (
            Math.abs(a[i] - b[i]) <= tolerance &&
            Math.abs(a[i + 1] - b[i + 1]) <= tolerance &&
            Math.abs(a[i + 2] - b[i + 2]) <= tolerance &&
            Math.abs(a[i + 3] - b[i + 3]) <= tolerance
          )
            same++;
        }
        return same / count;
      },
    };
  });
  return {
    /** Makes `png` the reference; resolves with its `[width, height]` in device pixels. */
    reference: (png) => page.evaluate((b) => window.judge.reference(b), png.toString('base64')),
    /** The share (0–1) of the pixels of `png` that differ from the reference. */
    share: (png) => page.evaluate((b, t) => window.judge.share(b, t), png.toString('base64'), TOLERANCE),
    /** Keeps `png` as the reference named `name`, beside the main one; resolves with its `[width, height]`. */
    keep: (name, png) => page.evaluate((n, b) => window.judge.keep(n, b), name, png.toString('base64')),
    /** The share (0–1) of the pixels of `png` that differ from the reference named `name`. */
    shareWith: (name, png) =>
      page.evaluate((n, b, t) => window.judge.shareWith(n, b, t), name, png.toString('base64'), TOLERANCE),
    /**
     * Marks the pixels of reference `name` that differ from the same pixel of each of the references named in
     * `others` (what that view alone shows); resolves with their share of the picture.
     */
    distinct: (name, others) => page.evaluate((n, o, t) => window.judge.distinct(n, o, t), name, others, TOLERANCE),
    /** Of the pixels marked by `distinct(name, …)`, the share (0–1) that `png` shows as reference `name` does. */
    likeness: (name, png) =>
      page.evaluate((n, b, t) => window.judge.likeness(n, b, t), name, png.toString('base64'), TOLERANCE),
    close: () => page.close(),
  };
}

/**
 * Screenshots of `clip` until two in a row are the same (a share of 0 between them): the view has settled. The
 * last one becomes the judge's reference, and is what this resolves with; rejects after `tries` screenshots that
 * never settle.
 */
export async function settled(page, clip, judged, { tries = 40 } = {}) {
  let previous = await shoot(page, clip);
  for (let i = 1; i < tries; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const next = await shoot(page, clip);
    await judged.reference(previous);
    if ((await judged.share(next)) === 0) {
      await judged.reference(next);
      return next;
    }
    previous = next;
  }
  throw new Error(`the view did not settle in ${tries} screenshots`);
}

/**
 * The shares of a film against the reference, and what they add up to: `worst` (the largest share), `over` (how many
 * screenshots differ in more than `threshold`), and `longestMs`: the longest stretch in which screenshots differ in
 * more than `threshold`, from when the first of them was asked for to when the next screenshot that does not was (or
 * to when the film's last one came). 0 when none does. `intervalMs` is the median time between two screenshots: no change shorter than about that is seen.
 */
export async function score(shots, judged, threshold = THRESHOLD) {
  const shares = [];
  for (const shot of shots) shares.push(await judged.share(shot.png));
  let longestMs = 0;
  let from;
  for (let i = 0; i <= shots.length; i++) {
    const over = i < shots.length && shares[i] > threshold;
    if (over && from === undefined) from = shots[i].at;
    if (!over && from !== undefined) {
      longestMs = Math.max(longestMs, (i < shots.length ? shots[i].at : shots[i - 1].end) - from);
      from = undefined;
    }
  }
  const gaps = shots
    .slice(1)
    .map((s, i) => s.at - shots[i].at)
    .sort((a, b) => a - b);
  return {
    shots: shots.length,
    missed: shots.missed ?? 0,
    worst: Math.max(0, ...shares),
    over: shares.filter((s) => s > threshold).length,
    longestMs,
    intervalMs: gaps.length ? gaps[gaps.length >> 1] : undefined,
    shares,
  };
}
