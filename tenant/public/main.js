// The simulated embed: one page for the dashboard, app and chat surfaces. It verifies the session,
// says ready, then renders its surface and applies the host's actions.
import { parseFilterParam } from '/embed/protocol/index.js';
import { whenSessionExpires } from './api.js';
import { h } from './dom.js';
import { createBridge } from './bridge.js';
import { Dashboard } from './dashboard.js';
import { Chat } from './chat.js';
import { fmtTime, onLocale, setLocale, t } from './i18n.js';

const root = document.getElementById('root');
const params = new URLSearchParams(location.search);
const match = /^\/embed\/(?:dashboard\/([A-Za-z0-9_-]{1,64})|(app|chat))\/?$/.exec(location.pathname);
const surface = match?.[1] ? 'dashboard' : match?.[2] ?? 'dashboard';
const publicId = match?.[1];
// A repeated session is passed on as it came, so the tenant can refuse it: reading the first one
// (or none) would turn an ambiguous URL into a valid session, or into private mode.
const sessions = params.getAll('session');
const session = sessions[0];
// Export is a grant: only one unambiguous allowExport=true turns it on.
const allowExport = params.getAll('allowExport').join() === 'true';
const allowOrigins = (document.querySelector('meta[name="svc-allow-origins"]')?.content ?? '').split(' ').filter(Boolean);
const EXPIRED = 'The embed session has expired. Ask the host application for a new session.';

// ---- debug panel: every action in, every event out, every refused message

const debugList = h('ol', { class: 'debug-list' });
const debugCount = h('span', { class: 'debug-count' }, '0');
let rejectedCount = 0;
const failButton = h('button', { type: 'button', class: 'btn small', 'data-action': 'fail-widget' }, 'Fail a widget');
const debugPanel = h('div', { class: 'debug', 'data-open': 'false' },
  h('button', { type: 'button', class: 'debug-toggle', 'aria-expanded': 'false', onclick: () => {
    const open = debugPanel.dataset.open !== 'true';
    debugPanel.dataset.open = String(open);
    debugPanel.firstChild.setAttribute('aria-expanded', String(open));
  } }, h('span', { class: 'debug-label' }, t('debug')), debugCount),
  h('div', { class: 'debug-body' },
    h('p', { class: 'debug-info' }, `surface ${surface} · session ${session === undefined ? 'none (private)' : 'given'} · export ${allowExport ? 'on' : 'off'}`),
    h('div', { class: 'debug-tools' }, failButton, h('button', { type: 'button', class: 'btn small', onclick: () => debugList.replaceChildren() }, 'Clear')),
    debugList));

function log(entry) {
  const mark = { in: '⇠ action', out: '⇢ event', note: '• note' }[entry.dir] ?? '✕ rejected';
  const li = h('li', { class: `dbg ${entry.dir}`, 'data-dir': entry.dir },
    h('time', {}, fmtTime(new Date())), h('span', { class: 'dbg-dir' }, mark),
    h('code', {}, entry.type ?? '(unknown type)'),
    entry.reason ? h('span', { class: 'dbg-reason' }, entry.reason) : null);
  debugList.prepend(li);
  while (debugList.children.length > 60) debugList.lastChild.remove();
  if (entry.dir === 'rejected') {
    rejectedCount++;
    debugCount.textContent = String(rejectedCount);
    debugPanel.dataset.rejected = 'true';
  }
}

// ---- visible state the actions change

const prefersDark = matchMedia('(prefers-color-scheme: dark)');
let scheme = 'auto';
function applyScheme(next) {
  scheme = next;
  const effective = scheme === 'auto' ? (prefersDark.matches ? 'dark' : 'light') : scheme;
  document.documentElement.dataset.scheme = scheme;
  document.documentElement.dataset.effectiveScheme = effective;
  document.documentElement.style.colorScheme = effective;
}
prefersDark.addEventListener('change', () => applyScheme(scheme));
applyScheme('auto');

