// The simulated tenant's semantic views and dashboards, and a tiny query engine over them. The data
// is generated from fixed seeds, so filtered counts are stable and the end-to-end tests can assert them.
import { prng } from './seed.js';

const ACCOUNTS = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries', 'Wayne Enterprises',
  'Wonka Industries', 'Tyrell Corp', 'Cyberdyne', 'Soylent', 'Massive Dynamic', 'Aperture Science', 'Vandelay Industries'];

function orders() {
  const rand = prng(0x0dde75);
  const regions = [['North America', 0.38], ['EMEA', 0.3], ['APAC', 0.22], ['LATAM', 0.1]];
  const categories = [['Software', 0.42, 2400], ['Hardware', 0.25, 3900], ['Services', 0.23, 5200], ['Training', 0.1, 900]];
  const channels = [['Online', 0.45], ['Partner', 0.3], ['Direct', 0.25]];
  const weighted = (list) => {
    let r = rand();
    for (const entry of list) if ((r -= entry[1]) <= 0) return entry;
    return list[list.length - 1];
  };
  const rows = [];
  const start = Date.UTC(2025, 0, 1);
  for (let i = 0; i < 1200; i++) {
    // Later months sell more, so the trend line has a story to tell.
    const dayOffset = Math.floor(Math.sqrt(rand()) * 365);
    const [category, , price] = weighted(categories);
    const units = 1 + Math.floor(rand() * 6);
    const amount = Math.round(price * units * (0.6 + rand() * 0.8));
    const s = rand();
    rows.push({
      id: `SO-${String(10001 + i)}`,
      date: new Date(start + dayOffset * 86_400_000).toISOString().slice(0, 10),
      account: ACCOUNTS[Math.floor(rand() * ACCOUNTS.length)],
      region: weighted(regions)[0],
      category,
      channel: weighted(channels)[0],
      status: s < 0.78 ? 'shipped' : s < 0.93 ? 'pending' : 'returned',
      units,
      amount,
    });
  }
  return rows.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id < b.id ? 1 : -1));
}

function tickets() {
  const rand = prng(0x71c4e7);
  const teams = ['Billing', 'Platform', 'Onboarding', 'Integrations'];
  const priorities = ['P3', 'P2', 'P1'];
  const channels = ['Email', 'Chat', 'Phone'];
  const rows = [];
  const start = Date.UTC(2025, 6, 1);
  for (let i = 0; i < 640; i++) {
    const priority = priorities[Math.floor(rand() * rand() * 3.2) % 3];
    const team = teams[Math.floor(rand() * teams.length)];
    rows.push({
      id: `T-${String(4001 + i)}`,
      date: new Date(start + Math.floor(rand() * 184) * 86_400_000).toISOString().slice(0, 10),
      team,
      priority,
      channel: channels[Math.floor(rand() * channels.length)],
      status: rand() < 0.82 ? 'resolved' : 'open',
      hours: Math.round((priority === 'P1' ? 2 : priority === 'P2' ? 9 : 26) * (0.4 + rand() * 1.4) * 10) / 10,
      csat: 1 + Math.floor(rand() * 5 * (0.6 + rand() * 0.4)),
    });
  }
  return rows.sort((a, b) => (a.date < b.date ? 1 : a.date > b.date ? -1 : a.id < b.id ? 1 : -1));
}

/** Semantic views: rows, the dimensions a filter may target, and the measures. */
export const VIEWS = {
  orders: {
    rows: orders(),
    dimensions: ['region', 'category', 'channel', 'status', 'account'],
    measures: { revenue: ['sum', 'amount'], orders: ['count'], units: ['sum', 'units'], aov: ['avg', 'amount'] },
  },
  tickets: {
    rows: tickets(),
    dimensions: ['team', 'priority', 'channel', 'status'],
    measures: { tickets: ['count'], hours: ['avg', 'hours'], csat: ['avg', 'csat'] },
  },
};

