// The embed side of the simulated tenant: the surface pages (one shell, routed in the browser), the root page that
// lists them (home.ts), and the small JSON API the surfaces query. Pages may be framed only by the allowed host
// origins (CSP frame-ancestors), which are also the only origins the embed accepts actions from and posts to.
// The static assets and the protocol module are mounted by index.js, each from its own directory.
import { readFile } from 'node:fs/promises';
import type Koa from 'koa';
import Router from '@koa/router';
import { SURFACES, parseFilterParam, publicIdProblem } from '@svc-embed/protocol';
import type { ParsedFilter } from '@svc-embed/protocol';
import { chain } from './http.js';
import { DASHBOARDS, VIEWS, answer, runWidget } from './datasets.js';
import { homePage } from './home.js';
import type { Dashboard } from './datasets.js';
import type { Sessions, ValidSession } from './sessions.js';

const SHELL = new URL('../embed.html', import.meta.url);

const CSP = (frameAncestors: string): string =>
  [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "object-src 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');

/** An embed API failure: its status, and the error name and message of its JSON body. */
class EmbedError extends Error {
  readonly status: number;
  readonly errorName: string;

  constructor(status: number, name: string, message: string) {
    super(message);
    this.status = status;
    this.errorName = name;
  }
}

/** The one value of a query parameter, or undefined; a repeated parameter is ambiguous, so a 400. */
function single(ctx: Koa.Context, name: string): string | undefined {
  const v = ctx.query[name];
  if (Array.isArray(v)) throw new EmbedError(400, 'BadRequest', `${name}: must be given at most once`);
  return v;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The embed's middleware: the surface pages, and the API they query. */
export interface EmbedRoutes {
  /** The surface pages, at the root. */
  readonly pages: Koa.Middleware;
  /** The API, to mount at /embed/api. */
  readonly api: Koa.Middleware;
}

/**
 * The embed surfaces (`pages`, at the root) and their API (`api`, to mount at /embed/api).
 * @param options allowOrigins already validated
 */
export async function embedRoutes({
  allowOrigins,
  latency,
  sessions,
  reusableSessions = false,
  embedHistory = false,
}: {
  allowOrigins: readonly string[];
  latency: boolean;
  /** Whether every embed page keeps its own history (a frame's URL can also ask with embedHistory=1). */
  embedHistory?: boolean;
  /** Whether minted sessions may be loaded more than once (the root page says so). */
  reusableSessions?: boolean;
  /** The tenant's sessions, shared with the session-generation API. */
  sessions: Sessions;
}): Promise<EmbedRoutes> {
  // Entries are canonical origins (or origin:*) by now: no quotes or angle brackets can be in them,
  // and the escaping keeps that true by construction.
  const escape = (v: string): string => v.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  const shell = (await readFile(SHELL, 'utf8')).replace(
    '<meta charset="utf-8">',
    `<meta charset="utf-8">\n  <meta name="svc-allow-origins" content="${escape(allowOrigins.join(' '))}">` +
      (embedHistory ? '\n  <meta name="svc-embed-history" content="on">' : ''),
  );
  const csp = CSP(allowOrigins.join(' '));

  /** A little latency makes loading states and loadDurationMs real; Server-Timing says how much was added. */
  async function simulate(ctx: Koa.Context, min: number, max: number): Promise<void> {
    const ms = latency ? Math.round(min + Math.random() * (max - min)) : 0;
    if (ms) await sleep(ms);
    ctx.set('server-timing', `simulated;dur=${ms};desc="simulated latency"`);
  }

  /** Every session value the URL gave, so a repeated one is seen as such. */
  const sessionValues = (ctx: Koa.Context): string[] => {
    const raw = ctx.query.session;
    return raw === undefined ? [] : ([] as string[]).concat(raw);
  };

  /**
   * The session of an API call after the bootstrap: the token the bootstrap's exchange gave (`Authorization: Bearer`),
   * which only the document that loaded the session holds, or else the session of the URL.
   */
  function session(ctx: Koa.Context): ValidSession {
    const authorization = ctx.get('authorization');
    let s;
    if (authorization) {
      const token = /^Bearer ([!-~]{1,200})$/.exec(authorization)?.[1];
      if (token === undefined || ctx.query.session !== undefined)
        throw new EmbedError(400, 'BadRequest', 'authorization: one "Bearer <token>", and no session beside it');
      s = sessions.checkToken(token);
    } else s = sessions.checkCall(sessionValues(ctx));
    if (!s.ok) throw new EmbedError(401, s.name, s.message);
    return s;
  }

  /** The bootstrap's session: a minted one is exchanged (`commit`), or its exchange only tried. */
  function exchange(ctx: Koa.Context, commit: boolean): ValidSession {
    const s = sessions.check(sessionValues(ctx), { commit });
    if (!s.ok) throw new EmbedError(401, s.name, s.message);
    return s;
  }

  async function bootstrap(ctx: Koa.Context): Promise<void> {
    const surface = single(ctx, 'surface');
    const publicId = single(ctx, 'publicId');
    if (!(SURFACES as readonly unknown[]).includes(surface))
      throw new EmbedError(400, 'BadRequest', `surface: must be ${SURFACES.join(', ')}`);
    // A session problem is told first; a load that fails for another reason does not spend the session.
    exchange(ctx, false);
    let dashboard: Dashboard | undefined;
    if (surface === 'dashboard') {
      dashboard = publicId !== undefined && Object.hasOwn(DASHBOARDS, publicId) ? DASHBOARDS[publicId] : undefined;
      if (!dashboard)
        throw new EmbedError(
          404,
          'DashboardNotFoundError',
          'This dashboard does not exist or is not shared with this embed.',
        );
    }
    const s = exchange(ctx, true);
    // Authenticating and mounting is the slow part of a real embed: long enough to see the loading state.
    await simulate(ctx, 250, 650);
    ctx.body = {
      mode: s.mode,
      embedTenant: s.embedTenant,
      deploymentId: dashboard ? dashboard.deploymentId : 1,
      ...(s.expiresInMs !== undefined ? { expiresInMs: s.expiresInMs } : {}),
      ...(s.token !== undefined ? { token: s.token } : {}),
      views: Object.fromEntries(Object.entries(VIEWS).map(([name, v]) => [name, { dimensions: v.dimensions }])),
      dashboards: Object.fromEntries(
        Object.entries(DASHBOARDS).map(([id, d]) => [
          id,
          {
            title: d.title,
            view: d.view,
            deploymentId: d.deploymentId,
            pages: Object.fromEntries(
              Object.entries(d.pages).map(([p, page]) => [p, { title: page.title, widgets: page.widgets }]),
            ),
          },
        ]),
      ),
    };
  }

  async function query(ctx: Koa.Context): Promise<void> {
    const publicId = single(ctx, 'publicId');
    const widgetId = single(ctx, 'widget');
    const fail = single(ctx, 'fail');
    const all = single(ctx, 'all');
    session(ctx);
    const dashboard = publicId !== undefined && Object.hasOwn(DASHBOARDS, publicId) ? DASHBOARDS[publicId] : undefined;
    const widget =
      dashboard &&
      Object.values(dashboard.pages)
        .flatMap((p) => p.widgets)
        .find((w) => w.id === widgetId);
    if (!dashboard || !widget) throw new EmbedError(404, 'NotFound', 'No such dashboard widget.');
    const raw = ctx.query.f === undefined ? [] : ([] as string[]).concat(ctx.query.f);
    const filters = raw.map(parseFilterParam);
    if (!filters.every((f): f is ParsedFilter => f !== undefined))
      throw new EmbedError(400, 'BadFilter', 'f: each filter must be f_<view>.<dimension>=<JSON with a value key>');
    await simulate(ctx, 40, 160);
    // The session may have run out while the query "ran".
    session(ctx);
    if (fail === '1')
      throw new EmbedError(502, 'QueryError', `The warehouse timed out while running "${widget.title}".`);
    ctx.body = runWidget(dashboard, widget, filters, { all: all === '1' });
  }

  async function ask(ctx: Koa.Context): Promise<void> {
    const q = single(ctx, 'q');
    session(ctx);
    if (typeof q !== 'string' || !q.trim() || q.length > 500)
      throw new EmbedError(400, 'BadRequest', 'q: a question of 1 to 500 characters');
    await simulate(ctx, 350, 750);
    session(ctx);
    const result = answer(q);
    if (!result) {
      throw new EmbedError(
        422,
        'UnansweredQueryError',
        'I could not map that question onto the Sales model. Try revenue, orders, regions, categories, channels or accounts.',
      );
    }
    ctx.body = { ...result, agentId: 'sales-analyst' };
  }

  // Mounted at /embed/api: a path it does not have, or a method it does not take, is JSON too.
  const api = new Router({ sensitive: true, strict: true });
  api.get('/bootstrap', bootstrap).get('/query', query).get('/ask', ask);
  const apiErrors: Koa.Middleware = async (ctx, next) => {
    ctx.set('cache-control', 'no-store');
    try {
      await next();
      if (ctx.body == null && ctx.status === 404) throw new EmbedError(404, 'NotFound', 'No such endpoint.');
      if (ctx.body == null && ctx.status === 405) throw new EmbedError(405, 'MethodNotAllowed', 'GET only.');
    } catch (error) {
      if (!(error instanceof EmbedError)) throw error;
      ctx.status = error.status;
      ctx.body = { error: { name: error.errorName, message: error.message } };
    }
  };

  const pages = new Router({ sensitive: true });
  /** Every page of the tenant, the root page included, is sent with the same headers. */
  const html = (ctx: Koa.Context, body: string): void => {
    ctx.set('cache-control', 'no-store');
    ctx.set('content-security-policy', csp);
    ctx.set('referrer-policy', 'no-referrer');
    ctx.type = 'html';
    ctx.body = body;
  };
  const page = (ctx: Koa.Context): void => html(ctx, shell);
  // The origin as the browser named it (the guard allowed its Host), so that the URLs on the page work as shown.
  pages.get('/', (ctx) => html(ctx, homePage(`${ctx.protocol}://${ctx.host}`, allowOrigins, reusableSessions)));
  pages.get('/embed/dashboard/:publicId', (ctx, next) => (publicIdProblem(ctx.params.publicId) ? next() : page(ctx)));
  pages.get('/embed/app', page).get('/embed/chat', page);

  // A router sets ctx.params itself; its typings ask for a context that has them already.
  return {
    api: chain(apiErrors, api.routes() as Koa.Middleware, api.allowedMethods() as Koa.Middleware),
    pages: chain(pages.routes() as Koa.Middleware, pages.allowedMethods() as Koa.Middleware),
  };
}
