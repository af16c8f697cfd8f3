// The simulated embed: one page for the dashboard, app and chat surfaces. It verifies the session,
// says ready, then renders its surface and applies the host's actions.
import { parseFilterParam, pathProblem, publicIdProblem } from '/embed/protocol/index.js';
import { useToken, whenSessionExpires } from './api.js';
import { h } from './dom.js';
import { createBridge } from './bridge.js';
import { Dashboard } from './dashboard.js';
import { Chat } from './chat.js';
import { STRINGS, fmtDate, fmtTime, getLocale, onLocale, setLocale, t } from './i18n.js';

const root = document.getElementById('root');
const params = new URLSearchParams(location.search);
// The public-id rule is the element's own (the tenant serves only ids it accepts).
const match = /^\/embed\/(?:dashboard\/([^/]+)|(app|chat))\/?$/.exec(location.pathname);
const surface = match?.[1] ? 'dashboard' : (match?.[2] ?? 'dashboard');
const publicId = match?.[1] && !publicIdProblem(match[1]) ? match[1] : undefined;
// A repeated session is passed on as it came, so the tenant can refuse it: reading the first one
// (or none) would turn an ambiguous URL into a valid session, or into private mode.
const sessions = params.getAll('session');
const session = sessions[0];
// Export is a grant: only one unambiguous allowExport=true turns it on.
const allowExport = params.getAll('allowExport').join() === 'true';
const allowOrigins = (document.querySelector('meta[name="svc-allow-origins"]')?.content ?? '')
  .split(' ')
  .filter(Boolean);
// The history switch (startTenant's embedHistory, --embed-history, or embedHistory=1 in this frame's URL): the embed
// keeps its own history as a single-page app's router does. Each navigation the viewer makes pushes one entry (which
// joins the tab's history), a navigation the host asks for replaces the current one, and Back or Forward inside the
// frame routes to the entry's path.
const embedHistory =
  document.querySelector('meta[name="svc-embed-history"]')?.content === 'on' ||
  params.getAll('embedHistory').join() === '1';
const EXPIRED = 'The embed session has expired. Ask the host application for a new session.';

// ---- debug panel: every action in, every event out, every refused message. Its toggle sits in the
// surface's own header (never over the surface's content) and the list opens under it. Message types
// and the reasons of refusals are the protocol's words, so they are not translated.

const debugList = h('ol', { class: 'debug-list' });
const debugCount = h('span', { class: 'debug-count' }, '0');
const debugLabel = h('span', { class: 'debug-label' });
const debugInfo = h('p', { class: 'debug-info' });
let rejectedCount = 0;
const failButton = h('button', { type: 'button', class: 'btn small', 'data-action': 'fail-widget' });
const clearButton = h('button', { type: 'button', class: 'btn small', onclick: () => debugList.replaceChildren() });
const debugToggle = h(
  'button',
  {
    type: 'button',
    class: 'debug-toggle',
    'aria-expanded': 'false',
    onclick: () => {
      const open = debugPanel.dataset.open !== 'true';
      debugPanel.dataset.open = String(open);
      debugToggle.setAttribute('aria-expanded', String(open));
    },
  },
  debugLabel,
  debugCount,
);
const debugPanel = h(
  'div',
  { class: 'debug', 'data-open': 'false' },
  debugToggle,
  h('div', { class: 'debug-body' }, debugInfo, h('div', { class: 'debug-tools' }, failButton, clearButton), debugList),
);

function relabelDebug() {
  debugLabel.textContent = t('debug');
  failButton.textContent = t('failWidget');
  clearButton.textContent = t('clear');
  debugInfo.textContent = t('debugInfo', {
    surface,
    session: t(session === undefined ? 'sessionNone' : 'sessionGiven'),
    export: t(allowExport ? 'on' : 'off'),
  });
  for (const li of debugList.children) {
    li.querySelector('.dbg-dir').textContent = t(`dir.${li.dataset.dir}`);
    li.querySelector('time').textContent = fmtTime(new Date(Number(li.dataset.at)));
  }
}
relabelDebug();
document.querySelector('.spinner')?.setAttribute('aria-label', t('loading'));