/** Applies the theme fields this embed understands; a value that is not valid CSS is refused. */
function applyTheme(theme) {
  const style = document.documentElement.style;
  const known = { primaryColor: ['--primary', 'color'], borderRadius: ['--radius', 'border-radius'], font: ['--font', 'font-family'] };
  const problems = [];
  const plan = [];
  for (const [field, value] of Object.entries(theme)) {
    if (!Object.hasOwn(known, field)) continue;
    const [prop, cssProp] = known[field];
    const css = field === 'borderRadius' && typeof value === 'number' ? `${value}px` : value;
    if (typeof css !== 'string' || !CSS.supports(cssProp, css)) problems.push(`${field}: not a valid ${cssProp}`);
    else plan.push([prop, css]);
  }
  if (problems.length) throw new Error(`theme refused: ${problems.join('; ')}`);
  for (const [prop, css] of plan) style.setProperty(prop, css);
  const ignored = Object.keys(theme).filter((k) => !Object.hasOwn(known, k));
  if (ignored.length) log({ dir: 'note', type: 'svc:action:set-theme', reason: `fields this embed does not use: ${ignored.join(', ')}` });
}

// ---- shared context of the surface

const ctx = { session, allowExport, filters: new Map(), failNext: new Set(), dimensions: {}, log };
let bridge;
let current = { path: undefined, refresh: () => {}, relabel: () => {} };

let dead = false;
let expiryTimer;
/** Takes the surface down: the error card replaces it, the host hears one fatal error, then nothing. */
function fatal(name, message, context) {
  if (dead) return;
  dead = true;
  clearTimeout(expiryTimer);
  root.className = 'fatal';
  root.dataset.error = name;
  root.removeAttribute('aria-busy');
  root.replaceChildren(h('div', { class: 'fatal-card', role: 'alert' },
    h('div', { class: 'fatal-icon', 'aria-hidden': 'true' }, '!'), h('h1', {}, name === 'SessionExpiredError' ? 'Session expired' : 'This embed cannot be shown'),
    h('p', {}, message)), debugPanel);
  bridge.emit('svc:event:error', { message, name, context, fatal: true });
  bridge.close();
}

// A demo-<tenant>-ttl<N> session ends N seconds after the tenant first saw it. The tenant refuses its
// queries from then on; the timer makes the embed say so even when it is idle.
const expire = () => fatal('SessionExpiredError', EXPIRED, 'auth');
whenSessionExpires(expire);

// ---- surfaces

function dashboardSurface(boot) {
  const def = boot.dashboards[publicId];
  const dash = new Dashboard({ publicId, def, href: (p) => p, emit: bridge.emit, go: (p) => router.go(p), ctx });
  return {
    route(path) {
      const title = dash.show(path);
      if (title === undefined) return undefined;
      root.replaceChildren(dash.el, debugPanel);
      return `${def.title} · ${title}`;
    },
    refresh: () => dash.load(),
    filtersChanged: () => dash.load(),
    relabel: () => dash.rerender(),
    failWidget: () => dash.failOne(),
  };
}

function chatSurface() {
  const chat = new Chat({ emit: bridge.emit, session });
  const frame = (body) => h('div', { class: 'chat-shell' },
    h('header', { class: 'chat-head' }, h('div', { class: 'avatar', 'aria-hidden': 'true' }, '✦'),
      h('div', {}, h('h1', {}, 'Sales analyst'), h('p', { class: 'muted' }, 'Ask about revenue, orders, regions, channels and accounts.'))),
    body);
  return {
    route(path) {
      if (path === '/') root.replaceChildren(frame(chat.el), debugPanel);
      else if (path === '/new') {
        chat.messages.replaceChildren();
        chat.chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
        root.replaceChildren(frame(chat.el), debugPanel);
      } else return undefined;
      return 'AI chat';
    },
    refresh: () => {},
    filtersChanged: () => {},
    relabel: () => chat.relabel(),
  };
}

