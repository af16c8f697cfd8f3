// Host-side helpers shared by the demo pages: a readable log of one <svc-embed> (the events that came
// in, the actions that went out, the status changes, and the page's own notes) and its status pill.
// Every value from the embed is shown as text, never as markup.

import { EVENT_TYPES, domEventName } from '/dist/protocol/index.js';

/** The embed's events, re-dispatched by the element, and the element's own reports of what it refused. */
export const EVENT_NAMES = [...EVENT_TYPES.map(domEventName), 'svc-message-rejected', 'svc-config-error'];

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined && c !== false));
  return node;
};

/** A one-line summary of an incoming event. */
function summary(name, detail) {
  const p = detail?.payload ?? {};
  switch (name) {
    case 'svc-ready':
      return `${p.mode} · tenant ${p.embedTenant ?? '—'} · deployment ${p.deploymentId ?? '—'}`;
    case 'svc-view':
      return `${p.path}${p.title ? ` · ${p.title}` : ''}`;
    case 'svc-navigate':
      return `${p.previousPath ?? '?'} → ${p.path}`;
    case 'svc-dashboard-loaded':
      return `${p.widgetCount} widgets in ${p.loadDurationMs} ms`;
    case 'svc-download':
      return `${p.format} · ${p.target}${p.rowCount !== undefined ? ` · ${p.rowCount} rows` : ''}`;
    case 'svc-drilldown':
      return `${p.member} = ${JSON.stringify(p.value)}`;
    case 'svc-ai-query':
      return `${p.status} · “${p.query}”`;
    case 'svc-error':
      return `${p.fatal ? 'fatal' : 'recoverable'}${p.name ? ` · ${p.name}` : ''} · ${p.message}`;
    case 'svc-message-rejected':
      return detail?.reason ?? '';
    case 'svc-config-error':
      return `${detail?.reason} · ${detail?.message}`;
    default:
      return '';
  }
}

/** A one-line summary of an outgoing action's payload. */
function actionSummary({ type, payload }) {
  switch (type) {
    case 'svc:action:set-theme':
      return Object.entries(payload)
        .map(([k, v]) => `${k} ${v}`)
        .join(' · ');
    case 'svc:action:set-color-scheme':
      return payload.scheme;
    case 'svc:action:set-locale':
      return payload.locale;
    case 'svc:action:set-filter':
      return payload.filterUrlParameter;
    case 'svc:action:navigate':
      return payload.path;
    default:
      return '';
  }
}

const clock = (ms) => {
  const time = new Date(ms);
  return `${time.toLocaleTimeString('en-GB', { hour12: false })}.${String(time.getMilliseconds()).padStart(3, '0')}`;
};

/** What the status pill says for a status and its reason. */
export function statusText(status, reason) {
  if (status === 'loading') return reason === 'session-renewal' ? 'renewing session…' : 'loading…';
  return reason ? `${status} · ${reason}` : status;
}

/**
 * Logs `embed` into the list `list`: events in (←), actions out (→, a quick run of themes folded
 * into one entry), status changes (●) and the page's notes (◆). Keeps per-kind counters in
 * `counts` (optional) and the status pill `stateEl` up to date.
 */
