// A dashboard: widgets that query the tenant, render as SVG charts and tables, drill down on click,
// export CSV when allowed, and report dashboard-loaded once every widget of a load has rendered.
import { filterParam } from '/embed/protocol/index.js';
import { getJson } from './api.js';
import { h } from './dom.js';
import { barChart, donutChart, lineChart } from './charts.js';
import { columnLabel, fmt, fmtDate, fmtTime, isData, t, valueLabel } from './i18n.js';

const title = (w) => t(`w.${w.id}`);
const pageTitle = (path) => t(`page.${path}`);

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

/** Resolves once this document has painted what it has rendered (two animation frames), or after 1 s. */
function painted() {
  return new Promise((resolve) => {
    setTimeout(resolve, 1000);
    requestAnimationFrame(() => requestAnimationFrame(resolve));
  });
}

export class Dashboard {
  /**
   * @param {object} o
   * @param {string} o.publicId
   * @param {object} o.def the dashboard definition from bootstrap
   * @param {(path: string) => string} o.href maps a dashboard page to the surface's route
   * @param {(type: string, payload: object) => void} o.emit
   * @param {(path: string) => void} o.go navigates the surface
   * @param {{session?: string, filters: Map, allowExport: boolean, failNext: Set, log: Function, debug?: Node}} o.ctx
   *   `debug`: the debug panel's toggle, shown in the header (absent when the app holds it)
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
    this.drilled = undefined;
    this.load(performance.now());
    return pageTitle(page);
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
    for (const f of this.ctx.filters.values())
      (f.view === view && dims.includes(f.dimension) ? usable : unusable).push(f);
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
        this.emit('svc:event:error', {
          message: error.message,
          name: error.name,
          context: `widget:${w.id}`,
          fatal: false,
        });
      }
      this.renderWidget(w);
    });
    Promise.all(runs)
      .then(() => {
        if (generation !== this.generation) return;
        this.loadedAt = new Date();
        this.renderMeta();
        return painted();
      })
      .then(() => {
        // Rendered means on screen: reported once the widgets have been painted, as a host that swaps frames at
        // this event needs. A frame the browser does not render now (off-screen, throttled) reports within 1 s.
        if (generation !== this.generation) return;
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
      this.emit('svc:event:error', {
        message: error.message,
        name: error.name,
        context: `widget:${w.id}`,
        fatal: false,
      });
    }
    this.renderWidget(w);
  }

  // ---- rendering

  render() {
    const { unusable, usable } = this.splitFilters();
    const tabs = Object.keys(this.def.pages).map((path) =>
      h(
        'a',
        {
          href: '#',
          class: `tab${path === this.page ? ' active' : ''}`,
          'aria-current': path === this.page ? 'page' : null,
          onclick: (e) => {
            e.preventDefault();
            this.go(this.href(path));
          },
        },
        pageTitle(path),
      ),
    );
    // Filters come from the host (svc:action:set-filter) and belong to it: the viewer cannot remove one
    // here, because the protocol has no event that would tell the host, whose controls would then lie.
    const chips = [...usable, ...unusable].map((f) =>
      h(
        'span',
        {
          class: `chip${unusable.includes(f) ? ' muted' : ''}`,
          'data-filter': `${f.view}.${f.dimension}`,
          title: t('setByHost'),
        },
        h('span', { class: 'chip-key' }, columnLabel(f.dimension)),
        ' = ',
        h(
          'span',
          { class: 'chip-value', translate: isData(f.dimension) ? 'no' : undefined },
          (Array.isArray(f.value) ? f.value : [f.value]).map((v) => valueLabel(f.dimension, v)).join(', '),
        ),
        unusable.includes(f) ? h('em', {}, ` (${t('unknownField')})`) : null,
      ),
    );
    this.meta = h('span', { class: 'meta' });
    this.el.replaceChildren(
      h(
        'header',
        { class: 'dash-head' },
        h('div', { class: 'dash-title' }, h('h1', {}, t(`dash.${this.publicId}`)), h('nav', { class: 'tabs' }, tabs)),
        h(
          'div',
          { class: 'dash-tools' },
          this.meta,
          this.ctx.allowExport
            ? h(
                'button',
                { type: 'button', class: 'btn', 'data-export': 'dashboard', onclick: () => this.exportDashboard() },
                t('exportAll'),
              )
            : null,
          this.ctx.debug,
        ),
      ),
      h(
        'div',
        { class: 'filter-bar' },
        h('span', { class: 'filter-label' }, t('filters')),
        chips.length ? chips : h('span', { class: 'muted' }, t('noFilters')),
      ),
      h(
        'div',
        { class: 'grid' },
        this.widgets.map((w) =>
          h('article', { class: `card kind-${w.kind} span-${w.span ?? 1}`, 'data-widget': w.id }),
        ),
      ),
    );
    for (const w of this.widgets) this.renderWidget(w);
    this.renderMeta();
    if (this.drilled) this.renderDrill();
  }

  renderMeta() {
    if (this.meta) this.meta.textContent = this.loadedAt ? t('updated', { t: fmtTime(this.loadedAt) }) : t('loading');
  }

  renderWidget(w) {
    const card = this.el.querySelector(`[data-widget="${w.id}"]`);
    if (!card) return;
    const result = this.results.get(w.id);
    const exportable = this.ctx.allowExport && w.kind !== 'kpi' && result?.data;
    const head = h(
      'header',
      { class: 'card-head' },
      h('h2', {}, title(w)),
      exportable
        ? h(
            'button',
            {
              type: 'button',
              class: 'icon-btn',
              title: t('exportCsv'),
              'aria-label': `${t('exportCsv')}: ${title(w)}`,
              'data-export': w.id,
              onclick: () => this.exportWidget(w),
            },
            t('csvButton'),
          )
        : null,
    );
    let body;
    if (!result) body = h('div', { class: 'skeleton', 'aria-busy': 'true' }, h('span'), h('span'), h('span'));
    else if (result.error) {
      // The tenant's message goes to the host in svc:event:error; the viewer reads it in their language.
      body = h(
        'div',
        { class: 'widget-error', role: 'alert' },
        h('strong', {}, t('failed')),
        h('p', {}, t('queryFailed')),
        h('button', { type: 'button', class: 'btn', onclick: () => this.retry(w) }, t('retry')),
      );
    } else body = this.widgetBody(w, result.data, Math.floor(card.clientWidth - 34) || undefined);
    card.classList.toggle('failed', Boolean(result?.error));
    card.replaceChildren(head, body);
  }

  /** `width` is the card's inner width: charts are drawn at 1:1 so their text keeps its size. */
  widgetBody(w, data, width) {
    const format = (v, compact) => fmt(v, w.format, { compact });
    const pick = (p) => this.drill(w, data.member, data.dimension, p.key);
    const keys = { keyLabel: (k) => valueLabel(data.dimension, k), keyIsData: isData(data.dimension) };
    switch (w.kind) {
      case 'kpi':
        return h(
          'div',
          { class: 'kpi' },
          h('div', { class: 'kpi-value', 'data-value': data.value }, format(data.value)),
          h('div', { class: 'kpi-sub' }, t('rows', { n: fmt(data.rowCount) })),
        );
      case 'bar':
        return barChart(data.points, { format, label: title(w), onPick: pick, width, ...keys });
      case 'line':
        return lineChart(data.points, {
          format,
          label: title(w),
          xLabel: (k) => fmtDate(k, { month: true }),
          onPick: pick,
          width,
        });
      case 'donut':
        return donutChart(data.points, { format, label: title(w), onPick: pick, ...keys });
      case 'table':
        return this.table(w, data, true);
      default:
        return this.table(w, data, false);
    }
  }

