// The bench's embed, on the second origin: says ready on load, then posts bursts of valid events to its
// host when the host asks.
import { MESSAGES, READY } from './messages.js';

const host = new URLSearchParams(location.search).get('host');
parent.postMessage({ ...READY, timestamp: Date.now() }, host);

addEventListener('message', (event) => {
  if (event.source !== parent || event.origin !== host || event.data?.cmd !== 'burst') return;
  const n = event.data.n;
  const k = MESSAGES.length;
  for (let i = 0; i < n; i++) parent.postMessage(MESSAGES[i % k], host);
});
