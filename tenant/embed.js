// The embed side of the simulated tenant: the surface pages (one shell, routed in the browser), the
// static assets and the small JSON API the surfaces query. Pages may be framed only by the allowed host
// origins (CSP frame-ancestors), which are also the only origins the embed accepts actions from.
import { readFile } from 'node:fs/promises';
import { parseFilterParam } from '../dist/protocol/index.js';
import { DASHBOARDS, VIEWS, answer, runWidget } from './datasets.js';

const SHELL = new URL('./embed.html', import.meta.url);
const SURFACE_PATH = /^\/embed\/(?:dashboard\/([A-Za-z0-9_-]{1,64})|(app|chat))\/?$/;

/**
 * The session rules of the demo: no session → private mode; `expired` → expired; any `demo-<tenant>[-…]`
 * is a valid signed session for embed tenant `<tenant>`; anything else is invalid.
 */
export function resolveSession(raw) {
  if (raw === undefined) return { ok: true, mode: 'private', embedTenant: null };
  if (raw === 'expired') return { ok: false, name: 'SessionExpiredError', message: 'The embed session has expired. Ask the host application for a new session.' };
  const m = /^demo-([A-Za-z0-9]{1,32})(?:[-_][A-Za-z0-9_-]{0,40})?$/.exec(raw);
  if (!m) return { ok: false, name: 'InvalidSessionError', message: 'The embed session is not valid.' };
  return { ok: true, mode: 'signed', embedTenant: m[1].toLowerCase() };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
// A little latency makes loading states and loadDurationMs real rather than zero.
const latency = (min, max) => sleep(min + Math.random() * (max - min));

function one(ctx, name) {
  const v = ctx.query[name];
  return Array.isArray(v) ? undefined : v;
}

function fail(ctx, status, name, message) {
  ctx.status = status;
  ctx.body = { error: { name, message } };
}

/** Checks the session of an API call; answers 401 and returns undefined when it is not valid. */
function session(ctx) {
  const s = resolveSession(one(ctx, 'session'));
  if (!s.ok) fail(ctx, 401, s.name, s.message);
  return s.ok ? s : undefined;
}

function bootstrap(ctx) {
  const surface = one(ctx, 'surface');
  if (!['dashboard', 'app', 'chat'].includes(surface)) return fail(ctx, 400, 'BadRequest', 'surface: must be dashboard, app or chat');
  const s = session(ctx);
  if (!s) return;
  const publicId = one(ctx, 'publicId');
  let dashboard;
  if (surface === 'dashboard') {
    dashboard = Object.hasOwn(DASHBOARDS, publicId ?? '') ? DASHBOARDS[publicId] : undefined;
    if (!dashboard) return fail(ctx, 404, 'DashboardNotFoundError', 'This dashboard does not exist or is not shared with this embed.');
  }
  ctx.body = {
    mode: s.mode,
    embedTenant: s.embedTenant,
    deploymentId: dashboard ? dashboard.deploymentId : 1,
    views: Object.fromEntries(Object.entries(VIEWS).map(([name, v]) => [name, { dimensions: v.dimensions }])),
    dashboards: Object.fromEntries(Object.entries(DASHBOARDS).map(([id, d]) => [id, {
      title: d.title, view: d.view, deploymentId: d.deploymentId,
      pages: Object.fromEntries(Object.entries(d.pages).map(([p, page]) => [p, { title: page.title, widgets: page.widgets }])),
    }])),
  };
}

async function query(ctx) {
  if (!session(ctx)) return;
  const dashboard = Object.hasOwn(DASHBOARDS, one(ctx, 'publicId') ?? '') ? DASHBOARDS[one(ctx, 'publicId')] : undefined;
  const widgetId = one(ctx, 'widget');
  const widget = dashboard && Object.values(dashboard.pages).flatMap((p) => p.widgets).find((w) => w.id === widgetId);
  if (!widget) return fail(ctx, 404, 'NotFound', 'No such dashboard widget.');
  const raw = ctx.query.f === undefined ? [] : [].concat(ctx.query.f);
  const filters = raw.map(parseFilterParam);
  if (filters.some((f) => !f)) return fail(ctx, 400, 'BadFilter', 'f: each filter must be f_<view>.<dimension>=<JSON with a value key>');
  await latency(40, 160);
  if (one(ctx, 'fail') === '1') {
    return fail(ctx, 502, 'QueryError', `The warehouse timed out while running "${widget.title}".`);
  }
  ctx.body = runWidget(dashboard, widget, filters, { all: one(ctx, 'all') === '1' });
}

async function ask(ctx) {
  if (!session(ctx)) return;
  const q = one(ctx, 'q');
  if (typeof q !== 'string' || !q.trim() || q.length > 500) return fail(ctx, 400, 'BadRequest', 'q: a question of 1 to 500 characters');
  await latency(350, 750);
  const result = answer(q);
  if (!result) {
    return fail(ctx, 422, 'UnansweredQueryError', 'I could not map that question onto the Sales model. Try revenue, orders, regions, categories, channels or accounts.');
  }
  ctx.body = { ...result, agentId: 'sales-analyst' };
}

/** Koa middleware for everything under /embed. */
export async function embedMiddleware({ hostOrigins }) {
  const frameAncestors = hostOrigins.join(' ');
  // Origins from new URL().origin cannot hold quotes or angle brackets; escaping keeps that true by construction.
  const escape = (v) => v.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const shell = (await readFile(SHELL, 'utf8'))
    .replace('<meta charset="utf-8">', `<meta charset="utf-8">\n  <meta name="svc-host-origins" content="${escape(hostOrigins.join(' '))}">`);
  return async (ctx, next) => {
    if (!ctx.path.startsWith('/embed/')) return next();
    if (ctx.path.startsWith('/embed/static/')) {
      ctx.url = `/tenant/public/${ctx.path.slice('/embed/static/'.length)}`;
      ctx.set('cache-control', 'no-cache');
      return next();
    }
    ctx.set('cache-control', 'no-store');
    if (ctx.path.startsWith('/embed/api/')) {
      if (ctx.method !== 'GET') return fail(ctx, 405, 'MethodNotAllowed', 'GET only');
      const route = ctx.path.slice('/embed/api/'.length);
      if (route === 'bootstrap') return bootstrap(ctx);
      if (route === 'query') return query(ctx);
      if (route === 'ask') return ask(ctx);
      return fail(ctx, 404, 'NotFound', 'No such endpoint.');
    }
    if (SURFACE_PATH.test(ctx.path) && (ctx.method === 'GET' || ctx.method === 'HEAD')) {
      ctx.type = 'html';
      ctx.set('content-security-policy', [
        "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
        "base-uri 'none'", "form-action 'none'", "object-src 'none'", `frame-ancestors ${frameAncestors}`,
      ].join('; '));
      ctx.set('referrer-policy', 'no-referrer');
      ctx.body = shell;
      return;
    }
    return next();
  };
}
