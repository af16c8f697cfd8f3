// The simulated tenant's semantic views and dashboards, and a tiny query engine over them. The data
// is generated from fixed seeds, so filtered counts are stable and the end-to-end tests can assert them.
import type { ParsedFilter } from '@svc-embed/protocol';
import { prng } from './seed.js';

/** A field value of a row: text, or a number for the measures. */
export type Value = string | number;

/** A row of a semantic view: an id, a date (`YYYY-MM-DD`) and its other fields by name. */
export interface Row {
  readonly id: string;
  readonly date: string;
  readonly [field: string]: Value;
}

/** An order of the orders view. */
export interface OrderRow extends Row {
  readonly account: string;
  readonly region: string;
  readonly category: string;
  readonly channel: string;
  readonly status: 'shipped' | 'pending' | 'returned';
  readonly units: number;
  readonly amount: number;
}

/** A ticket of the tickets view. */
export interface TicketRow extends Row {
  readonly team: string;
  readonly priority: string;
  readonly channel: string;
  readonly status: 'resolved' | 'open';
  readonly hours: number;
  readonly csat: number;
}

/** A measure: a count of rows, or the sum or average of a numeric field. */
export type Measure = readonly ['count'] | readonly ['sum' | 'avg', string];

/** A semantic view: its rows, the dimensions a filter may target, and its measures by name. */
export interface View {
  readonly rows: readonly Row[];
  readonly dimensions: readonly string[];
  readonly measures: Readonly<Record<string, Measure>>;
}

/** The names of the semantic views. */
export type ViewName = 'orders' | 'tickets';

/** How a widget's numbers are shown. */
export type Format = 'currency' | 'number' | 'hours' | 'score';

interface WidgetBase {
  readonly id: string;
  readonly title: string;
  /** Grid columns the widget spans. */
  readonly span?: number;
}

/** One number: a measure over the filtered rows. */
export interface KpiWidget extends WidgetBase {
  readonly kind: 'kpi';
  readonly measure: string;
  readonly format: Format;
}

/** A measure grouped by a dimension (or by `month`), drawn as a chart. */
export interface ChartWidget extends WidgetBase {
  readonly kind: 'line' | 'bar' | 'donut';
  readonly measure: string;
  readonly by: string;
  readonly format: Format;
}

/** Measures grouped by a dimension, as a table of the largest groups. */
export interface TableWidget extends WidgetBase {
  readonly kind: 'table';
  readonly by: string;
  readonly measures: readonly string[];
  readonly limit: number;
}

/** Detail rows: some columns of the newest rows. */
export interface RowsWidget extends WidgetBase {
  readonly kind: 'rows';
  readonly columns: readonly string[];
  readonly limit: number;
}

/** A dashboard widget. */
export type Widget = KpiWidget | ChartWidget | TableWidget | RowsWidget;

/** A page of a dashboard. */
export interface DashboardPage {
  readonly title: string;
  readonly widgets: readonly Widget[];
}

/** A dashboard: its title, deployment, the view its widgets query, and its pages by path. */
export interface Dashboard {
  readonly title: string;
  readonly deploymentId: number;
  readonly view: ViewName;
  readonly pages: Readonly<Record<string, DashboardPage>>;
}

/** A group of rows and the measure's value over it. */
export interface Point {
  readonly key: Value;
  readonly value: number;
}

/** What {@link runWidget} answers, by widget kind. */
export type WidgetResult =
  | { readonly value: number; readonly member: string; readonly rowCount: number }
  | { readonly dimension: string; readonly member: string; readonly points: Point[] }
  | {
      readonly columns: string[];
      readonly members: string[];
      readonly rows: Record<string, Value>[];
      readonly total: number;
    }
  | { readonly columns: readonly string[]; readonly rows: Record<string, Value>[]; readonly total: number };

