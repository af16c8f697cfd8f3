// A dashboard: widgets that query the tenant, render as SVG charts and tables, drill down on click,
// export CSV when allowed, and report dashboard-loaded once every widget of a load has rendered.
import { filterParam } from '/embed/protocol/index.js';
import { getJson } from './api.js';
import { h } from './dom.js';
import { barChart, donutChart, lineChart } from './charts.js';
import { fmt, fmtDate, fmtTime, t } from './i18n.js';

const KPI_TITLES = new Set(['revenue', 'orders', 'aov', 'tickets', 'hours', 'csat']);
const title = (w) => (KPI_TITLES.has(w.title) ? t(w.title) : w.title);

function csv(columns, rows) {
  const cell = (v) => {
    const text = String(v ?? '');
    // A leading = + - @ would be a formula in a spreadsheet; quote-prefix it (CSV injection).
    const safe = /^[=+\-@\t\r]/.test(text) && typeof v !== 'number' ? `'${text}` : text;
    return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return [columns, ...rows.map((r) => columns.map((c) => r[c]))].map((r) => r.map(cell).join(',')).join('\r\n');
}

function saveFile(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
  const a = h('a', { href: url, download: name, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export class Dashboard {
  /**
   * @param {object} o
   * @param {string} o.publicId
   * @param {object} o.def the dashboard definition from bootstrap
   * @param {(path: string) => string} o.href maps a dashboard page to the surface's route
   * @param {(type: string, payload: object) => void} o.emit
   * @param {(path: string) => void} o.go navigates the surface
   * @param {{session?: string, filters: Map, allowExport: boolean, failNext: Set, log: Function}} o.ctx
   */
  constructor({ publicId, def, href, emit, go, ctx }) {
    Object.assign(this, { publicId, def, href, emit, go, ctx });
    this.el = h('section', { class: 'dashboard' });
    this.generation = 0;
    // Charts are drawn for the card's width; redraw them (from cached results) when it changes.
    let lastWidth = 0;
    let timer;
    new ResizeObserver(([entry]) => {
      const width = Math.round(entry.contentRect.width);
      if (!width || Math.abs(width - lastWidth) < 8) return;
      const first = !lastWidth;
      lastWidth = width;
      if (first) return;
      clearTimeout(timer);
      timer = setTimeout(() => this.page && this.widgets.forEach((w) => this.renderWidget(w)), 60);
    }).observe(this.el);
    this.results = new Map();
    this.page = undefined;
  }

  /** Shows a page ('/' or '/details'); returns its title, or undefined when there is no such page. */
  show(page) {
    if (!Object.hasOwn(this.def.pages, page)) return undefined;
    this.page = page;
    this.load(performance.now());
    return this.def.pages[page].title;
  }

  get widgets() {
    return this.def.pages[this.page].widgets;
  }

  /** The filters that apply to this dashboard, and the ones it cannot use. */
  splitFilters() {
    const view = this.def.view;
    const dims = this.ctx.dimensions[view] ?? [];
    const usable = [];
    const unusable = [];
    for (const f of this.ctx.filters.values()) (f.view === view && dims.includes(f.dimension) ? usable : unusable).push(f);
    return { usable, unusable };
  }

  queryUrl(widget, { all = false, extra = [] } = {}) {
    const q = new URLSearchParams({ publicId: this.publicId, widget: widget.id });
    if (this.ctx.session !== undefined) q.set('session', this.ctx.session);
    for (const f of [...this.splitFilters().usable, ...extra]) q.append('f', filterParam(f.view, f.dimension, f.value));
    if (all) q.set('all', '1');
    if (this.ctx.failNext.delete(widget.id)) q.set('fail', '1');
    return `/embed/api/query?${q}`;
  }

  fetchJson(url) {
    return getJson(url, 'QueryError');
  }

  /** Runs every widget's query; only the newest load reports dashboard-loaded. */
  load(startedAt = performance.now()) {
    const generation = ++this.generation;
    this.results.clear();
    this.render();
    const runs = this.widgets.map(async (w) => {
      try {
        const data = await this.fetchJson(this.queryUrl(w));
        if (generation !== this.generation) return;
        this.results.set(w.id, { data });
      } catch (error) {
        if (generation !== this.generation) return;
        this.results.set(w.id, { error });
        this.emit('svc:event:error', { message: error.message, name: error.name, context: `widget:${w.id}`, fatal: false });
      }
      this.renderWidget(w);
    });
    Promise.all(runs).then(() => {
      if (generation !== this.generation) return;
      this.loadedAt = new Date();
      this.renderMeta();
      this.emit('svc:event:dashboard-loaded', {
        publicId: this.publicId,
        widgetCount: this.widgets.length,
        loadDurationMs: Math.round(performance.now() - startedAt),
      });
    });
  }

  async retry(w) {
    this.results.delete(w.id);
    this.renderWidget(w);
    try {
      this.results.set(w.id, { data: await this.fetchJson(this.queryUrl(w)) });
    } catch (error) {
      this.results.set(w.id, { error });
      this.emit('svc:event:error', { message: error.message, name: error.name, context: `widget:${w.id}`, fatal: false });
    }
    this.renderWidget(w);
  }

  // ---- rendering

  render() {
    const { unusable, usable } = this.splitFilters();
    const tabs = Object.entries(this.def.pages).map(([path, page]) => h('a', {
      href: '#', class: `tab${path === this.page ? ' active' : ''}`, 'aria-current': path === this.page ? 'page' : null,
      onclick: (e) => {
        e.preventDefault();
        this.go(this.href(path));
      },
    }, page.title === 'Overview' ? t('overview') : page.title === 'Orders' ? t('orders') : page.title));
    const chips = [...usable, ...unusable].map((f) => h('span', { class: `chip${unusable.includes(f) ? ' muted' : ''}`, 'data-filter': `${f.view}.${f.dimension}` },
      h('span', { class: 'chip-key' }, f.dimension), ' = ', h('span', { class: 'chip-value' }, Array.isArray(f.value) ? f.value.join(', ') : String(f.value)),
      unusable.includes(f) ? h('em', {}, ` (${t('unknownField')})`) : null,
      h('button', { type: 'button', class: 'chip-x', 'aria-label': t('close'), onclick: () => {
        this.ctx.filters.delete(`${f.view}.${f.dimension}`);
        this.load();
      } }, '×')));
    this.meta = h('span', { class: 'meta' });
    this.el.replaceChildren(
      h('header', { class: 'dash-head' },
        h('div', { class: 'dash-title' }, h('h1', {}, this.def.title), h('nav', { class: 'tabs' }, tabs)),
        h('div', { class: 'dash-tools' },
          this.meta,
          this.ctx.allowExport ? h('button', { type: 'button', class: 'btn', 'data-export': 'dashboard', onclick: () => this.exportDashboard() }, t('exportAll')) : null)),
      h('div', { class: 'filter-bar' }, h('span', { class: 'filter-label' }, t('filters')), chips.length ? chips : h('span', { class: 'muted' }, t('noFilters'))),
      h('div', { class: 'grid' }, this.widgets.map((w) => h('article', { class: `card kind-${w.kind} span-${w.span ?? 1}`, 'data-widget': w.id }))));
    for (const w of this.widgets) this.renderWidget(w);
    this.renderMeta();
  }

  renderMeta() {
    if (this.meta) this.meta.textContent = this.loadedAt ? t('updated', { t: fmtTime(this.loadedAt) }) : t('loading');
  }

  renderWidget(w) {
    const card = this.el.querySelector(`[data-widget="${w.id}"]`);
    if (!card) return;
    const result = this.results.get(w.id);
    const exportable = this.ctx.allowExport && w.kind !== 'kpi' && result?.data;
    const head = h('header', { class: 'card-head' }, h('h2', {}, title(w)),
      exportable ? h('button', { type: 'button', class: 'icon-btn', title: t('exportCsv'), 'aria-label': `${t('exportCsv')}: ${title(w)}`, 'data-export': w.id, onclick: () => this.exportWidget(w) }, '⤓ CSV') : null);
    let body;
    if (!result) body = h('div', { class: 'skeleton', 'aria-busy': 'true' }, h('span'), h('span'), h('span'));
    else if (result.error) {
      body = h('div', { class: 'widget-error', role: 'alert' }, h('strong', {}, t('failed')), h('p', {}, result.error.message),
        h('button', { type: 'button', class: 'btn', onclick: () => this.retry(w) }, t('retry')));
    } else body = this.widgetBody(w, result.data, Math.floor(card.clientWidth - 34) || undefined);
    card.classList.toggle('failed', Boolean(result?.error));
    card.replaceChildren(head, body);
  }

  /** `width` is the card's inner width: charts are drawn at 1:1 so their text keeps its size. */
  widgetBody(w, data, width) {
    const format = (v, compact) => fmt(v, w.format, { compact });
    const pick = (p) => this.drill(w, data.member, data.dimension, p.key);
    switch (w.kind) {
      case 'kpi':
        return h('div', { class: 'kpi' }, h('div', { class: 'kpi-value', 'data-value': data.value }, format(data.value)),
          h('div', { class: 'kpi-sub' }, t('rows', { n: fmt(data.rowCount) })));
      case 'bar':
        return barChart(data.points, { format, label: title(w), onPick: pick, width });
      case 'line':
        return lineChart(data.points, { format, label: title(w), xLabel: (k) => fmtDate(k, { month: true }), onPick: pick, width });
      case 'donut':
        return donutChart(data.points, { format, label: title(w), onPick: pick });
      case 'table':
        return this.table(w, data, true);
      default:
        return this.table(w, data, false);
    }
  }

  table(w, data, grouped) {
    const money = new Set(['revenue', 'amount', 'aov']);
    const cellText = (c, v) => (typeof v === 'number' ? fmt(v, money.has(c) ? 'currency' : c === 'hours' ? 'hours' : 'number')
      : c === 'date' ? fmtDate(v) : String(v));
    const label = (c) => (KPI_TITLES.has(c) ? t(c) : c);
    return h('div', { class: 'table-wrap' },
      h('table', { class: 'data' },
        h('thead', {}, h('tr', {}, data.columns.map((c) => h('th', { class: typeof data.rows[0]?.[c] === 'number' ? 'num' : '' }, label(c))))),
        h('tbody', {}, data.rows.map((r) => h('tr', {}, data.columns.map((c, i) => {
          const numeric = typeof r[c] === 'number';
          if (grouped && i > 0) {
            return h('td', { class: 'num' }, h('button', { type: 'button', class: 'cell-link', 'data-member': data.members[i - 1],
              onclick: () => this.drill(w, data.members[i - 1], data.columns[0], r[data.columns[0]]) }, cellText(c, r[c])));
          }
          return h('td', { class: numeric ? 'num' : c === 'status' ? `status ${r[c]}` : '' }, cellText(c, r[c]));
        }))))),
      h('p', { class: 'table-foot', 'data-total': data.total }, t('rows', { n: fmt(data.total) })));
  }

  // ---- drilldown

  async drill(w, member, dimension, value) {
    this.emit('svc:event:drilldown', { member, value, widgetId: w.id });
    const detail = Object.values(this.def.pages).flatMap((p) => p.widgets).find((x) => x.kind === 'rows');
    const panel = h('aside', { class: 'drill', role: 'dialog', 'aria-label': t('drill') },
      h('header', {}, h('div', {}, h('h2', {}, t('drill')), h('p', { class: 'muted' }, `${member} · ${dimension} = ${dimension === 'month' ? fmtDate(value, { month: true }) : value}`)),
        h('button', { type: 'button', class: 'icon-btn', 'aria-label': t('close'), onclick: () => panel.remove() }, '×')),
      h('div', { class: 'skeleton' }, h('span'), h('span')));
    this.el.querySelector('.drill')?.remove();
    this.el.append(panel);
    if (!detail) return;
    try {
      const data = await this.fetchJson(this.queryUrl(detail, { extra: [{ view: this.def.view, dimension, value }] }));
      panel.replaceChild(this.table(detail, data, false), panel.lastChild);
    } catch (error) {
      panel.replaceChild(h('p', { class: 'widget-error' }, error.message), panel.lastChild);
    }
  }

  // ---- export (only rendered with allowExport=true)

  async exportWidget(w) {
    const data = await this.fetchJson(this.queryUrl(w, { all: true }));
    const rows = data.points ? data.points.map((p) => ({ [data.dimension]: p.key, [w.measure]: p.value })) : data.rows;
    const columns = data.points ? [data.dimension, w.measure] : data.columns;
    saveFile(`${this.publicId}-${w.id}.csv`, csv(columns, rows));
    this.emit('svc:event:download', { format: 'csv', target: 'widget', widgetId: w.id, title: w.title, rowCount: rows.length });
  }

  async exportDashboard() {
    const detail = Object.values(this.def.pages).flatMap((p) => p.widgets).find((x) => x.kind === 'rows');
    const data = await this.fetchJson(this.queryUrl(detail, { all: true }));
    saveFile(`${this.publicId}.csv`, csv(data.columns, data.rows));
    this.emit('svc:event:download', { format: 'csv', target: 'dashboard', title: this.def.title, rowCount: data.rows.length });
  }

  /** The next query of the page's first chart fails, and the page reloads: a recoverable widget error. */
  failOne() {
    const widget = this.page && this.widgets.find((w) => w.kind !== 'kpi');
    if (!widget) return;
    this.ctx.failNext.add(widget.id);
    this.load();
  }

  /** Re-renders from the cached results (a locale change needs no new query). */
  rerender() {
    if (!this.page) return;
    this.render();
  }
}
