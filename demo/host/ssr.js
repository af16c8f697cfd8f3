// The server-rendered page (/ssr): its HTML holds the dashboard's frame, rendered by the demo's server with
// svc-embed/ssr, so the frame started loading while the browser parsed the HTML. Importing the element's bundle here
// defines <svc-embed>, which adopts that frame at its first update and replays what the frame said before (kept by
// the early-message script). The page shows when each step happened, from navigation start (performance.now()).
import '/cdn/svc-embed.min.js';
import { hostConfig, statusText } from './events.js';

const $ = (id) => document.getElementById(id);
const embed = $('sales');
const ms = (t) => `${Math.round(t).toLocaleString('en-US')} ms`;

/** Writes a time into its row, and keeps the number for tests (`data-ms`). */
function mark(id, t) {
  $(id).textContent = ms(t);
  $(id).dataset.ms = String(Math.round(t));
}

// The bundle has run: the element is defined, and connected with the server's frame kept in its shadow root (the
// first update, a microtask away, adopts it). Nothing here may wait: the provider must be in place at that update,
// when a refused session among the replayed messages asks for a new one.
mark('t-defined', performance.now());
const serverFrame = embed?.shadowRoot?.querySelector('iframe') ?? null;

if (embed) {
  let calls = 0;
  // A single-use session per frame, from this page's backend: for the loads the session in the HTML cannot serve
  // (a copy of the page from a cache, a frame whose old URL the browser restored, a renewal). None at the first load.
  embed.sessionProvider = async ({ reason }) => {
    calls++;
    $('provider').textContent = `${calls} (last: ${reason})`;
    const res = await fetch('/session?tenant=acme');
    if (!res.ok) throw new Error(`GET /session answered ${res.status}`);
    return (await res.json()).session;
  };

  const showFrame = () => {
    const frame = embed.shadowRoot?.querySelector('iframe[part=frame]');
    $('frame').textContent = !frame
      ? 'none'
      : frame === serverFrame
        ? 'adopted: the one in the HTML'
        : serverFrame
          ? 'replaced by the element'
          : 'made by the element (no declarative shadow DOM here)';
    const session = frame && new URL(frame.src).searchParams.get('session');
    $('session').textContent = session
      ? `…${session.slice(-6)}${calls ? ' (from the provider)' : ', minted for this page load'}`
      : '—';
  };

  embed.addEventListener('svc-status', (e) => {
    const pill = $('state');
    pill.dataset.state = e.detail.status;
    pill.textContent = statusText(e.detail.status, e.detail.reason);
  });
  embed.addEventListener('svc-ready', () => {
    if (!$('t-ready').dataset.ms) mark('t-ready', performance.now());
    showFrame();
  });
  embed.addEventListener('svc-dashboard-loaded', () => {
    if (!$('t-dashboard').dataset.ms) mark('t-dashboard', performance.now());
  });
} else {
  $('state').dataset.state = 'error';
  $('state').textContent = 'no element in the HTML';
}

const [navigation] = performance.getEntriesByType('navigation');
if (navigation) mark('t-html', navigation.responseEnd);

hostConfig().then(({ tenantOrigin }) => {
  $('tenant-origin').textContent = tenantOrigin;
  // The frame's own request, as the page's resource timing reports it once the frame has loaded.
  const frameEntry = (entries) =>
    entries.find((e) => e.initiatorType === 'iframe' && e.name.startsWith(`${tenantOrigin}/embed/`));
  const found = frameEntry(performance.getEntriesByType('resource'));
  if (found) return mark('t-frame', found.startTime);
  $('t-frame').textContent = 'not reported yet';
  new PerformanceObserver((list, observer) => {
    const entry = frameEntry(list.getEntries());
    if (!entry) return;
    mark('t-frame', entry.startTime);
    observer.disconnect();
  }).observe({ type: 'resource' });
});
