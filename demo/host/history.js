// Back, Forward and links: two dashboards, each kept in a query parameter of this page's address by
// svc-embed/history. The page shows its own address as it changes, and logs each navigation with what it did to the
// address: a new entry, the entry replaced, or nothing (the embed followed the address).
import { syncHistory } from '/cdn/svc-embed-history.min.js';
import { openPage, statusText } from './events.js';

const $ = (id) => document.getElementById(id);
const EMBEDS = [
  { param: 'sales', tenant: 'acme', path: '/embed/dashboard/sales-overview' },
  { param: 'app', tenant: 'acme', path: '/embed/app' },
];

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children);
  return node;
};

const clock = () => new Date().toLocaleTimeString('en-GB', { hour12: false });

/** The address as an address bar shows it, without the scheme. */
const address = () => `${location.host}${location.pathname}${location.search}${location.hash}`;

/** A line of the page's log, newest first: `badge` says who, `text` what happened. */
function note(badge, text) {
  const entry = el(
    'li',
    { className: 'entry note ev-note' },
    el(
      'div',
      {},
      el('div', { className: 'entry-head' }, el('span', { className: 'badge' }, badge), el('time', {}, clock())),
      el('div', { className: 'entry-sum' }, text),
    ),
  );
  const log = $('log');
  log.prepend(entry);
  while (log.children.length > 40) log.lastChild.remove();
}

/** Shows the address, each embed's parameter (or that it is absent), history.length and the link to open. */
function showAddress() {
  $('url').textContent = address();
  const query = new URLSearchParams(location.search);
  $('params').replaceChildren(
    ...EMBEDS.flatMap(({ param }) => {
      const value = query.get(param);
      return [
        el('dt', {}, param),
        el('dd', {}, value === null ? el('em', {}, 'absent: its first view') : el('code', {}, value)),
      ];
    }),
  );
  $('length').textContent = String(history.length);
  $('open').href = location.href;
}

/** The address and history.length as the log last saw them, so that each navigation says what it did. */
let seen = { search: location.search, length: history.length };
const look = () => {
  const now = { search: location.search, length: history.length };
  const was = seen;
  seen = now;
  if (now.length > was.length) return `a new entry: ${now.search}`;
  if (now.search !== was.search) return `the entry replaced: ${now.search}`;
  return 'the address stays';
};

async function main() {
  const config = await openPage();
  if (!config) return;
  const { tenantOrigin } = config;
  showAddress();
  note(
    'opened',
    location.search
      ? `at ${location.search}: each embed opens at its parameter's path, and no entry is added`
      : 'no parameter: each embed opens at its first view. Navigate inside one of them.',
  );

  for (const { param, tenant, path } of EMBEDS) {
    const embed = $(param);
    // A single-use session per frame, minted by this page's backend when the frame is about to load.
    embed.sessionProvider = async () => {
      const res = await fetch(`/session?tenant=${tenant}`);
      if (!res.ok) throw new Error(`GET /session answered ${res.status}`);
      return (await res.json()).session;
    };
    embed.setAttribute('src', new URL(path, tenantOrigin).href);
    // Started with the parameter present, it opens the embed there (the element shows its loading state until then).
    syncHistory(embed, { param });

    // The module's listeners came first: when these run, it has already written the address, or left it.
    embed.addEventListener('svc-status', (e) => {
      const pill = $(`state-${param}`);
      pill.dataset.state = e.detail.status;
      pill.textContent = statusText(e.detail.status, e.detail.reason);
    });
    embed.addEventListener('svc-view', (e) => {
      $(`at-${param}`).textContent = `at ${e.detail.payload.path}`;
    });
    embed.addEventListener('svc-navigate', (e) => {
      const { previousPath, path: to } = e.detail.payload;
      const what = embed.status === 'ready' ? look() : 'the address stays (still loading)';
      note(param, `${previousPath ?? '?'} → ${to} · ${what}`);
      showAddress();
    });
  }

  addEventListener('popstate', () => {
    seen = { search: location.search, length: history.length };
    note('Back/Forward', `now ${location.search || 'no parameter'}: the dashboards follow`);
    showAddress();
  });
  $('back').addEventListener('click', () => history.back());
  $('forward').addEventListener('click', () => history.go(1));
  $('copy').addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(location.href);
      $('copied').textContent = 'Copied: open it in a new tab.';
    } catch {
      $('copied').textContent = 'Copying was refused here: copy the address bar.';
    }
  });
}

main();