export function attachLog(embed, { list, counts, stateEl, empty, max = 200 }) {
  const tally = new Map();
  let last;
  const renderCounts = () => {
    if (!counts) return;
    counts.replaceChildren(
      ...[...tally].map(([name, n]) =>
        el('span', { className: `count ev-${name}`, title: name }, `${name.replace(/^svc-/, '')} ${n}`),
      ),
    );
  };
  const count = (name) => {
    tally.set(name, (tally.get(name) ?? 0) + 1);
    renderCounts();
  };

  /** Adds an entry: `kind` is in, out, status or note; `badge` its name; `text` the headline; `more` below it. */
  function add({ kind, badge, cls, text, more, detail, surface }) {
    // Every entry is stamped when this page received it (the embed's own timestamp is in the detail).
    const at = Date.now();
    const mark = { in: '←', out: '→', status: '●', note: '◆' }[kind];
    const dir = { in: 'from the embed', out: 'sent to the embed', status: 'element status', note: 'this page' }[kind];
    const times = el('span', { className: 'times' });
    const head = el(
      'div',
      { className: 'entry-head' },
      el('span', { className: 'dir', title: dir }, mark),
      el('span', { className: 'badge' }, badge),
      times,
      el('time', {}, clock(at)),
    );
    const body = [
      head,
      text ? el('div', { className: 'entry-sum' }, text) : null,
      more ? el('div', { className: 'entry-more' }, more) : null,
    ];
    // An entry with a detail opens on a click to show it, with the surface it came from.
    const entry = el(
      'li',
      { className: `entry ${kind} ${cls ?? ''}` },
      detail === undefined
        ? el('div', {}, ...body)
        : el(
            'details',
            {},
            el('summary', {}, ...body),
            el('pre', {}, `${surface ? `surface: ${surface}\n` : ''}${JSON.stringify(detail, null, 2)}`),
          ),
    );
    entry.dataset.kind = kind;
    list.prepend(entry);
    while (list.children.length > max) list.lastChild.remove();
    if (empty) empty.hidden = true;
    return { entry, times, n: 1 };
  }

  for (const name of EVENT_NAMES) {
    embed.addEventListener(name, (event) => {
      const detail = event.detail;
      count(name);
      last = add({
        kind: 'in',
        badge: name,
        cls: `ev-${name}`,
        text: summary(name, detail),
        detail,
        surface: detail?.surface,
      });
      last.entry.dataset.event = name;
      if (name === 'svc-ready' && stateEl) stateEl.textContent = `ready · ${detail.payload.mode}`;
    });
  }

  embed.addEventListener('svc-action', (event) => {
    const detail = event.detail;
    const short = detail.type.replace('svc:action:', '');
    count('svc-action');
    // A slider or a colour picker sends a theme per step: fold such a run into one entry that counts
    // them. Every other action, a filter say, keeps an entry of its own.
    if (detail.type === 'svc:action:set-theme' && last?.action === detail.type && Date.now() - last.at < 2000) {
      last.n += 1;
      last.at = Date.now();
      last.times.textContent = `×${last.n}`;
      last.entry.querySelector('.entry-sum').textContent = actionSummary(detail) || '{}';
      last.entry.querySelector('pre').textContent = JSON.stringify(detail, null, 2);
      last.entry.querySelector('time').textContent = clock(Date.now());
      return;
    }
    last = add({ kind: 'out', badge: short, cls: 'ev-svc-action', text: actionSummary(detail) || '{}', detail });
    last.entry.dataset.event = 'svc-action';
    last.entry.dataset.action = detail.type;
    last.action = detail.type;
    last.at = Date.now();
  });

  embed.addEventListener('svc-status', (event) => {
    const { status, previous, reason, message } = event.detail;
    count('svc-status');
    last = add({
      kind: 'status',
      badge: 'svc-status',
      cls: `ev-svc-status st-${status}`,
      text: `${previous} → ${status}${reason ? ` · ${reason}` : ''}`,
      more: message,
      detail: event.detail,
    });
    last.entry.dataset.event = 'svc-status';
    last.entry.dataset.status = status;
    if (stateEl) {
      stateEl.dataset.state = status;
      stateEl.textContent = statusText(status, reason);
    }
  });

  return {
    /** A line from the page itself, e.g. what a scenario does next. */
    note(text) {
      last = add({ kind: 'note', badge: 'host', cls: 'ev-note', text });
      last.entry.dataset.event = 'note';
    },
    clear() {
      list.replaceChildren();
      tally.clear();
      last = undefined;
      renderCounts();
      if (empty) empty.hidden = false;
    },
  };
}

/** Resolves the demo host's configuration: the tenant origin, and the origin of a tenant that refuses this page. */
export async function hostConfig() {
  const res = await fetch('/config.json');
  return res.json();
}

/** Waits for <svc-embed> to be defined; false when the bundle is missing. */
export async function elementReady(timeoutMs = 4000) {
  return Promise.race([
    customElements.whenDefined('svc-embed').then(() => true),
    new Promise((r) => setTimeout(() => r(false), timeoutMs)),
  ]);
}

/**
 * What every demo page does first: waits for <svc-embed> (or shows the page's build warning and resolves with
 * undefined), then reads the host's configuration and shows the tenant origin in the header.
 */
export async function openPage() {
  if (!(await elementReady())) {
    document.getElementById('build-warning').hidden = false;
    return undefined;
  }
  const config = await hostConfig();
  document.getElementById('tenant-origin').textContent = config.tenantOrigin;
  return config;
}