/** Dashboards by public id. Widget kinds: kpi, line, bar, donut, table (grouped) and rows (detail rows). */
export const DASHBOARDS = {
  'sales-overview': {
    title: 'Sales overview',
    deploymentId: 1,
    view: 'orders',
    pages: {
      '/': { title: 'Overview', widgets: [
        { id: 'kpi-revenue', kind: 'kpi', title: 'revenue', measure: 'revenue', format: 'currency' },
        { id: 'kpi-orders', kind: 'kpi', title: 'orders', measure: 'orders', format: 'number' },
        { id: 'kpi-aov', kind: 'kpi', title: 'aov', measure: 'aov', format: 'currency' },
        { id: 'revenue-trend', kind: 'line', title: 'Revenue by month', measure: 'revenue', by: 'month', format: 'currency', span: 2 },
        { id: 'revenue-by-region', kind: 'bar', title: 'Revenue by region', measure: 'revenue', by: 'region', format: 'currency' },
        { id: 'category-mix', kind: 'donut', title: 'Revenue by category', measure: 'revenue', by: 'category', format: 'currency' },
        { id: 'top-accounts', kind: 'table', title: 'Top accounts', by: 'account', measures: ['revenue', 'orders'], limit: 8, span: 2 },
      ] },
      '/details': { title: 'Orders', widgets: [
        { id: 'orders-by-channel', kind: 'bar', title: 'Orders by channel', measure: 'orders', by: 'channel', format: 'number', span: 2 },
        { id: 'orders-by-status', kind: 'donut', title: 'Orders by status', measure: 'orders', by: 'status', format: 'number' },
        { id: 'recent-orders', kind: 'rows', title: 'Recent orders', columns: ['id', 'date', 'account', 'region', 'category', 'status', 'amount'], limit: 25, span: 3 },
      ] },
    },
  },
  'support-ops': {
    title: 'Support operations',
    deploymentId: 2,
    view: 'tickets',
    pages: {
      '/': { title: 'Overview', widgets: [
        { id: 'kpi-tickets', kind: 'kpi', title: 'tickets', measure: 'tickets', format: 'number' },
        { id: 'kpi-hours', kind: 'kpi', title: 'hours', measure: 'hours', format: 'hours' },
        { id: 'kpi-csat', kind: 'kpi', title: 'csat', measure: 'csat', format: 'score' },
        { id: 'tickets-trend', kind: 'line', title: 'Tickets by month', measure: 'tickets', by: 'month', format: 'number', span: 2 },
        { id: 'tickets-by-team', kind: 'bar', title: 'Tickets by team', measure: 'tickets', by: 'team', format: 'number' },
        { id: 'tickets-by-priority', kind: 'donut', title: 'Tickets by priority', measure: 'tickets', by: 'priority', format: 'number' },
        { id: 'recent-tickets', kind: 'rows', title: 'Recent tickets', columns: ['id', 'date', 'team', 'priority', 'channel', 'status', 'hours'], limit: 12, span: 2 },
      ] },
    },
  },
};

/**
 * Applies filters ([{view, dimension, value}]) to a view's rows. A filter on another view or an
 * unknown dimension does not apply; a null value clears; an array value means "any of".
 */
export function filterRows(viewName, filters) {
  const view = VIEWS[viewName];
  let rows = view.rows;
  for (const f of filters) {
    // `month` is the drilldown key of the trend charts, so it filters too.
    const month = f.dimension === 'month';
    if (f.view !== viewName || !(month || view.dimensions.includes(f.dimension)) || f.value === null) continue;
    const wanted = (Array.isArray(f.value) ? f.value : [f.value]).map(String);
    rows = rows.filter((r) => wanted.includes(month ? r.date.slice(0, 7) : String(r[f.dimension])));
  }
  return rows;
}

function aggregate(rows, [fn, field]) {
  if (fn === 'count') return rows.length;
  const sum = rows.reduce((s, r) => s + r[field], 0);
  return fn === 'sum' ? sum : rows.length ? Math.round((sum / rows.length) * 100) / 100 : 0;
}

function groupBy(rows, key) {
  const groups = new Map();
  for (const r of rows) {
    const k = key === 'month' ? r.date.slice(0, 7) : r[key];
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k).push(r);
  }
  return groups;
}