function appSurface(boot) {
  const chat = new Chat({ emit: bridge.emit, session });
  // The app is not the dashboard surface: dashboard-only events are not reported from it (spec 6).
  const appEmit = (type, payload) => {
    if (!['svc:event:dashboard-loaded', 'svc:event:download', 'svc:event:drilldown'].includes(type)) bridge.emit(type, payload);
  };
  const dashboards = new Map(Object.entries(boot.dashboards).map(([id, def]) => [id,
    new Dashboard({ publicId: id, def, href: (p) => `/dashboards/${id}${p === '/' ? '' : p}`, emit: appEmit, go: (p) => router.go(p), ctx: { ...ctx, allowExport: false } })]));
  const workbooks = [
    { id: 'q3-planning', title: 'Q3 planning', owner: 'Grace Hopper', updated: '2025-09-12' },
    { id: 'pipeline-review', title: 'Pipeline review', owner: 'Alan Turing', updated: '2025-10-02' },
    { id: 'support-capacity', title: 'Support capacity', owner: 'Radia Perlman', updated: '2025-11-20' },
  ];
  let active;
  const nav = () => h('nav', { class: 'app-nav' },
    h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'), 'Analytics'),
    [['/', t('home')], ['/workbooks', t('workbooks')], ['/dashboards/sales-overview', 'Sales overview'], ['/dashboards/support-ops', 'Support operations'], ['/chat', t('chat')]]
      .map(([p, label]) => h('a', { href: '#', class: `nav-item${active === p || (p !== '/' && active?.startsWith(`${p}/`)) ? ' active' : ''}`, 'data-path': p,
        onclick: (e) => {
          e.preventDefault();
          router.go(p);
        } }, label)));
  const card = (title, sub, path) => h('a', { href: '#', class: 'card link-card', onclick: (e) => {
    e.preventDefault();
    router.go(path);
  } }, h('h2', {}, title), h('p', { class: 'muted' }, sub));
  const pages = {
    '/': () => ['Home', h('div', { class: 'app-page' }, h('h1', {}, t('home')),
      h('div', { class: 'cards' }, card('Sales overview', 'Dashboard · Production', '/dashboards/sales-overview'),
        card('Support operations', 'Dashboard · Staging', '/dashboards/support-ops'),
        ...workbooks.map((w) => card(w.title, `Workbook · ${w.owner}`, `/workbooks/${w.id}`)), card(t('chat'), 'Sales analyst agent', '/chat')))],
    '/workbooks': () => [t('workbooks'), h('div', { class: 'app-page' }, h('h1', {}, t('workbooks')),
      h('table', { class: 'data' }, h('thead', {}, h('tr', {}, h('th', {}, 'Name'), h('th', {}, 'Owner'), h('th', {}, 'Updated'))),
        h('tbody', {}, workbooks.map((w) => h('tr', {}, h('td', {}, h('a', { href: '#', onclick: (e) => {
          e.preventDefault();
          router.go(`/workbooks/${w.id}`);
        } }, w.title)), h('td', {}, w.owner), h('td', {}, w.updated))))))],
    '/chat': () => [t('chat'), h('div', { class: 'app-page chat-page' }, h('h1', {}, t('chat')), chat.el)],
  };
  return {
    route(path) {
      let title;
      let body;
      const wb = /^\/workbooks\/([a-z0-9-]+)$/.exec(path);
      const db = /^\/dashboards\/([a-z0-9-]+)(\/[a-z]+)?$/.exec(path);
      if (Object.hasOwn(pages, path)) [title, body] = pages[path]();
      else if (wb && workbooks.some((w) => w.id === wb[1])) {
        const w = workbooks.find((x) => x.id === wb[1]);
        title = w.title;
        const sheet = h('div', { class: 'skeleton' }, h('span'), h('span'), h('span'));
        body = h('div', { class: 'app-page' }, h('h1', {}, w.title), h('p', { class: 'muted' }, `Workbook by ${w.owner} · updated ${w.updated}`),
          h('article', { class: 'card' }, h('header', { class: 'card-head' }, h('h2', {}, 'Sheet 1 · accounts')), sheet));
        const sales = dashboards.get('sales-overview');
        const widget = sales.def.pages['/'].widgets.find((x) => x.kind === 'table');
        sales.fetchJson(sales.queryUrl(widget, { all: true }))
          .then((data) => sheet.replaceWith(sales.table(widget, data, false)))
          .catch((error) => sheet.replaceWith(h('p', { class: 'widget-error' }, error.message)));
      } else if (db && dashboards.has(db[1])) {
        const dash = dashboards.get(db[1]);
        const pageTitle = dash.show(db[2] ?? '/');
        if (pageTitle === undefined) return undefined;
        title = `${dash.def.title} · ${pageTitle}`;
        body = dash.el;
        this.dash = dash;
      } else return undefined;
      if (!db) this.dash = undefined;
      active = path;
      root.replaceChildren(h('div', { class: 'app' }, nav(), h('main', { class: 'app-main' }, body)), debugPanel);
      return title;
    },
    refresh() {
      this.dash?.load();
    },
    filtersChanged() {
      this.dash?.load();
    },
    failWidget() {
      this.dash?.failOne();
    },
    relabel() {
      chat.relabel();
      router.go(router.path, { force: true, silent: true });
    },
  };
}