function log(entry) {
  const at = Date.now();
  const li = h(
    'li',
    { class: `dbg ${entry.dir}`, 'data-dir': entry.dir, 'data-at': at },
    h('time', {}, fmtTime(new Date(at))),
    h('span', { class: 'dbg-dir' }, t(`dir.${entry.dir}`)),
    h('code', { translate: 'no' }, entry.type ?? '(unknown type)'),
    entry.reason ? h('span', { class: 'dbg-reason', translate: 'no' }, entry.reason) : null,
  );
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
  const known = {
    primaryColor: ['--primary', 'color'],
    borderRadius: ['--radius', 'border-radius'],
    font: ['--font', 'font-family'],
  };
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
  if (ignored.length)
    log({ dir: 'note', type: 'svc:action:set-theme', reason: `fields this embed does not use: ${ignored.join(', ')}` });
}

// ---- the host's locale, kept for the next load of this frame
// The host's locale arrives after ready, so a reloaded frame (a new surface, a renewed session) would draw its first
// view, and title the view event it sends, in the browser's language. The locale the host last set for this embed
// tenant is kept for the tab (two embeds of one page may be set apart), and a reload starts in it.

const localeKey = (embedTenant) => `svc-embed.locale.${embedTenant ?? ''}`;
let keptFor;

function keptLocale(embedTenant) {
  try {
    return sessionStorage.getItem(localeKey(embedTenant)) ?? undefined;
  } catch {
    return undefined; // storage refused (a browser setting): the browser's language, as before
  }
}

function keepLocale() {
  try {
    if (keptFor !== undefined) sessionStorage.setItem(localeKey(keptFor.embedTenant), getLocale());
  } catch {
    // Nothing kept: the next load starts in the browser's language.
  }
}

// ---- shared context of the surface

const ctx = { session, allowExport, filters: new Map(), failNext: new Set(), dimensions: {}, log, debug: debugPanel };
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
  // The host hears the tenant's message; the viewer reads one in their language.
  const key = Object.hasOwn(STRINGS.en, `fatal.${name}`) ? name : 'other';
  root.replaceChildren(
    h(
      'main',
      {},
      h(
        'div',
        { class: 'fatal-card', role: 'alert' },
        h('div', { class: 'fatal-icon', 'aria-hidden': 'true' }, '!'),
        h('h1', {}, t(`fatal.${key}`)),
        h('p', {}, t(`fatal.${key}.text`)),
        debugPanel,
      ),
    ),
  );
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
      root.replaceChildren(h('main', {}, dash.el));
      return `${t(`dash.${publicId}`)} · ${title}`;
    },
    refresh: () => dash.load(),
    filtersChanged: () => dash.load(),
    relabel: () => dash.rerender(),
    failWidget: () => dash.failOne(),
  };
}

function chatSurface() {
  const chat = new Chat({ emit: bridge.emit, session: ctx.session });
  const head = () =>
    h(
      'header',
      { class: 'chat-head' },
      h('div', { class: 'avatar', 'aria-hidden': 'true' }, '✦'),
      h('div', { class: 'chat-title' }, h('h1', {}, t('analyst')), h('p', { class: 'muted' }, t('analystSub'))),
      debugPanel,
    );
  return {
    route(path) {
      if (path === '/new') {
        chat.clear();
        chat.chatId = `chat-${crypto.randomUUID().slice(0, 8)}`;
      } else if (path !== '/') return undefined;
      root.replaceChildren(h('main', { class: 'chat-shell' }, head(), chat.el));
      return t('chat');
    },
    refresh: () => {},
    filtersChanged: () => {},
    relabel() {
      chat.relabel();
      root.querySelector('.chat-head')?.replaceWith(head());
    },
  };
}