/** Runs one widget's query; `all` lifts the row limit (for exports). */
export function runWidget(dashboard, widget, filters, { all = false } = {}) {
  const view = VIEWS[dashboard.view];
  const rows = filterRows(dashboard.view, filters);
  const member = (m) => `${dashboard.view}.${m}`;
  switch (widget.kind) {
    case 'kpi':
      return { value: aggregate(rows, view.measures[widget.measure]), member: member(widget.measure), rowCount: rows.length };
    case 'line':
    case 'bar':
    case 'donut': {
      const groups = [...groupBy(rows, widget.by)].map(([key, g]) => ({ key, value: aggregate(g, view.measures[widget.measure]) }));
      if (widget.by === 'month') groups.sort((a, b) => (a.key < b.key ? -1 : 1));
      else groups.sort((a, b) => b.value - a.value);
      return { dimension: widget.by, member: member(widget.measure), points: groups };
    }
    case 'table': {
      const groups = [...groupBy(rows, widget.by)].map(([key, g]) => ({
        [widget.by]: key, ...Object.fromEntries(widget.measures.map((m) => [m, aggregate(g, view.measures[m])])),
      }));
      groups.sort((a, b) => b[widget.measures[0]] - a[widget.measures[0]]);
      return { columns: [widget.by, ...widget.measures], members: widget.measures.map(member), rows: all ? groups : groups.slice(0, widget.limit), total: groups.length };
    }
    case 'rows': {
      const picked = (all ? rows : rows.slice(0, widget.limit)).map((r) => Object.fromEntries(widget.columns.map((c) => [c, r[c]])));
      return { columns: widget.columns, rows: picked, total: rows.length };
    }
    default:
      throw new Error(`unknown widget kind ${widget.kind}`);
  }
}

const money = (n) => `$${Math.round(n).toLocaleString('en-US')}`;

/**
 * The analytics agent behind the chat: maps a question onto the orders view by keyword, in English,
 * German, French, Spanish or Japanese. Questions it cannot map are refused, which is how the chat's
 * `error` status can be triggered on purpose. The answer carries what it found (measure, dimension,
 * leader, order count, total), so the embed can word it in the viewer's language; `text` is English.
 */
export function answer(question) {
  const q = question.toLowerCase();
  const rows = VIEWS.orders.rows;
  const dims = [
    ['region', /r[eé]gi[oó]n|where|geo|地域/],
    ['category', /categor|kategor|catégor|produ|カテゴリ|製品/],
    ['channel', /channel|kanal|canal|チャネル/],
    ['account', /account|customer|client|kunde|konto|compte|cuenta|取引先|顧客/],
    ['status', /status|statut|estado|returned|pending|ステータス|返品/],
  ];
  const dim = dims.find(([, re]) => re.test(q))?.[0]
    ?? (/month|trend|over time|monat|verlauf|mois|évolution|\bmes\b|tendencia|月|推移/.test(q) ? 'month' : undefined);
  const measure = /average|aov|durchschnitt|moyen|medio|平均/.test(q) ? 'aov'
    : /order|\bcount\b|how many|bestellung|anzahl|wie viele|commande|combien|pedido|cu[aá]nt[oa]s|注文|件数/.test(q) ? 'orders'
      : /revenue|sales|sold|money|\$|umsatz|chiffre|vente|ingreso|venta|売上/.test(q) ? 'revenue' : undefined;
  if (!measure && !dim) return undefined;
  const m = measure ?? 'revenue';
  const spec = VIEWS.orders.measures[m];
  const found = { measure: m, dimension: dim ?? null, orders: rows.length };
  if (!dim) {
    const v = aggregate(rows, spec);
    const text = `Total ${m === 'aov' ? 'average order value' : m} across ${rows.length} orders: ${m === 'orders' ? v.toLocaleString('en-US') : money(v)}.`;
    return { text, table: null, ...found, value: v, leader: null };
  }
  const groups = [...groupBy(rows, dim)].map(([key, g]) => ({ key, value: aggregate(g, spec) }));
  if (dim === 'month') groups.sort((a, b) => (a.key < b.key ? -1 : 1));
  else groups.sort((a, b) => b.value - a.value);
  const top = groups.slice(0, 8);
  const lead = dim === 'month' ? `${m} by month` : `${top[0].key} leads ${m} by ${dim}`;
  return {
    text: `${lead[0].toUpperCase()}${lead.slice(1)}. I grouped ${rows.length} orders by ${dim}.`,
    table: { columns: [dim, m], format: m === 'orders' ? 'number' : 'currency', rows: top.map((g) => [g.key, g.value]) },
    ...found,
    leader: dim === 'month' ? null : top[0].key,
  };
}
