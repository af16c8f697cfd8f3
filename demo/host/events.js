// Host-side helpers shared by the demo pages: a readable event log and a readiness indicator for
// one <svc-embed>. Every value from the embed is shown as text, never as markup.

export const EVENT_NAMES = ['svc-ready', 'svc-view', 'svc-navigate', 'svc-dashboard-loaded', 'svc-download', 'svc-drilldown',
  'svc-ai-query', 'svc-error', 'svc-message-rejected', 'svc-config-error'];

const el = (tag, props = {}, ...children) => {
  const node = Object.assign(document.createElement(tag), props);
  node.append(...children.filter((c) => c !== null && c !== undefined));
  return node;
};

/** A one-line summary of an event, for the log's headline. */
function summary(name, detail) {
  const p = detail?.payload ?? {};
  switch (name) {
    case 'svc-ready': return `${p.mode} · tenant ${p.embedTenant ?? '—'} · deployment ${p.deploymentId ?? '—'}`;
    case 'svc-view': return `${p.path}${p.title ? ` · ${p.title}` : ''}`;
    case 'svc-navigate': return `${p.previousPath ?? '?'} → ${p.path}`;
    case 'svc-dashboard-loaded': return `${p.widgetCount} widgets in ${p.loadDurationMs} ms`;
    case 'svc-download': return `${p.format} · ${p.target}${p.rowCount !== undefined ? ` · ${p.rowCount} rows` : ''}`;
    case 'svc-drilldown': return `${p.member} = ${JSON.stringify(p.value)}`;
    case 'svc-ai-query': return `${p.status} · “${p.query}”`;
    case 'svc-error': return `${p.fatal ? 'fatal' : 'recoverable'} · ${p.message}`;
    case 'svc-message-rejected': return detail?.reason ?? '';
    case 'svc-config-error': return detail?.message ?? detail?.reason ?? '';
    default: return '';
  }
}

/**
 * Logs every svc-* event of `embed` into the list `list`, keeps per-event counters in `counts`
 * (optional) and reflects readiness in `stateEl`.
 */
export function attachLog(embed, { list, counts, stateEl, empty, max = 200 }) {
  const tally = new Map();
  const renderCounts = () => {
    if (!counts) return;
    counts.replaceChildren(...[...tally].map(([name, n]) => el('span', { className: `count ev-${name}`, title: name }, `${name.slice(4)} ${n}`)));
  };
  const setState = (state, text) => {
    stateEl.dataset.state = state;
    stateEl.textContent = text;
  };
  for (const name of EVENT_NAMES) {
    embed.addEventListener(name, (event) => {
      const detail = event.detail;
      tally.set(name, (tally.get(name) ?? 0) + 1);
      renderCounts();
      const time = new Date(detail?.timestamp ?? Date.now());
      const entry = el('li', { className: `entry ev-${name}` },
        el('div', { className: 'entry-head' },
          el('span', { className: 'badge' }, name),
          detail?.surface ? el('span', { className: 'surface' }, detail.surface) : null,
          el('time', {}, time.toLocaleTimeString(undefined, { hour12: false }) + `.${String(time.getMilliseconds()).padStart(3, '0')}`)),
        el('div', { className: 'entry-sum' }, summary(name, detail)),
        el('details', {}, el('summary', {}, 'detail'), el('pre', {}, JSON.stringify(detail, null, 2))));
      entry.dataset.event = name;
      list.prepend(entry);
      while (list.children.length > max) list.lastChild.remove();
      if (empty) empty.hidden = true;
      if (name === 'svc-ready') setState('ready', `ready · ${detail.payload.mode}`);
      if (name === 'svc-error' && detail.payload.fatal) setState('failed', 'failed · fatal error');
      if (name === 'svc-config-error') setState('failed', 'config error');
    });
  }
  return {
    /** A new src: a new session, so readiness starts over. */
    loading() {
      setState('loading', 'loading…');
    },
    clear() {
      list.replaceChildren();
      tally.clear();
      renderCounts();
      if (empty) empty.hidden = false;
    },
  };
}

/** Resolves the tenant origin from the host server's /config.json. */
export async function tenantOrigin() {
  const res = await fetch('/config.json');
  return (await res.json()).tenantOrigin;
}

/** Waits for <svc-embed> to be defined; false when the bundle is missing. */
export async function elementReady(timeoutMs = 4000) {
  return Promise.race([
    customElements.whenDefined('svc-embed').then(() => true),
    new Promise((r) => setTimeout(() => r(false), timeoutMs)),
  ]);
}