  /** A table of `data`; `grouped` makes its numbers drill down; `omit` leaves out a column (the one drilled on). */
  table(w, data, grouped, omit) {
    const money = new Set(['revenue', 'amount', 'aov']);
    const columns = data.columns.filter((c) => c !== omit);
    const cell = (c, v) => {
      if (typeof v === 'number') return fmt(v, money.has(c) ? 'currency' : c === 'hours' ? 'hours' : 'number');
      return c === 'date' ? fmtDate(v) : valueLabel(c, v);
    };
    return h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'data' },
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            columns.map((c) => h('th', { class: typeof data.rows[0]?.[c] === 'number' ? 'num' : '' }, columnLabel(c))),
          ),
        ),
        h(
          'tbody',
          {},
          data.rows.map((r) =>
            h(
              'tr',
              {},
              columns.map((c, i) => {
                if (grouped && i > 0) {
                  return h(
                    'td',
                    { class: 'num' },
                    h(
                      'button',
                      {
                        type: 'button',
                        class: 'cell-link',
                        'data-member': data.members[i - 1],
                        onclick: () => this.drill(w, data.members[i - 1], columns[0], r[columns[0]]),
                      },
                      cell(c, r[c]),
                    ),
                  );
                }
                const numeric = typeof r[c] === 'number';
                // Account names are the long ones: the only cells that may take two lines in a narrow frame.
                const cls = numeric ? 'num' : c === 'status' ? `status ${r[c]}` : c === 'account' ? 'name' : '';
                return h('td', { class: cls, translate: !numeric && isData(c) ? 'no' : undefined }, cell(c, r[c]));
              }),
            ),
          ),
        ),
      ),
      h('p', { class: 'table-foot', 'data-total': data.total }, t('rows', { n: fmt(data.total) })),
    );
  }

  // ---- drilldown: a panel of the detail rows behind a mark or a cell; Escape or × closes it

  drill(w, member, dimension, value) {
    this.emit('svc:event:drilldown', { member, value, widgetId: w.id });
    const detail = Object.values(this.def.pages)
      .flatMap((p) => p.widgets)
      .find((x) => x.kind === 'rows');
    this.drilled = { member, dimension, value, detail, data: undefined, error: undefined };
    this.renderDrill();
    if (!detail) return;
    const drilled = this.drilled;
    this.fetchJson(this.queryUrl(detail, { extra: [{ view: this.def.view, dimension, value }] }))
      .then(
        (data) => {
          drilled.data = data;
        },
        (error) => {
          drilled.error = error;
        },
      )
      .then(() => this.drilled === drilled && this.renderDrill());
  }

  closeDrill() {
    this.drilled = undefined;
    this.el.querySelector('.drill')?.remove();
  }

  /** Draws the open drilldown from its state, so a locale change redraws it in place. */
  renderDrill() {
    const { member, dimension, value, data, error } = this.drilled;
    let body = h('div', { class: 'skeleton' }, h('span'), h('span'));
    if (data) body = this.table(this.drilled.detail, data, false, dimension);
    else if (error) body = h('p', { class: 'widget-error' }, t('queryFailed'));
    const panel = h(
      'aside',
      {
        class: 'drill',
        role: 'dialog',
        'aria-label': t('drill'),
        onkeydown: (e) => e.key === 'Escape' && this.closeDrill(),
      },
      h(
        'header',
        {},
        h(
          'div',
          {},
          h('h2', {}, t('drill')),
          h(
            'p',
            { class: 'muted' },
            h('code', { translate: 'no' }, member),
            ' · ',
            columnLabel(dimension),
            ' = ',
            h('span', { translate: isData(dimension) ? 'no' : undefined }, valueLabel(dimension, value)),
          ),
        ),
        h(
          'button',
          { type: 'button', class: 'icon-btn', 'aria-label': t('close'), onclick: () => this.closeDrill() },
          '×',
        ),
      ),
      body,
    );
    const open = this.el.querySelector('.drill');
    if (open) open.replaceWith(panel);
    else {
      this.el.append(panel);
      // A dialog takes the focus when it opens, so Escape closes it at once.
      panel.querySelector('.icon-btn').focus({ preventScroll: true });
    }
  }

  // ---- export (only rendered with allowExport=true)

  async exportWidget(w) {
    const data = await this.fetchJson(this.queryUrl(w, { all: true }));
    const rows = data.points ? data.points.map((p) => ({ [data.dimension]: p.key, [w.measure]: p.value })) : data.rows;
    const columns = data.points ? [data.dimension, w.measure] : data.columns;
    saveFile(`${this.publicId}-${w.id}.csv`, csv(columns, rows));
    this.emit('svc:event:download', {
      format: 'csv',
      target: 'widget',
      widgetId: w.id,
      title: w.title,
      rowCount: rows.length,
    });
  }

  async exportDashboard() {
    const detail = Object.values(this.def.pages)
      .flatMap((p) => p.widgets)
      .find((x) => x.kind === 'rows');
    const data = await this.fetchJson(this.queryUrl(detail, { all: true }));
    saveFile(`${this.publicId}.csv`, csv(data.columns, data.rows));
    this.emit('svc:event:download', {
      format: 'csv',
      target: 'dashboard',
      title: this.def.title,
      rowCount: data.rows.length,
    });
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