// ---- router: view on load and on every route change, navigate on every change

const router = {
  path: undefined,
  go(path, { force = false, silent = false } = {}) {
    if (path === this.path && !force) return;
    const previousPath = this.path;
    let title = current.route(path);
    if (title === undefined) {
      title = t('notFound');
      root.replaceChildren(h('div', { class: 'not-found' }, h('h1', {}, t('notFound')), h('p', { class: 'muted' }, path),
        h('button', { type: 'button', class: 'btn', onclick: () => this.go('/') }, t('home'))), debugPanel);
    }
    this.path = path;
    if (silent) return;
    if (previousPath !== undefined) bridge.emit('svc:event:navigate', { path, previousPath });
    bridge.emit('svc:event:view', { surface, path, ...(publicId ? { publicId } : {}), title });
  },
};

function onAction({ type, payload }) {
  switch (type) {
    case 'svc:action:set-color-scheme':
      applyScheme(payload.scheme);
      break;
    case 'svc:action:set-theme':
      applyTheme(payload);
      break;
    case 'svc:action:set-locale':
      setLocale(payload.locale);
      break;
    case 'svc:action:set-filter': {
      const f = parseFilterParam(payload.filterUrlParameter);
      const key = `${f.view}.${f.dimension}`;
      if (f.value === null) ctx.filters.delete(key);
      else ctx.filters.set(key, f);
      current.filtersChanged();
      break;
    }
    case 'svc:action:navigate':
      router.go(payload.path);
      break;
    case 'svc:action:refresh':
      current.refresh();
      break;
  }
}

async function main() {
  let boot;
  let problem;
  const q = new URLSearchParams({ surface, ...(publicId ? { publicId } : {}) });
  for (const s of sessions) q.append('session', s);
  try {
    const res = await fetch(`/embed/api/bootstrap?${q}`);
    const body = await res.json();
    if (res.ok) boot = body;
    else problem = body.error ?? { name: 'Error', message: `HTTP ${res.status}` };
  } catch {
    problem = { name: 'NetworkError', message: 'The analytics service could not be reached.' };
  }
  bridge = createBridge({ surface, allowOrigins, onAction, onLog: log });
  failButton.disabled = surface === 'chat';
  failButton.addEventListener('click', () => current.failWidget?.());
  if (!boot) {
    const context = { DashboardNotFoundError: 'dashboard', NetworkError: 'network' }[problem.name] ?? 'auth';
    fatal(problem.name, problem.message, context);
    return;
  }
  for (const [name, view] of Object.entries(boot.views)) ctx.dimensions[name] = view.dimensions;
  current = surface === 'dashboard' ? dashboardSurface(boot) : surface === 'app' ? appSurface(boot) : chatSurface(boot);
  onLocale(() => {
    debugPanel.querySelector('.debug-label').textContent = t('debug');
    current.relabel();
  });
  root.className = `surface-${surface}`;
  root.removeAttribute('aria-busy');
  bridge.emit('svc:event:ready', {
    embedTenant: boot.embedTenant, deploymentId: boot.deploymentId, mode: boot.mode, surface, ...(publicId ? { publicId } : {}),
  });
  router.go('/');
  if (Number.isFinite(boot.expiresInMs)) expiryTimer = setTimeout(expire, Math.max(0, boot.expiresInMs));
}

main();
