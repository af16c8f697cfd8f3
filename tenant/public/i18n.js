// Locale state of the embed: Intl formatting for numbers and dates, and a handful of UI strings.

const STRINGS = {
  en: { overview: 'Overview', orders: 'Orders', revenue: 'Revenue', aov: 'Average order', tickets: 'Tickets',
    hours: 'Avg. resolution (h)', csat: 'CSAT', exportCsv: 'Export CSV', exportAll: 'Export data', loading: 'Loading…',
    filters: 'Filters', noFilters: 'No filters', retry: 'Retry', ask: 'Ask a question about your data', send: 'Ask',
    rows: '{n} rows', updated: 'Updated {t}', drill: 'Detail rows', close: 'Close', notFound: 'Page not found',
    failed: 'This widget failed to load', home: 'Home', workbooks: 'Workbooks', dashboards: 'Dashboards', chat: 'AI chat',
    thinking: 'Thinking…', unknownField: 'not on this dashboard', debug: 'Debug' },
  de: { overview: 'Übersicht', orders: 'Bestellungen', revenue: 'Umsatz', aov: 'Ø Bestellwert', tickets: 'Tickets',
    hours: 'Ø Lösungszeit (h)', csat: 'Zufriedenheit', exportCsv: 'CSV exportieren', exportAll: 'Daten exportieren',
    loading: 'Wird geladen…', filters: 'Filter', noFilters: 'Keine Filter', retry: 'Erneut versuchen',
    ask: 'Stellen Sie eine Frage zu Ihren Daten', send: 'Fragen', rows: '{n} Zeilen', updated: 'Aktualisiert {t}',
    drill: 'Detailzeilen', close: 'Schließen', notFound: 'Seite nicht gefunden', failed: 'Dieses Widget konnte nicht geladen werden',
    home: 'Start', workbooks: 'Arbeitsmappen', dashboards: 'Dashboards', chat: 'KI-Chat', thinking: 'Denke nach…',
    unknownField: 'nicht in diesem Dashboard', debug: 'Debug' },
  fr: { overview: 'Vue d’ensemble', orders: 'Commandes', revenue: 'Chiffre d’affaires', aov: 'Panier moyen', tickets: 'Tickets',
    hours: 'Résolution moy. (h)', csat: 'Satisfaction', exportCsv: 'Exporter en CSV', exportAll: 'Exporter les données',
    loading: 'Chargement…', filters: 'Filtres', noFilters: 'Aucun filtre', retry: 'Réessayer',
    ask: 'Posez une question sur vos données', send: 'Demander', rows: '{n} lignes', updated: 'Mis à jour {t}',
    drill: 'Lignes de détail', close: 'Fermer', notFound: 'Page introuvable', failed: 'Ce widget n’a pas pu être chargé',
    home: 'Accueil', workbooks: 'Classeurs', dashboards: 'Tableaux de bord', chat: 'Chat IA', thinking: 'Réflexion…',
    unknownField: 'absent de ce tableau de bord', debug: 'Débogage' },
  es: { overview: 'Resumen', orders: 'Pedidos', revenue: 'Ingresos', aov: 'Pedido medio', tickets: 'Tickets',
    hours: 'Resolución media (h)', csat: 'Satisfacción', exportCsv: 'Exportar CSV', exportAll: 'Exportar datos',
    loading: 'Cargando…', filters: 'Filtros', noFilters: 'Sin filtros', retry: 'Reintentar',
    ask: 'Haz una pregunta sobre tus datos', send: 'Preguntar', rows: '{n} filas', updated: 'Actualizado {t}',
    drill: 'Filas de detalle', close: 'Cerrar', notFound: 'Página no encontrada', failed: 'Este widget no se pudo cargar',
    home: 'Inicio', workbooks: 'Libros', dashboards: 'Paneles', chat: 'Chat IA', thinking: 'Pensando…',
    unknownField: 'no está en este panel', debug: 'Depuración' },
  ja: { overview: '概要', orders: '注文数', revenue: '売上', aov: '平均注文額', tickets: 'チケット', hours: '平均解決時間 (h)',
    csat: '満足度', exportCsv: 'CSV をエクスポート', exportAll: 'データをエクスポート', loading: '読み込み中…', filters: 'フィルター',
    noFilters: 'フィルターなし', retry: '再試行', ask: 'データについて質問する', send: '質問', rows: '{n} 行',
    updated: '更新 {t}', drill: '詳細行', close: '閉じる', notFound: 'ページが見つかりません', failed: 'このウィジェットを読み込めませんでした',
    home: 'ホーム', workbooks: 'ワークブック', dashboards: 'ダッシュボード', chat: 'AI チャット', thinking: '考え中…',
    unknownField: 'このダッシュボードにありません', debug: 'デバッグ' },
};

let locale = 'en-US';
const listeners = new Set();

export const getLocale = () => locale;

/** Switches the locale; `de`, `de-AT` and `de-DE` all find the German strings. */
export function setLocale(tag) {
  locale = Intl.getCanonicalLocales(tag)[0];
  document.documentElement.lang = locale;
  for (const fn of listeners) fn(locale);
}

export const onLocale = (fn) => listeners.add(fn);

/** A UI string in the current language, English as the fallback. */
export function t(key, vars = {}) {
  const lang = locale.split('-')[0];
  const table = Object.hasOwn(STRINGS, lang) ? STRINGS[lang] : STRINGS.en;
  const text = table[key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => String(vars[k] ?? ''));
}

/** Formats a measure value: currency, plain number, hours or a 1–5 score. */
export function fmt(value, format = 'number', { compact = false } = {}) {
  if (typeof value !== 'number') return String(value);
  const opts = compact ? { notation: 'compact', maximumFractionDigits: 1 } : {};
  if (format === 'currency') {
    return new Intl.NumberFormat(locale, { style: 'currency', currency: 'USD', maximumFractionDigits: compact ? 1 : 0, ...opts }).format(value);
  }
  if (format === 'hours' || format === 'score') return new Intl.NumberFormat(locale, { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(value);
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 2, ...opts }).format(value);
}

/** `2025-03-14` → a localized date; `2025-03` → a localized month. */
export function fmtDate(iso, { month = false } = {}) {
  const [y, m, d = '1'] = iso.split('-');
  const date = new Date(Date.UTC(Number(y), Number(m) - 1, Number(d)));
  return new Intl.DateTimeFormat(locale, month ? { month: 'short', timeZone: 'UTC' } : { dateStyle: 'medium', timeZone: 'UTC' }).format(date);
}

export const fmtTime = (date) => new Intl.DateTimeFormat(locale, { timeStyle: 'medium' }).format(date);