function appSurface(boot) {
  const chat = new Chat({ emit: bridge.emit, session: ctx.session });
  // The app is not the dashboard surface: dashboard-only events are not reported from it (docs/protocol.md, "Events").
  const appEmit = (type, payload) => {
    if (!['svc:event:dashboard-loaded', 'svc:event:download', 'svc:event:drilldown'].includes(type))
      bridge.emit(type, payload);
  };
  // The app's side navigation holds the debug toggle, so its dashboards do not.
  const dashboards = new Map(
    Object.entries(boot.dashboards).map(([id, def]) => [
      id,
      new Dashboard({
        publicId: id,
        def,
        href: (p) => `/dashboards/${id}${p === '/' ? '' : p}`,
        emit: appEmit,
        go: (p) => router.go(p),
        ctx: { ...ctx, allowExport: false, debug: undefined },
      }),
    ]),
  );
  // Workbooks are the customer's content: their titles and owners are data, shown as stored.
  const workbooks = [
    { id: 'q3-planning', title: 'Q3 planning', owner: 'Grace Hopper', updated: '2025-09-12' },
    { id: 'pipeline-review', title: 'Pipeline review', owner: 'Alan Turing', updated: '2025-10-02' },
    { id: 'support-capacity', title: 'Support capacity', owner: 'Radia Perlman', updated: '2025-11-20' },
  ];
  const go = (path) => (e) => {
    e.preventDefault();
    router.go(path);
  };
  let active;
  const nav = () =>
    h(
      'nav',
      { class: 'app-nav' },
      h('div', { class: 'brand' }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'), t('brand')),
      [
        ['/', t('home')],
        ['/workbooks', t('workbooks')],
        ['/dashboards/sales-overview', t('dash.sales-overview')],
        ['/dashboards/support-ops', t('dash.support-ops')],
        ['/chat', t('chat')],
      ].map(([p, label]) =>
        h(
          'a',
          {
            href: '#',
            class: `nav-item${active === p || (p !== '/' && active?.startsWith(`${p}/`)) ? ' active' : ''}`,
            'data-path': p,
            onclick: go(p),
          },
          label,
        ),
      ),
      h('div', { class: 'nav-foot' }, debugPanel),
    );
  const card = (title, sub, path, data) =>
    h(
      'a',
      { href: '#', class: 'card link-card', onclick: go(path) },
      h('h2', { translate: data ? 'no' : undefined }, title),
      h('p', { class: 'muted' }, sub),
    );
  const pages = {
    '/': () => [
      t('home'),
      h(
        'div',
        { class: 'app-page' },
        h('h1', {}, t('home')),
        h(
          'div',
          { class: 'cards' },
          card(t('dash.sales-overview'), t('dashProd'), '/dashboards/sales-overview'),
          card(t('dash.support-ops'), t('dashStaging'), '/dashboards/support-ops'),
          ...workbooks.map((w) => card(w.title, t('workbookCard', { owner: w.owner }), `/workbooks/${w.id}`, true)),
          card(t('chat'), t('agentCard'), '/chat'),
        ),
      ),
    ],
    '/workbooks': () => [
      t('workbooks'),
      h(
        'div',
        { class: 'app-page' },
        h('h1', {}, t('workbooks')),
        h(
          'table',
          { class: 'data' },
          h(
            'thead',
            {},
            h('tr', {}, h('th', {}, t('colName')), h('th', {}, t('colOwner')), h('th', {}, t('colUpdated'))),
          ),
          h(
            'tbody',
            {},
            workbooks.map((w) =>
              h(
                'tr',
                {},
                h('td', { translate: 'no' }, h('a', { href: '#', onclick: go(`/workbooks/${w.id}`) }, w.title)),
                h('td', { translate: 'no' }, w.owner),
                h('td', {}, fmtDate(w.updated)),
              ),
            ),
          ),
        ),
      ),
    ],
    '/chat': () => [t('chat'), h('div', { class: 'app-page chat-page' }, h('h1', {}, t('chat')), chat.el)],
  };
  return {
    route(path, { relabel = false } = {}) {
      let title;
      let body;
      const wb = /^\/workbooks\/([a-z0-9-]+)$/.exec(path);
      const db = /^\/dashboards\/([a-z0-9-]+)(\/[a-z]+)?$/.exec(path);
      if (Object.hasOwn(pages, path)) [title, body] = pages[path]();
      else if (wb && workbooks.some((w) => w.id === wb[1])) {
        const w = workbooks.find((x) => x.id === wb[1]);
        title = w.title;
        const sheet = h('div', { class: 'skeleton' }, h('span'), h('span'), h('span'));
        body = h(
          'div',
          { class: 'app-page' },
          h('h1', { translate: 'no' }, w.title),
          h('p', { class: 'muted' }, t('workbookBy', { owner: w.owner, date: fmtDate(w.updated) })),
          h('article', { class: 'card' }, h('header', { class: 'card-head' }, h('h2', {}, t('sheet'))), sheet),
        );
        const sales = dashboards.get('sales-overview');
        const widget = sales.def.pages['/'].widgets.find((x) => x.kind === 'table');
        sales
          .fetchJson(sales.queryUrl(widget, { all: true }))
          .then((data) => sheet.replaceWith(sales.table(widget, data, false)))
          .catch(() => sheet.replaceWith(h('p', { class: 'widget-error' }, t('queryFailed'))));
      } else if (db && dashboards.has(db[1])) {
        const dash = dashboards.get(db[1]);
        const page = db[2] ?? '/';
        // A new language redraws the dashboard from its results; only a visit runs its queries.
        const pageTitle =
          relabel && dash === this.dash && dash.page === page ? (dash.rerender(), t(`page.${page}`)) : dash.show(page);
        if (pageTitle === undefined) return undefined;
        title = `${t(`dash.${db[1]}`)} · ${pageTitle}`;
        body = dash.el;
        this.dash = dash;
      } else return undefined;
      if (!db) this.dash = undefined;
      active = path;
      root.replaceChildren(h('div', { class: 'app' }, nav(), h('main', { class: 'app-main' }, body)));
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
      router.go(router.path, { force: true, silent: true, relabel: true });
    },
  };
}

// ---- router: view on load and on every route change, navigate on every change

const router = {
  path: undefined,
  /**
   * Shows `path`, and tells the host (navigate, when it is not the first view, and view). `from` says who asked:
   * 'viewer' (a click in the embed), 'host' (svc:action:navigate) or 'history' (the frame's own Back or Forward);
   * with the history switch, the first pushes an entry and the second replaces the current one.
   */
  go(path, { force = false, silent = false, relabel = false, from = 'viewer' } = {}) {
    if (path === this.path && !force) return;
    if (embedHistory && !silent && this.path !== undefined && from !== 'history') {
      // The path is in the state and in the fragment (the frame's URL keeps its session and parameters).
      const url = `${location.pathname}${location.search}#${encodeURI(path)}`;
      if (from === 'host') history.replaceState({ svcEmbedPath: path }, '', url);
      else history.pushState({ svcEmbedPath: path }, '', url);
    }
    const previousPath = this.path;
    let title = current.route(path, { relabel });
    this.missing = title === undefined;
    if (this.missing) {
      title = t('notFound');
      root.replaceChildren(
        h(
          'main',
          { class: 'not-found' },
          h('h1', {}, t('notFound')),
          h('p', { class: 'muted', translate: 'no' }, path),
          h('button', { type: 'button', class: 'btn', onclick: () => this.go('/') }, t('home')),
          debugPanel,
        ),
      );
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
      keepLocale();
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
      router.go(payload.path, { from: 'host' });
      break;
    case 'svc:action:refresh':
      current.refresh();
      break;
  }
}

// startDelay=<ms> (up to 10 s) makes the embed start late, so a host page's loading state can be seen.
const startDelay =
  params.getAll('startDelay').length === 1 ? Math.min(10000, Math.max(0, Number(params.get('startDelay')) || 0)) : 0;

async function main() {
  let boot;
  let problem;
  if (startDelay) await new Promise((r) => setTimeout(r, startDelay));
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
  // A minted session was exchanged: it is spent, and this document's calls present the token from now on.
  if (typeof boot.token === 'string') {
    useToken(boot.token);
    ctx.session = undefined;
  }
  for (const [name, view] of Object.entries(boot.views)) ctx.dimensions[name] = view.dimensions;
  keptFor = { embedTenant: boot.embedTenant };
  const kept = keptLocale(boot.embedTenant);
  if (kept !== undefined) {
    try {
      setLocale(kept);
      relabelDebug();
    } catch {
      // Not a tag (storage is the tab's to change): the browser's language.
    }
  }
  current = surface === 'dashboard' ? dashboardSurface(boot) : surface === 'app' ? appSurface(boot) : chatSurface(boot);
  onLocale(() => {
    relabelDebug();
    // The "page not found" view belongs to the router, not to the surface.
    if (router.missing) router.go(router.path, { force: true, silent: true });
    else current.relabel();
  });
  root.className = `surface-${surface}`;
  root.removeAttribute('aria-busy');
  bridge.emit('svc:event:ready', {
    embedTenant: boot.embedTenant,
    deploymentId: boot.deploymentId,
    mode: boot.mode,
    surface,
    ...(publicId ? { publicId } : {}),
  });
  router.go('/');
  if (embedHistory) {
    // The first entry names the first view, so that Back to it routes there.
    history.replaceState({ svcEmbedPath: '/' }, '', `${location.pathname}${location.search}#/`);
    addEventListener('popstate', (e) => {
      const path = e.state?.svcEmbedPath;
      if (typeof path === 'string' && !pathProblem(path) && !dead) router.go(path, { from: 'history' });
    });
  }
  if (Number.isFinite(boot.expiresInMs)) expiryTimer = setTimeout(expire, Math.max(0, boot.expiresInMs));
}

main();
