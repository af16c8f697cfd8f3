// Locale state of the embed: Intl formatting for numbers and dates, and every UI string of every
// surface in each offered language. Data (account, region, category, channel and team names, workbook
// titles, what the viewer typed) is shown as stored and marked translate="no"; so are the protocol's
// own words in the debug panel (message types, the reasons of refused messages).

export const STRINGS = {
  en: {
    docTitle: 'Analytics embed', debug: 'Debug', brand: 'Analytics', home: 'Home', workbooks: 'Workbooks', chat: 'AI chat',
    loading: 'Loading…', close: 'Close', retry: 'Retry', notFound: 'Page not found', updated: 'Updated {t}', rows: '{n} rows',
    filters: 'Filters', noFilters: 'No filters', setByHost: 'Set by the host page', unknownField: 'not on this dashboard',
    exportCsv: 'Export CSV', exportAll: 'Export data', csvButton: '⤓ CSV', drill: 'Detail rows',
    failed: 'This widget failed to load', queryFailed: 'The query did not finish. Try again.',
    'dash.sales-overview': 'Sales overview', 'dash.support-ops': 'Support operations', 'page./': 'Overview', 'page./details': 'Orders',
    'w.kpi-revenue': 'Revenue', 'w.kpi-orders': 'Orders', 'w.kpi-aov': 'Average order', 'w.revenue-trend': 'Revenue by month',
    'w.revenue-by-region': 'Revenue by region', 'w.category-mix': 'Revenue by category', 'w.top-accounts': 'Top accounts',
    'w.orders-by-channel': 'Orders by channel', 'w.orders-by-status': 'Orders by status', 'w.recent-orders': 'Recent orders',
    'w.kpi-tickets': 'Tickets', 'w.kpi-hours': 'Avg. resolution (h)', 'w.kpi-csat': 'CSAT', 'w.tickets-trend': 'Tickets by month',
    'w.tickets-by-team': 'Tickets by team', 'w.tickets-by-priority': 'Tickets by priority', 'w.recent-tickets': 'Recent tickets',
    'col.id': 'ID', 'col.date': 'date', 'col.account': 'account', 'col.region': 'region', 'col.category': 'category',
    'col.channel': 'channel', 'col.status': 'status', 'col.amount': 'amount', 'col.team': 'team', 'col.priority': 'priority',
    'col.hours': 'hours', 'col.revenue': 'revenue', 'col.orders': 'orders', 'col.aov': 'average order', 'col.month': 'month',
    'st.shipped': 'Shipped', 'st.pending': 'Pending', 'st.returned': 'Returned', 'st.resolved': 'Resolved', 'st.open': 'Open',
    'fatal.SessionExpiredError': 'Session expired', 'fatal.SessionExpiredError.text': 'The embed session has expired. Ask the host application for a new session.',
    'fatal.InvalidSessionError': 'Invalid session', 'fatal.InvalidSessionError.text': 'The embed session is not valid.',
    'fatal.DashboardNotFoundError': 'Dashboard not found', 'fatal.DashboardNotFoundError.text': 'This dashboard does not exist or is not shared with this embed.',
    'fatal.NetworkError': 'Service unreachable', 'fatal.NetworkError.text': 'The analytics service could not be reached.',
    'fatal.other': 'This embed cannot be shown', 'fatal.other.text': 'The analytics service refused this embed.',
    dashProd: 'Dashboard · Production', dashStaging: 'Dashboard · Staging', workbookCard: 'Workbook · {owner}',
    agentCard: 'Sales analyst agent', colName: 'Name', colOwner: 'Owner', colUpdated: 'Updated',
    workbookBy: 'Workbook by {owner} · updated {date}', sheet: 'Sheet 1 · accounts',
    analyst: 'Sales analyst', analystSub: 'Ask about revenue, orders, regions, channels and accounts.',
    ask: 'Ask a question about your data', send: 'Ask', thinking: 'Thinking…',
    q1: 'Revenue by region', q2: 'How many orders by channel?', q3: 'Top accounts by revenue', q4: 'Revenue trend by month',
    q5: 'What is the weather in Paris?',
    'm.revenue': 'Revenue', 'm.orders': 'Orders', 'm.aov': 'Average order value',
    answerGrouped: '{measure} by {dim}: {leader} leads. I grouped {n} orders.', answerTrend: '{measure} by month, over {n} orders.',
    answerTotal: '{measure} across {n} orders: {value}.', answerCount: 'There are {n} orders.',
    unanswered: 'I could not map that question onto the sales model. Try revenue, orders, regions, categories, channels or accounts.',
    chatFailed: 'The question could not be answered. Try again.',
    debugInfo: 'surface {surface} · session {session} · export {export}', sessionNone: 'none (private)', sessionGiven: 'given',
    on: 'on', off: 'off', failWidget: 'Fail a widget', clear: 'Clear',
    'dir.in': '⇠ action', 'dir.out': '⇢ event', 'dir.note': '• note', 'dir.rejected': '✕ rejected',
  },
  de: {
    docTitle: 'Analyse-Einbettung', debug: 'Debug', brand: 'Analysen', home: 'Start', workbooks: 'Arbeitsmappen', chat: 'KI-Chat',
    loading: 'Wird geladen…', close: 'Schließen', retry: 'Erneut versuchen', notFound: 'Seite nicht gefunden', updated: 'Aktualisiert {t}',
    rows: '{n} Zeilen', filters: 'Filter', noFilters: 'Keine Filter', setByHost: 'Von der Host-Seite gesetzt',
    unknownField: 'nicht in diesem Dashboard', exportCsv: 'CSV exportieren', exportAll: 'Daten exportieren', csvButton: '⤓ CSV',
    drill: 'Detailzeilen', failed: 'Dieses Widget konnte nicht geladen werden',
    queryFailed: 'Die Abfrage wurde nicht abgeschlossen. Versuchen Sie es erneut.',
    'dash.sales-overview': 'Vertriebsübersicht', 'dash.support-ops': 'Support-Betrieb', 'page./': 'Übersicht', 'page./details': 'Bestellungen',
    'w.kpi-revenue': 'Umsatz', 'w.kpi-orders': 'Bestellungen', 'w.kpi-aov': 'Ø Bestellwert', 'w.revenue-trend': 'Umsatz nach Monat',
    'w.revenue-by-region': 'Umsatz nach Region', 'w.category-mix': 'Umsatz nach Kategorie', 'w.top-accounts': 'Top-Kunden',
    'w.orders-by-channel': 'Bestellungen nach Kanal', 'w.orders-by-status': 'Bestellungen nach Status', 'w.recent-orders': 'Neueste Bestellungen',
    'w.kpi-tickets': 'Tickets', 'w.kpi-hours': 'Ø Lösungszeit (h)', 'w.kpi-csat': 'Zufriedenheit', 'w.tickets-trend': 'Tickets nach Monat',
    'w.tickets-by-team': 'Tickets nach Team', 'w.tickets-by-priority': 'Tickets nach Priorität', 'w.recent-tickets': 'Neueste Tickets',
    'col.id': 'ID', 'col.date': 'Datum', 'col.account': 'Kunde', 'col.region': 'Region', 'col.category': 'Kategorie',
    'col.channel': 'Kanal', 'col.status': 'Status', 'col.amount': 'Betrag', 'col.team': 'Team', 'col.priority': 'Priorität',
    'col.hours': 'Stunden', 'col.revenue': 'Umsatz', 'col.orders': 'Bestellungen', 'col.aov': 'Ø Bestellwert', 'col.month': 'Monat',
    'st.shipped': 'Versandt', 'st.pending': 'Ausstehend', 'st.returned': 'Retourniert', 'st.resolved': 'Gelöst', 'st.open': 'Offen',
    'fatal.SessionExpiredError': 'Sitzung abgelaufen', 'fatal.SessionExpiredError.text': 'Die Sitzung dieser Einbettung ist abgelaufen. Die Host-Anwendung muss eine neue Sitzung anfordern.',
    'fatal.InvalidSessionError': 'Ungültige Sitzung', 'fatal.InvalidSessionError.text': 'Die Sitzung dieser Einbettung ist nicht gültig.',
    'fatal.DashboardNotFoundError': 'Dashboard nicht gefunden', 'fatal.DashboardNotFoundError.text': 'Dieses Dashboard gibt es nicht, oder es ist für diese Einbettung nicht freigegeben.',
    'fatal.NetworkError': 'Dienst nicht erreichbar', 'fatal.NetworkError.text': 'Der Analysedienst ist nicht erreichbar.',
    'fatal.other': 'Diese Einbettung kann nicht angezeigt werden', 'fatal.other.text': 'Der Analysedienst hat diese Einbettung abgelehnt.',
    dashProd: 'Dashboard · Produktion', dashStaging: 'Dashboard · Testumgebung', workbookCard: 'Arbeitsmappe · {owner}',
    agentCard: 'Vertriebsanalyse-Agent', colName: 'Name', colOwner: 'Besitzer', colUpdated: 'Aktualisiert',
    workbookBy: 'Arbeitsmappe von {owner} · aktualisiert am {date}', sheet: 'Blatt 1 · Kunden',
    analyst: 'Vertriebsanalyst', analystSub: 'Fragen Sie nach Umsatz, Bestellungen, Regionen, Kanälen und Kunden.',
    ask: 'Stellen Sie eine Frage zu Ihren Daten', send: 'Fragen', thinking: 'Denke nach…',
    q1: 'Umsatz nach Region', q2: 'Wie viele Bestellungen pro Kanal?', q3: 'Top-Kunden nach Umsatz', q4: 'Umsatzverlauf nach Monat',
    q5: 'Wie ist das Wetter in Paris?',
    'm.revenue': 'Umsatz', 'm.orders': 'Bestellungen', 'm.aov': 'Durchschnittlicher Bestellwert',
    answerGrouped: '{measure} nach {dim}: {leader} liegt vorn. Ich habe {n} Bestellungen gruppiert.',
    answerTrend: '{measure} nach Monat, über {n} Bestellungen.', answerTotal: '{measure} über {n} Bestellungen: {value}.',
    answerCount: 'Es gibt {n} Bestellungen.',
    unanswered: 'Diese Frage passt nicht zum Vertriebsmodell. Fragen Sie nach Umsatz, Bestellungen, Regionen, Kategorien, Kanälen oder Kunden.',
    chatFailed: 'Die Frage konnte nicht beantwortet werden. Versuchen Sie es erneut.',
    debugInfo: 'Oberfläche {surface} · Sitzung {session} · Export {export}', sessionNone: 'keine (privat)', sessionGiven: 'vorhanden',
    on: 'an', off: 'aus', failWidget: 'Widget-Fehler auslösen', clear: 'Leeren',
    'dir.in': '⇠ Aktion', 'dir.out': '⇢ Ereignis', 'dir.note': '• Hinweis', 'dir.rejected': '✕ abgelehnt',
  },
  fr: {
    docTitle: 'Intégration analytique', debug: 'Débogage', brand: 'Analytique', home: 'Accueil', workbooks: 'Classeurs', chat: 'Chat IA',
    loading: 'Chargement…', close: 'Fermer', retry: 'Réessayer', notFound: 'Page introuvable', updated: 'Mis à jour à {t}',
    rows: '{n} lignes', filters: 'Filtres', noFilters: 'Aucun filtre', setByHost: 'Défini par la page hôte',
    unknownField: 'absent de ce tableau de bord', exportCsv: 'Exporter en CSV', exportAll: 'Exporter les données', csvButton: '⤓ CSV',
    drill: 'Lignes de détail', failed: 'Ce widget n’a pas pu être chargé', queryFailed: 'La requête n’a pas abouti. Réessayez.',
    'dash.sales-overview': 'Vue d’ensemble des ventes', 'dash.support-ops': 'Opérations du support', 'page./': 'Vue d’ensemble',
    'page./details': 'Commandes',
    'w.kpi-revenue': 'Chiffre d’affaires', 'w.kpi-orders': 'Commandes', 'w.kpi-aov': 'Panier moyen', 'w.revenue-trend': 'Chiffre d’affaires par mois',
    'w.revenue-by-region': 'Chiffre d’affaires par région', 'w.category-mix': 'Chiffre d’affaires par catégorie', 'w.top-accounts': 'Meilleurs comptes',
    'w.orders-by-channel': 'Commandes par canal', 'w.orders-by-status': 'Commandes par statut', 'w.recent-orders': 'Commandes récentes',
    'w.kpi-tickets': 'Tickets', 'w.kpi-hours': 'Résolution moy. (h)', 'w.kpi-csat': 'Satisfaction', 'w.tickets-trend': 'Tickets par mois',
    'w.tickets-by-team': 'Tickets par équipe', 'w.tickets-by-priority': 'Tickets par priorité', 'w.recent-tickets': 'Tickets récents',
    'col.id': 'Réf.', 'col.date': 'date', 'col.account': 'compte', 'col.region': 'région', 'col.category': 'catégorie',
    'col.channel': 'canal', 'col.status': 'statut', 'col.amount': 'montant', 'col.team': 'équipe', 'col.priority': 'priorité',
    'col.hours': 'heures', 'col.revenue': 'chiffre d’affaires', 'col.orders': 'commandes', 'col.aov': 'panier moyen', 'col.month': 'mois',
    'st.shipped': 'Expédiée', 'st.pending': 'En attente', 'st.returned': 'Retournée', 'st.resolved': 'Résolu', 'st.open': 'Ouvert',
    'fatal.SessionExpiredError': 'Session expirée', 'fatal.SessionExpiredError.text': 'La session de cette intégration a expiré. L’application hôte doit demander une nouvelle session.',
    'fatal.InvalidSessionError': 'Session non valide', 'fatal.InvalidSessionError.text': 'La session de cette intégration n’est pas valide.',
    'fatal.DashboardNotFoundError': 'Tableau de bord introuvable', 'fatal.DashboardNotFoundError.text': 'Ce tableau de bord n’existe pas ou n’est pas partagé avec cette intégration.',
    'fatal.NetworkError': 'Service injoignable', 'fatal.NetworkError.text': 'Le service d’analyse est injoignable.',
    'fatal.other': 'Cette intégration ne peut pas être affichée', 'fatal.other.text': 'Le service d’analyse a refusé cette intégration.',
    dashProd: 'Tableau de bord · Production', dashStaging: 'Tableau de bord · Préproduction', workbookCard: 'Classeur · {owner}',
    agentCard: 'Agent analyste des ventes', colName: 'Nom', colOwner: 'Propriétaire', colUpdated: 'Mis à jour',
    workbookBy: 'Classeur de {owner} · mis à jour le {date}', sheet: 'Feuille 1 · comptes',
    analyst: 'Analyste des ventes', analystSub: 'Posez vos questions sur le chiffre d’affaires, les commandes, les régions, les canaux et les comptes.',
    ask: 'Posez une question sur vos données', send: 'Demander', thinking: 'Réflexion…',
    q1: 'Chiffre d’affaires par région', q2: 'Combien de commandes par canal ?', q3: 'Meilleurs comptes par chiffre d’affaires',
    q4: 'Évolution du chiffre d’affaires par mois', q5: 'Quel temps fait-il à Paris ?',
    'm.revenue': 'Chiffre d’affaires', 'm.orders': 'Commandes', 'm.aov': 'Panier moyen',
    answerGrouped: '{measure} par {dim} : {leader} arrive en tête. J’ai regroupé {n} commandes.',
    answerTrend: '{measure} par mois, sur {n} commandes.', answerTotal: '{measure} sur {n} commandes : {value}.',
    answerCount: 'Il y a {n} commandes.',
    unanswered: 'Je n’ai pas pu rattacher cette question au modèle des ventes. Essayez le chiffre d’affaires, les commandes, les régions, les catégories, les canaux ou les comptes.',
    chatFailed: 'La question n’a pas pu recevoir de réponse. Réessayez.',
    debugInfo: 'surface {surface} · session {session} · exportation {export}', sessionNone: 'aucune (privé)', sessionGiven: 'fournie',
    on: 'activée', off: 'désactivée', failWidget: 'Faire échouer un widget', clear: 'Effacer',
    'dir.in': '⇠ action', 'dir.out': '⇢ événement', 'dir.note': '• remarque', 'dir.rejected': '✕ refusé',
  },
  es: {
    docTitle: 'Analítica integrada', debug: 'Depuración', brand: 'Analítica', home: 'Inicio', workbooks: 'Libros', chat: 'Chat IA',
    loading: 'Cargando…', close: 'Cerrar', retry: 'Reintentar', notFound: 'Página no encontrada', updated: 'Actualizado a las {t}',
    rows: '{n} filas', filters: 'Filtros', noFilters: 'Sin filtros', setByHost: 'Definido por la página anfitriona',
    unknownField: 'no está en este panel', exportCsv: 'Exportar CSV', exportAll: 'Exportar datos', csvButton: '⤓ CSV',
    drill: 'Filas de detalle', failed: 'Este widget no se pudo cargar', queryFailed: 'La consulta no terminó. Inténtalo de nuevo.',
    'dash.sales-overview': 'Resumen de ventas', 'dash.support-ops': 'Operaciones de soporte', 'page./': 'Resumen', 'page./details': 'Pedidos',
    'w.kpi-revenue': 'Ingresos', 'w.kpi-orders': 'Pedidos', 'w.kpi-aov': 'Pedido medio', 'w.revenue-trend': 'Ingresos por mes',
    'w.revenue-by-region': 'Ingresos por región', 'w.category-mix': 'Ingresos por categoría', 'w.top-accounts': 'Mejores cuentas',
    'w.orders-by-channel': 'Pedidos por canal', 'w.orders-by-status': 'Pedidos por estado', 'w.recent-orders': 'Pedidos recientes',
    'w.kpi-tickets': 'Incidencias', 'w.kpi-hours': 'Resolución media (h)', 'w.kpi-csat': 'Satisfacción', 'w.tickets-trend': 'Incidencias por mes',
    'w.tickets-by-team': 'Incidencias por equipo', 'w.tickets-by-priority': 'Incidencias por prioridad', 'w.recent-tickets': 'Incidencias recientes',
    'col.id': 'ID', 'col.date': 'fecha', 'col.account': 'cuenta', 'col.region': 'región', 'col.category': 'categoría',
    'col.channel': 'canal', 'col.status': 'estado', 'col.amount': 'importe', 'col.team': 'equipo', 'col.priority': 'prioridad',
    'col.hours': 'horas', 'col.revenue': 'ingresos', 'col.orders': 'pedidos', 'col.aov': 'pedido medio', 'col.month': 'mes',
    'st.shipped': 'Enviado', 'st.pending': 'Pendiente', 'st.returned': 'Devuelto', 'st.resolved': 'Resuelta', 'st.open': 'Abierta',
    'fatal.SessionExpiredError': 'Sesión caducada', 'fatal.SessionExpiredError.text': 'La sesión de esta integración ha caducado. La aplicación anfitriona debe pedir una sesión nueva.',
    'fatal.InvalidSessionError': 'Sesión no válida', 'fatal.InvalidSessionError.text': 'La sesión de esta integración no es válida.',
    'fatal.DashboardNotFoundError': 'Panel no encontrado', 'fatal.DashboardNotFoundError.text': 'Este panel no existe o no está compartido con esta integración.',
    'fatal.NetworkError': 'Servicio inaccesible', 'fatal.NetworkError.text': 'No se pudo acceder al servicio de analítica.',
    'fatal.other': 'Esta integración no se puede mostrar', 'fatal.other.text': 'El servicio de analítica rechazó esta integración.',
    dashProd: 'Panel · Producción', dashStaging: 'Panel · Pruebas', workbookCard: 'Libro · {owner}',
    agentCard: 'Agente analista de ventas', colName: 'Nombre', colOwner: 'Propietario', colUpdated: 'Actualizado',
    workbookBy: 'Libro de {owner} · actualizado el {date}', sheet: 'Hoja 1 · cuentas',
    analyst: 'Analista de ventas', analystSub: 'Pregunta por ingresos, pedidos, regiones, canales y cuentas.',
    ask: 'Haz una pregunta sobre tus datos', send: 'Preguntar', thinking: 'Pensando…',
    q1: 'Ingresos por región', q2: '¿Cuántos pedidos por canal?', q3: 'Mejores cuentas por ingresos', q4: 'Tendencia de ingresos por mes',
    q5: '¿Qué tiempo hace en París?',
    'm.revenue': 'Ingresos', 'm.orders': 'Pedidos', 'm.aov': 'Valor medio del pedido',
    answerGrouped: '{measure} por {dim}: {leader} va en cabeza. He agrupado {n} pedidos.',
    answerTrend: '{measure} por mes, sobre {n} pedidos.', answerTotal: '{measure} en {n} pedidos: {value}.',
    answerCount: 'Hay {n} pedidos.',
    unanswered: 'No pude relacionar esa pregunta con el modelo de ventas. Prueba con ingresos, pedidos, regiones, categorías, canales o cuentas.',
    chatFailed: 'No se pudo responder a la pregunta. Inténtalo de nuevo.',
    debugInfo: 'superficie {surface} · sesión {session} · exportación {export}', sessionNone: 'ninguna (privado)', sessionGiven: 'proporcionada',
    on: 'activada', off: 'desactivada', failWidget: 'Hacer fallar un widget', clear: 'Borrar',
    'dir.in': '⇠ acción', 'dir.out': '⇢ evento', 'dir.note': '• nota', 'dir.rejected': '✕ rechazado',
  },
  ja: {
    docTitle: '分析の埋め込み', debug: 'デバッグ', brand: 'アナリティクス', home: 'ホーム', workbooks: 'ワークブック', chat: 'AI チャット',
    loading: '読み込み中…', close: '閉じる', retry: '再試行', notFound: 'ページが見つかりません', updated: '{t} に更新',
    rows: '{n} 行', filters: 'フィルター', noFilters: 'フィルターなし', setByHost: 'ホストページで設定',
    unknownField: 'このダッシュボードにありません', exportCsv: 'CSV をエクスポート', exportAll: 'データをエクスポート', csvButton: '⤓ CSV',
    drill: '詳細行', failed: 'このウィジェットを読み込めませんでした', queryFailed: 'クエリが完了しませんでした。もう一度お試しください。',
    'dash.sales-overview': '売上の概要', 'dash.support-ops': 'サポート業務', 'page./': '概要', 'page./details': '注文',
    'w.kpi-revenue': '売上', 'w.kpi-orders': '注文数', 'w.kpi-aov': '平均注文額', 'w.revenue-trend': '月別の売上',
    'w.revenue-by-region': '地域別の売上', 'w.category-mix': 'カテゴリ別の売上', 'w.top-accounts': '上位の取引先',
    'w.orders-by-channel': 'チャネル別の注文数', 'w.orders-by-status': 'ステータス別の注文数', 'w.recent-orders': '最近の注文',
    'w.kpi-tickets': 'チケット', 'w.kpi-hours': '平均解決時間 (h)', 'w.kpi-csat': '満足度', 'w.tickets-trend': '月別のチケット',
    'w.tickets-by-team': 'チーム別のチケット', 'w.tickets-by-priority': '優先度別のチケット', 'w.recent-tickets': '最近のチケット',
    'col.id': 'ID', 'col.date': '日付', 'col.account': '取引先', 'col.region': '地域', 'col.category': 'カテゴリ',
    'col.channel': 'チャネル', 'col.status': 'ステータス', 'col.amount': '金額', 'col.team': 'チーム', 'col.priority': '優先度',
    'col.hours': '時間', 'col.revenue': '売上', 'col.orders': '注文数', 'col.aov': '平均注文額', 'col.month': '月',
    'st.shipped': '出荷済み', 'st.pending': '保留中', 'st.returned': '返品', 'st.resolved': '解決済み', 'st.open': '未解決',
    'fatal.SessionExpiredError': 'セッションの有効期限切れ', 'fatal.SessionExpiredError.text': 'この埋め込みのセッションは有効期限が切れました。ホストアプリケーションに新しいセッションを依頼してください。',
    'fatal.InvalidSessionError': '無効なセッション', 'fatal.InvalidSessionError.text': 'この埋め込みのセッションは無効です。',
    'fatal.DashboardNotFoundError': 'ダッシュボードが見つかりません', 'fatal.DashboardNotFoundError.text': 'このダッシュボードは存在しないか、この埋め込みと共有されていません。',
    'fatal.NetworkError': 'サービスに接続できません', 'fatal.NetworkError.text': '分析サービスに接続できませんでした。',
    'fatal.other': 'この埋め込みは表示できません', 'fatal.other.text': '分析サービスがこの埋め込みを拒否しました。',
    dashProd: 'ダッシュボード · 本番', dashStaging: 'ダッシュボード · ステージング', workbookCard: 'ワークブック · {owner}',
    agentCard: '営業アナリスト エージェント', colName: '名前', colOwner: '所有者', colUpdated: '更新日',
    workbookBy: '{owner} のワークブック · {date} 更新', sheet: 'シート 1 · 取引先',
    analyst: '営業アナリスト', analystSub: '売上、注文、地域、チャネル、取引先について質問できます。',
    ask: 'データについて質問する', send: '質問', thinking: '考え中…',
    q1: '地域別の売上', q2: 'チャネル別の注文数は？', q3: '売上上位の取引先', q4: '月別の売上推移', q5: 'パリの天気は？',
    'm.revenue': '売上', 'm.orders': '注文数', 'm.aov': '平均注文額',
    answerGrouped: '{dim}別の{measure}：{leader} がトップです。{n} 件の注文を集計しました。',
    answerTrend: '月別の{measure}（{n} 件の注文）。', answerTotal: '{n} 件の注文の{measure}：{value}。', answerCount: '注文は {n} 件です。',
    unanswered: 'この質問を売上モデルに対応付けられませんでした。売上、注文、地域、カテゴリ、チャネル、取引先について質問してください。',
    chatFailed: '質問に回答できませんでした。もう一度お試しください。',
    debugInfo: 'サーフェス {surface} · セッション {session} · エクスポート {export}', sessionNone: 'なし（プライベート）', sessionGiven: 'あり',
    on: 'オン', off: 'オフ', failWidget: 'ウィジェットを失敗させる', clear: 'クリア',
    'dir.in': '⇠ アクション', 'dir.out': '⇢ イベント', 'dir.note': '• メモ', 'dir.rejected': '✕ 拒否',
  },
};

