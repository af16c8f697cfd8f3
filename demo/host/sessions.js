// Four embeds of one tenant, each with a session provider of its own: the service's sessions are single-use, so each
// frame loads a session minted for it (at load, and at each renewal ahead of expiry, behind its visible frame).
import { openPage, statusText } from './events.js';

const $ = (id) => document.getElementById(id);
// Sessions of 20 s, or `?ttl=<seconds>` (the accessibility check asks for long ones, so that no swap lands mid-check).
const TTL = /^[1-9][0-9]{0,4}$/.test(new URLSearchParams(location.search).get('ttl') ?? '')
  ? Number(new URLSearchParams(location.search).get('ttl'))
  : 20;
// Each element's dashboard and the in-embed path it goes to once ready.
const BOARDS = [
  ['sales-overview', '/'],
  ['support-ops', '/'],
  ['sales-overview', '/details'],
  ['support-ops', '/'],
];

let calls = 0;
let swaps = 0;
let statuses = 0;
let expiresAt = 0;

function note(text) {
  const item = document.createElement('li');
  item.className = 'entry note ev-note';
  item.textContent = `${new Date().toLocaleTimeString('en-GB', { hour12: false })} · ${text}`;
  $('log').prepend(item);
  while ($('log').children.length > 60) $('log').lastChild.remove();
}

/** This page's backend, asked for a session that lasts 20 s: `{ session, expiresAt }`. */
async function mint() {
  const res = await fetch(`/session?tenant=acme&ttl=${TTL}`);
  if (!res.ok) throw new Error(`GET /session answered ${res.status}`);
  const { session, expiresAt: at } = await res.json();
  expiresAt = Math.max(expiresAt, Date.parse(at));
  return { session, expiresAt: at };
}

/** The provider of one element: a session minted for each of its frames. Shows the end of the session it gave. */
function providerFor(title, shown) {
  return async ({ reason }) => {
    calls++;
    $('calls').textContent = String(calls);
    note(`${title}: sessionProvider called (${reason}): GET /session?tenant=acme&ttl=${TTL}`);
    const answer = await mint();
    shown.textContent = `session …${answer.session.slice(-6)}`;
    return answer;
  };
}

function tick() {
  const left = Math.ceil((expiresAt - Date.now()) / 1000);
  $('countdown').textContent = expiresAt ? `the session in view ends in ${Math.max(left, 0)} s` : '';
}

async function main() {
  const config = await openPage();
  if (!config) return;
  const { tenantOrigin } = config;
  $('ttl').textContent = String(TTL);
  // No session in the URL: each element asks its provider when its frame is about to load.
  for (const [i, [board, path]] of BOARDS.entries()) {
    const embed = $(`embed-${i + 1}`);
    const state = $(`state-${i + 1}`);
    const { title } = embed;
    embed.sessionProvider = providerFor(title, $(`session-${i + 1}`));
    embed.setAttribute('src', new URL(`/embed/dashboard/${board}`, tenantOrigin).href);
    let ready = false;
    embed.addEventListener('svc-status', (e) => {
      state.dataset.state = e.detail.status;
      state.textContent = statusText(e.detail.status, e.detail.reason);
      if (ready) $('statuses').textContent = String(++statuses);
    });
    embed.addEventListener('svc-ready', () => {
      if (!ready) {
        ready = true;
        if (path !== '/') embed.navigate(path);
        return;
      }
      $('swaps').textContent = String(++swaps);
      note(`${title}: the new session's frame took over, on the viewer's page; status stayed ready`);
    });
    embed.addEventListener('svc-session-renewal-failed', (e) =>
      note(`${title}: renewal attempt ${e.detail.attempt} failed (${e.detail.reason}); the visible frame stays`),
    );
  }
  setInterval(tick, 250);
}

main();
