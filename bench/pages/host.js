// The bench's host page (first origin). `window.bench` is driven by the harness over puppeteer:
// `setup(variant)` embeds the bench embed as one of the variants below and waits for its ready; then
// `burst`, `synthetic` and `flood` measure the message path; `timeToReady` and `cycles` measure a fresh
// embed each time. Variants:
//   element   <svc-embed> from the built bundle /cdn/svc-embed.min.js, counting its svc-* events
//   bare      an iframe and a bare `message` listener that checks source, origin and data.source
//   dispatch  the same, plus one CustomEvent dispatch per message (the floor of any element)
//   validate  the same, with the event read by the protocol's readEvent (every rule of docs/protocol.md, "Validation"),
//             refused when it carries transferred ports (as the element refuses it), and its detail
//             dispatched: the floor of any host that keeps the element's rules
import { elementLikeFrame } from './embed-frame.js';
import { MESSAGES, NAMES } from './messages.js';

const embedOrigin = new URLSearchParams(location.search).get('embed');
const embedUrl = `${embedOrigin}/embed.html?host=${encodeURIComponent(location.origin)}`;
const BUNDLE = '/cdn/svc-embed.min.js';
const names = Object.values(NAMES);

let win; // the embed's window
let count = 0;
let goal = 0;
let finish = () => {};
let first = () => {};
// Counts a handled message.
const tick = () => {
  if (++count === goal) finish();
  else if (count === 1) first();
};

/** The floor's listener: the three checks every host must make, then `onValid`. */
function bareListener(frameWindow, onValid) {
  return (event) => {
    if (event.source !== frameWindow || event.origin !== embedOrigin) return;
    const data = event.data;
    if (data === null || typeof data !== 'object' || data.source !== 'svc-embed') return;
    onValid(event);
  };
}

function bareFrame() {
  const frame = document.createElement('iframe');
  frame.src = embedUrl;
  document.body.append(frame);
  return frame;
}

const firstMessage = (frame) =>
  new Promise((resolve) => {
    const onMessage = (event) => {
      if (event.source !== frame.contentWindow) return;
      removeEventListener('message', onMessage);
      resolve();
    };
    addEventListener('message', onMessage);
  });

const setups = {
  async element() {
    await import(BUNDLE);
    const el = document.createElement('svc-embed');
    el.readyTimeout = 0;
    const ready = new Promise((resolve) => el.addEventListener('svc-ready', resolve, { once: true }));
    el.src = embedUrl;
    document.body.append(el);
    await ready;
    for (const name of names) el.addEventListener(name, tick);
    win = el.shadowRoot.querySelector('iframe').contentWindow;
  },
  async bare() {
    const frame = bareFrame();
    win = frame.contentWindow;
    await firstMessage(frame);
    addEventListener('message', bareListener(win, tick));
  },
  async dispatch() {
    const target = await dispatchTarget();
    addEventListener(
      'message',
      bareListener(win, (event) => {
        target.dispatchEvent(
          new CustomEvent(NAMES[event.data.type], { detail: event.data, bubbles: true, composed: true }),
        );
      }),
    );
  },
  async validate() {
    const { readEvent } = await import('/protocol/index.js');
    const target = await dispatchTarget();
    addEventListener(
      'message',
      bareListener(win, (event) => {
        const detail = readEvent(event.data);
        if (!('reason' in detail) && !event.ports.length)
          target.dispatchEvent(new CustomEvent(NAMES[detail.type], { detail, bubbles: true, composed: true }));
      }),
    );
  },
};

/** The element-like target that counts the DOM events, and the bare frame, once it has spoken. */
async function dispatchTarget() {
  const target = document.createElement('div');
  document.body.append(target);
  for (const name of names) target.addEventListener(name, tick);
  const frame = bareFrame();
  win = frame.contentWindow;
  await firstMessage(frame);
  return target;
}

let parked;

/**
 * One embed frame that stays for the page's life, so that the embed site's renderer process stays alive:
 * each fresh embed then measures a mount and a load, not the start of a process.
 */
