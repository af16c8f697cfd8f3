// Route changes to a ready dashboard on the simulated tenant (bench/suites/lifecycle.mjs, routesSuite): three
// dashboards prerendered with svc-embed/prerender and switched with show()/park(), against a fresh <svc-embed> per
// route. Each switch is timed from the switch to the first animation frame that shows a ready dashboard: the element
// `ready`, on a frame that has said ready.
import { park, prerender, show } from '/cdn/svc-embed-prerender.min.js';

const outlet = document.getElementById('outlet');
const saidReady = new WeakSet();
addEventListener('message', (e) => {
  if (e.data?.type === 'svc:event:ready' && e.source) saidReady.add(e.source);
});
const onView = (el) => el.status === 'ready' && saidReady.has(el.shadowRoot?.querySelector('iframe')?.contentWindow);

/** Resolves with the ms from `t0` to the first animation frame in which `el` shows a ready dashboard. */
function readyFrame(el, t0) {
  return new Promise((resolve) => {
    const sample = (now) => (onView(el) ? resolve(now - t0) : requestAnimationFrame(sample));
    requestAnimationFrame(sample);
  });
}

/** The route of switch `n` (the warm-up round is -1). */
const at = (list, n) => list[((n % list.length) + list.length) % list.length];

const srcs = (tenant) =>
  ['dashboard/sales-overview', 'dashboard/support-ops', 'app'].map((b) => `${tenant}/embed/${b}?session=demo-acme`);

let embeds = [];
let current;

/** Prerenders the three dashboards and waits until each is ready. */
async function setup(tenant) {
  embeds = srcs(tenant).map((src) => prerender({ src }, { width: 960, height: 600 }));
  await Promise.all(embeds.map((el) => el.whenReady()));
}

/** One switch to the next prerendered dashboard: ms to a ready dashboard on view. */
function prerendered(n) {
  const next = at(embeds, n);
  const t0 = performance.now();
  for (const el of [...outlet.children]) if (!embeds.includes(el)) el.remove();
  if (current) park(current);
  show(next, outlet);
  current = next;
  return readyFrame(next, t0);
}

/** One switch by a new <svc-embed> for the route (the old one removed): ms to a ready dashboard on view. */
function created(tenant, n) {
  const src = at(srcs(tenant), n);
  const t0 = performance.now();
  if (current) park(current);
  current = undefined;
  outlet.replaceChildren();
  const el = document.createElement('svc-embed');
  el.src = src;
  outlet.append(el);
  return readyFrame(el, t0);
}

/** `n` switches among the prerendered embeds, as fast as they show; for the leak check. */
async function switches(n) {
  for (let i = 0; i < n; i++) await prerendered(i);
}

/** Removes everything: the prerendered embeds and any created one. */
function teardown() {
  for (const el of embeds) el.remove();
  embeds = [];
  current = undefined;
  outlet.replaceChildren();
}

window.bench = { setup, prerendered, created, switches, teardown };