/** What the analytics agent found, with its English wording in `text`. */
export interface Answer {
  readonly text: string;
  readonly table: {
    readonly columns: string[];
    readonly format: 'number' | 'currency';
    readonly rows: [Value, number][];
  } | null;
  readonly measure: string;
  readonly dimension: string | null;
  readonly orders: number;
  /** The total, when the question named no dimension. */
  readonly value?: number;
  readonly leader: Value | null;
}

const ACCOUNTS = [
  'Acme Corp',
  'Globex',
  'Initech',
  'Umbrella',
  'Hooli',
  'Stark Industries',
  'Wayne Enterprises',
  'Wonka Industries',
  'Tyrell Corp',
  'Cyberdyne',
  'Soylent',
  'Massive Dynamic',
  'Aperture Science',
  'Vandelay Industries',
];

function orders(): OrderRow[] {
  const rand = prng(0x0dde75);
  const regions: [string, number][] = [
    ['North America', 0.38],
    ['EMEA', 0.3],
    ['APAC', 0.22],
    ['LATAM', 0.1],
  ];
  const categories: [string, number, number][] = [
    ['Software', 0.42, 2400],
    ['Hardware', 0.25, 3900],
    ['Services', 0.23, 5200],
    ['Training', 0.1, 900],
  ];
  const channels: [string, number][] = [
    ['Online', 0.45],
    ['Partner', 0.3],
    ['Direct', 0.25],
  ];
  const weighted = <E extends readonly [string, number, ...number[]]>(list: readonly E[]): E => {
    let r = rand();
    for (const entry of list) if ((r -= entry[1]) <= 0) return entry;
    return list[list.length - 1];
  };
  const rows: OrderRow[] = [];
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

function tickets(): TicketRow[] {
  const rand = prng(0x71c4e7);
  const teams = ['Billing', 'Platform', 'Onboarding', 'Integrations'];
  const priorities = ['P3', 'P2', 'P1'];
  const channels = ['Email', 'Chat', 'Phone'];
  const rows: TicketRow[] = [];
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
export const VIEWS: Readonly<Record<ViewName, View>> = {
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
export const DASHBOARDS: Readonly<Record<string, Dashboard>> = {
  'sales-overview': {
    title: 'Sales overview',
    deploymentId: 1,
    view: 'orders',
    pages: {
      '/': {
        title: 'Overview',
        widgets: [
          { id: 'kpi-revenue', kind: 'kpi', title: 'revenue', measure: 'revenue', format: 'currency' },
          { id: 'kpi-orders', kind: 'kpi', title: 'orders', measure: 'orders', format: 'number' },
          { id: 'kpi-aov', kind: 'kpi', title: 'aov', measure: 'aov', format: 'currency' },
          {
            id: 'revenue-trend',
            kind: 'line',
            title: 'Revenue by month',
            measure: 'revenue',
            by: 'month',
            format: 'currency',
            span: 2,
          },
          {
            id: 'revenue-by-region',
            kind: 'bar',
            title: 'Revenue by region',
            measure: 'revenue',
            by: 'region',
            format: 'currency',
          },
          {
            id: 'category-mix',
            kind: 'donut',
            title: 'Revenue by category',
            measure: 'revenue',
            by: 'category',
            format: 'currency',
          },
          {
            id: 'top-accounts',
            kind: 'table',
            title: 'Top accounts',
            by: 'account',
            measures: ['revenue', 'orders'],
            limit: 8,
            span: 2,
          },
        ],
      },
      '/details': {
        title: 'Orders',
        widgets: [
          {
            id: 'orders-by-channel',
            kind: 'bar',
            title: 'Orders by channel',
            measure: 'orders',
            by: 'channel',
            format: 'number',
            span: 2,
          },
          {
            id: 'orders-by-status',
            kind: 'donut',
            title: 'Orders by status',
            measure: 'orders',
            by: 'status',
            format: 'number',
          },
          {
            id: 'recent-orders',
            kind: 'rows',
            title: 'Recent orders',
            columns: ['id', 'date', 'account', 'region', 'category', 'status', 'amount'],
            limit: 25,
            span: 3,
          },
        ],
      },
    },
  },
  'support-ops': {
    title: 'Support operations',
    deploymentId: 2,
    view: 'tickets',
    pages: {
      '/': {
        title: 'Overview',
        widgets: [
          { id: 'kpi-tickets', kind: 'kpi', title: 'tickets', measure: 'tickets', format: 'number' },
          { id: 'kpi-hours', kind: 'kpi', title: 'hours', measure: 'hours', format: 'hours' },
          { id: 'kpi-csat', kind: 'kpi', title: 'csat', measure: 'csat', format: 'score' },
          {
            id: 'tickets-trend',
            kind: 'line',
            title: 'Tickets by month',
            measure: 'tickets',
            by: 'month',
            format: 'number',
            span: 2,
          },
          {
            id: 'tickets-by-team',
            kind: 'bar',
            title: 'Tickets by team',
            measure: 'tickets',
            by: 'team',
            format: 'number',
          },
          {
            id: 'tickets-by-priority',
            kind: 'donut',
            title: 'Tickets by priority',
            measure: 'tickets',
            by: 'priority',
            format: 'number',
          },
          {
            id: 'recent-tickets',
            kind: 'rows',
            title: 'Recent tickets',
            columns: ['id', 'date', 'team', 'priority', 'channel', 'status', 'hours'],
            limit: 12,
            span: 2,
          },
        ],
      },
    },
  },
};

/**
 * Applies filters ([{view, dimension, value}]) to a view's rows. A filter on another view or an
 * unknown dimension does not apply; a null value clears; an array value means "any of".
 */
export function filterRows(viewName: ViewName, filters: readonly ParsedFilter[]): readonly Row[] {
  const view = VIEWS[viewName];
  let rows = view.rows;
  for (const f of filters) {
    // `month` is the drilldown key of the trend charts, so it filters too.
    const month = f.dimension === 'month';
    if (f.view !== viewName || !(month || view.dimensions.includes(f.dimension)) || f.value === null) continue;
    const wanted = (Array.isArray(f.value) ? (f.value as unknown[]) : [f.value]).map(String);
    rows = rows.filter((r) => wanted.includes(month ? r.date.slice(0, 7) : String(r[f.dimension])));
  }
  return rows;
}

function aggregate(rows: readonly Row[], [fn, field]: Measure): number {
  if (fn === 'count') return rows.length;
  // A measure's field is numeric in every row.
  const sum = rows.reduce((s, r) => s + (r[field] as number), 0);
  return fn === 'sum' ? sum : rows.length ? Math.round((sum / rows.length) * 100) / 100 : 0;
}

function groupBy(rows: readonly Row[], key: string): Map<Value, Row[]> {
  const groups = new Map<Value, Row[]>();
  for (const r of rows) {
    const k = key === 'month' ? r.date.slice(0, 7) : r[key];
    if (!groups.has(k)) groups.set(k, []);
    groups.get(k)!.push(r);
  }
  return groups;
}

/** Runs one widget's query; `all` lifts the row limit (for exports). */
export function runWidget(
  dashboard: Dashboard,
  widget: Widget,
  filters: readonly ParsedFilter[],
  { all = false }: { all?: boolean } = {},
): WidgetResult {
  const view = VIEWS[dashboard.view];
  const rows = filterRows(dashboard.view, filters);
  const member = (m: string): string => `${dashboard.view}.${m}`;
  switch (widget.kind) {
    case 'kpi':
      return {
        value: aggregate(rows, view.measures[widget.measure]),
        member: member(widget.measure),
        rowCount: rows.length,
      };
    case 'line':
    case 'bar':
    case 'donut': {
      const groups = [...groupBy(rows, widget.by)].map(([key, g]) => ({
        key,
        value: aggregate(g, view.measures[widget.measure]),
      }));
      if (widget.by === 'month') groups.sort((a, b) => (a.key < b.key ? -1 : 1));
      else groups.sort((a, b) => b.value - a.value);
      return { dimension: widget.by, member: member(widget.measure), points: groups };
    }
    case 'table': {
      const groups: Record<string, Value>[] = [...groupBy(rows, widget.by)].map(([key, g]) => ({
        [widget.by]: key,
        ...Object.fromEntries(widget.measures.map((m) => [m, aggregate(g, view.measures[m])])),
      }));
      // The measures' values are numbers (aggregate's results).
      groups.sort((a, b) => (b[widget.measures[0]] as number) - (a[widget.measures[0]] as number));
      return {
        columns: [widget.by, ...widget.measures],
        members: widget.measures.map(member),
        rows: all ? groups : groups.slice(0, widget.limit),
        total: groups.length,
      };
    }
    case 'rows': {
      const picked = (all ? rows : rows.slice(0, widget.limit)).map((r) =>
        Object.fromEntries(widget.columns.map((c) => [c, r[c]])),
      );
      return { columns: widget.columns, rows: picked, total: rows.length };
    }
    default:
      throw new Error(`unknown widget kind ${(widget as Widget).kind}`);
  }
}

const money = (n: number): string => `$${Math.round(n).toLocaleString('en-US')}`;

/**
 * The analytics agent behind the chat: maps a question onto the orders view by keyword, in English,
 * German, French, Spanish or Japanese. Questions it cannot map are refused, which is how the chat's
 * `error` status can be triggered on purpose. The answer carries what it found (measure, dimension,
 * leader, order count, total), so the embed can word it in the viewer's language; `text` is English.
 */
export function answer(question: string): Answer | undefined {
  const q = question.toLowerCase();
  const rows = VIEWS.orders.rows;
  const dims: [string, RegExp][] = [
    ['region', /r[e\u00e9]gi[o\u00f3]n|where|geo|\u5730\u57df/],
    ['category', /categor|kategor|cat\u00e9gor|produ|\u30ab\u30c6\u30b4\u30ea|\u88fd\u54c1/],
    ['channel', /channel|kanal|canal|\u30c1\u30e3\u30cd\u30eb/],
    ['account', /account|customer|client|kunde|konto|compte|cuenta|\u53d6\u5f15\u5148|\u9867\u5ba2/],
    ['status', /status|statut|estado|returned|pending|\u30b9\u30c6\u30fc\u30bf\u30b9|\u8fd4\u54c1/],
  ];
  const dim =
    dims.find(([, re]) => re.test(q))?.[0] ??
    (/month|trend|over time|monat|verlauf|mois|\u00e9volution|\bmes\b|tendencia|\u6708|\u63a8\u79fb/.test(q)
      ? 'month'
      : undefined);
  const measure = /average|aov|durchschnitt|moyen|medio|\u5e73\u5747/.test(q)
    ? 'aov'
    : /order|\bcount\b|how many|bestellung|anzahl|wie viele|commande|combien|pedido|cu[a\u00e1]nt[oa]s|\u6ce8\u6587|\u4ef6\u6570/.test(
          q,
        )
      ? 'orders'
      : /revenue|sales|sold|money|\$|umsatz|chiffre|vente|ingreso|venta|\u58f2\u4e0a/.test(q)
        ? 'revenue'
        : undefined;
  if (!measure && !dim) return undefined;
  const m = measure ?? 'revenue';
  const spec = VIEWS.orders.measures[m];
  const found: Pick<Answer, 'measure' | 'dimension' | 'orders'> = {
    measure: m,
    dimension: dim ?? null,
    orders: rows.length,
  };
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
    table: {
      columns: [dim, m],
      format: m === 'orders' ? 'number' : 'currency',
      rows: top.map((g) => [g.key, g.value]),
    },
    ...found,
    leader: dim === 'month' ? null : top[0].key,
  };
}