async function park() {
  if (parked) return;
  parked = bareFrame();
  await firstMessage(parked);
}

window.bench = {
  setup(variant) {
    return setups[variant]();
  },

  /**
   * Has the embed post `n` valid events; resolves once all were handled, with the wall time in ms. With
   * `fromFirst`, the clock starts at the first message handled (when the embed shares the host's thread,
   * its whole burst is queued before the first one runs, so the figure is the host's alone).
   */
  burst(n, { fromFirst = false } = {}) {
    count = 0;
    goal = n;
    return new Promise((resolve) => {
      let t0 = performance.now();
      finish = () => {
        const ms = performance.now() - t0;
        first = () => {};
        resolve({ ms });
      };
      if (fromFirst)
        first = () => {
          t0 = performance.now();
        };
      win.postMessage({ cmd: 'burst', n }, embedOrigin);
    });
  },

  /** Dispatches `n` synthetic MessageEvents from the embed's window (no IPC); returns the wall time in ms. */
  synthetic(n) {
    count = 0;
    goal = n;
    finish = () => {};
    const k = MESSAGES.length;
    const t0 = performance.now();
    for (let i = 0; i < n; i++)
      dispatchEvent(new MessageEvent('message', { data: MESSAGES[i % k], origin: embedOrigin, source: win }));
    const ms = performance.now() - t0;
    if (count !== n) throw new Error(`synthetic: ${count} of ${n} messages handled`);
    return ms;
  },

  /** Dispatches `n` messages the gate must ignore (the page posting to itself); returns the wall time in ms. */
  flood(n) {
    count = 0;
    goal = Infinity;
    const data = { type: 'hot-update', hash: 'a1b2c3' };
    const t0 = performance.now();
    for (let i = 0; i < n; i++)
      dispatchEvent(new MessageEvent('message', { data, origin: location.origin, source: window }));
    const ms = performance.now() - t0;
    if (count !== 0) throw new Error(`flood: ${count} foreign messages were handled`);
    return ms;
  },

  /** A fresh embed of `variant` (element or bare): ms from its insertion to its ready; then it is removed. */
  async timeToReady(variant) {
    if (variant === 'element') await import(BUNDLE);
    await park();
    const t0 = performance.now();
    let node;
    if (variant === 'element') {
      node = document.createElement('svc-embed');
      const ready = new Promise((resolve) => node.addEventListener('svc-ready', resolve, { once: true }));
      node.src = embedUrl;
      document.body.append(node);
      await ready;
    } else {
      node = document.createElement('iframe');
      node.src = embedUrl;
      const ready = new Promise((resolve) => {
        const onMessage = (event) => {
          if (
            event.source !== node.contentWindow ||
            event.origin !== embedOrigin ||
            event.data?.type !== 'svc:event:ready'
          )
            return;
          removeEventListener('message', onMessage);
          resolve();
        };
        addEventListener('message', onMessage);
      });
      document.body.append(node);
      await ready;
    }
    const ms = performance.now() - t0;
    node.remove();
    return ms;
  },

  /**
   * `n` mount/unmount cycles: insert a fresh embed, let it start (its frame is in the document and
   * loading), remove it. `element` is <svc-embed>; `lit` is the least element built on Lit can be
   * (bench/floor/lit-element.js: a shadow root, the iframe, a listener); `bare` is an iframe with the same
   * attributes and a window `message` listener, both removed again. Returns the wall time in ms.
   */
  async cycles(variant, n) {
    const tag = { element: 'svc-embed', lit: 'bench-lit-floor' }[variant];
    if (variant === 'element') await import(BUNDLE);
    if (variant === 'lit') await import('/lit-floor.js');
    await park();
    const listener = () => {};
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      if (tag) {
        const el = document.createElement(tag);
        el.src = embedUrl;
        document.body.append(el);
        await el.updateComplete;
        el.remove();
      } else {
        const frame = elementLikeFrame(document, embedUrl);
        addEventListener('message', listener);
        document.body.append(frame);
        await null;
        frame.remove();
        removeEventListener('message', listener);
      }
    }
    return performance.now() - t0;
  },
};