/** The language of a tag that has strings here (`de-AT` → `de`), else English. */
const language = (tag) => {
  const lang = tag.split('-')[0];
  return Object.hasOwn(STRINGS, lang) ? lang : 'en';
};

// Until the host says otherwise (its locale arrives after ready), the viewer's browser language: an
// error before ready, such as an expired session, is then shown in a language the viewer reads.
let locale = 'en-US';
try {
  if (typeof navigator !== 'undefined' && navigator.language) locale = Intl.getCanonicalLocales(navigator.language)[0];
} catch {
  // An unusual navigator.language: English.
}
const listeners = new Set();

export const getLocale = () => locale;

function applyToDocument() {
  if (typeof document === 'undefined') return;
  document.documentElement.lang = locale;
  document.title = t('docTitle');
}
applyToDocument();

/** Switches the locale; `de`, `de-AT` and `de-DE` all find the German strings. */
export function setLocale(tag) {
  locale = Intl.getCanonicalLocales(tag)[0];
  applyToDocument();
  for (const fn of listeners) fn(locale);
}

export const onLocale = (fn) => listeners.add(fn);

/** A UI string in the current language; English only for a key a table lacks (a test keeps them complete). */
export function t(key, vars = {}) {
  const text = STRINGS[language(locale)][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, k) => String(vars[k] ?? ''));
}

/** A column or dimension name, as a table header or in a sentence. */
export const columnLabel = (c) => t(`col.${c}`);

/** A value of a dimension as shown: a status code by its name, a month localized, anything else as stored. */
export function valueLabel(dimension, v) {
  if (dimension === 'status' && Object.hasOwn(STRINGS.en, `st.${v}`)) return t(`st.${v}`);
  return dimension === 'month' ? fmtDate(String(v), { month: true }) : String(v);
}

/** Whether values of this dimension are data (names of regions, accounts…), shown as stored and marked translate="no". */
export const isData = (dimension) => !['status', 'month', 'date'].includes(dimension);

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
