// Route changes, two ways: three embeds prerendered with svc-embed/prerender and moved into view, against a new
// <svc-embed> per route. Each click is timed to the first animation frame that shows a ready dashboard.
import { park, prerender, show } from '/cdn/svc-embed-prerender.min.js';
import { openPage } from './events.js';

const $ = (id) => document.getElementById(id);
const ROUTES = [
  ['sales', 'Sales', '/embed/dashboard/sales-overview'],
  ['support', 'Support', '/embed/dashboard/support-ops'],
  ['app', 'App', '/embed/app'],
];

/**
 * Resolves with the ms from `t0` to the first animation frame in which `el` is ready. A frame's time is when it
 * began, which can be just before the click was handled: that frame shows the click's outcome, at 0 ms.
 */
function readyFrame(el, t0) {
  return new Promise((resolve) => {
    const sample = (now) => (el.status === 'ready' ? resolve(Math.max(0, now - t0)) : requestAnimationFrame(sample));
    requestAnimationFrame(sample);
  });
}

function tabs(side, onPick) {
  const list = document.querySelector(`.tabs[data-side="${side}"]`);
  for (const [route, label] of ROUTES) {
    const tab = Object.assign(document.createElement('button'), { type: 'button', textContent: label });
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-selected', 'false');
    tab.dataset.route = route;
    list.append(tab);
  }
  list.addEventListener('click', async (e) => {
    const tab = e.target.closest('button[data-route]');
    if (!tab) return;
    for (const t of list.children) t.setAttribute('aria-selected', String(t === tab));
    const t0 = performance.now();
    const { el, how } = onPick(tab.dataset.route);
    $(`timing-${side}`).textContent = `${tab.textContent}: waiting for ready…`;
    const ms = await readyFrame(el, t0);
    $(`timing-${side}`).textContent =
      `${tab.textContent}: a ready dashboard ${ms.toFixed(0)} ms after the click (${how})`;
    $(`timing-${side}`).dataset.ms = String(Math.round(ms));
  });
}

async function main() {
  const config = await openPage();
  if (!config) return;
  const { tenantOrigin } = config;
  const url = (path) => `${tenantOrigin}${path}`;
  // No session in the URLs: each element asks for one when a frame of it is about to load (at first, and again when
  // show() reloads it), and this page's backend mints a single-use session for that frame.
  const sessionProvider = async () => {
    const res = await fetch('/session?tenant=acme');
    if (!res.ok) throw new Error(`GET /session answered ${res.status}`);
    return (await res.json()).session;
  };

  // Left: made once, parked off-screen at the outlet's size, live from the start.
  const outlet = $('outlet-prerendered');
  const { width, height } = outlet.getBoundingClientRect();
  const embeds = Object.fromEntries(
    ROUTES.map(([route, label, path]) => [
      route,
      prerender({ src: url(path), title: `${label} (prerendered)`, sessionProvider }, { width, height }),
    ]),
  );
  // Until a route is picked, the outlet says what is parked off-screen, and how much of it is ready.
  const prerendered = Object.values(embeds);
  const readyCount = () => {
    const n = prerendered.filter((el) => el.status === 'ready').length;
    $('prerender-state').textContent =
      n === prerendered.length ? 'All three are ready.' : `${n} of ${prerendered.length} ready…`;
  };
  for (const el of prerendered) el.addEventListener('svc-status', readyCount);
  readyCount();
  let shown;
  tabs('prerendered', (route) => {
    if (shown) park(shown);
    shown = embeds[route];
    return { el: shown, how: `show() says ${show(shown, outlet)}` };
  });

  // Right: a new element for every route change.
  tabs('created', (route) => {
    const [, label, path] = ROUTES.find(([r]) => r === route);
    const el = document.createElement('svc-embed');
    el.title = `${label} (created per route)`;
    el.sessionProvider = sessionProvider;
    el.src = url(path);
    const outlet = $('outlet-created');
    outlet.querySelector('svc-embed')?.remove();
    outlet.append(el);
    return { el, how: 'a new <svc-embed>' };
  });
}

main();
