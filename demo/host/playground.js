// The playground page: every control maps to an attribute, property or method of <svc-embed>, and
// three scenarios show what the element does when things go wrong in the field.
import { filterParam } from '/dist/protocol/index.js';
import { attachLog, openPage } from './events.js';

const $ = (id) => document.getElementById(id);
const embed = $('embed');
// This page's loading and error cards, held here: switching the custom slots off takes them out of the
// document (so $() no longer finds them or what is inside them), and switching them on puts them back.
const slots = [$('slot-loading'), $('slot-error')];
const inSlots = (id) => slots.map((slot) => slot.querySelector(`#${id}`)).find(Boolean);

const FILTERS = {
  orders: {
    region: ['North America', 'EMEA', 'APAC', 'LATAM'],
    category: ['Software', 'Hardware', 'Services', 'Training'],
    channel: ['Online', 'Partner', 'Direct'],
    status: ['shipped', 'pending', 'returned'],
  },
  tickets: {
    team: ['Billing', 'Platform', 'Onboarding', 'Integrations'],
    priority: ['P1', 'P2', 'P3'],
    channel: ['Email', 'Chat', 'Phone'],
    status: ['resolved', 'open'],
  },
};
const PATHS = {
  'dashboard:sales-overview': ['/', '/details', '/no-such-page'],
  'dashboard:support-ops': ['/', '/no-such-page'],
  app: [
    '/',
    '/workbooks',
    '/workbooks/q3-planning',
    '/dashboards/sales-overview',
    '/dashboards/sales-overview/details',
    '/dashboards/support-ops',
    '/chat',
  ],
  chat: ['/', '/new'],
};
const SESSION_HINTS = {
  'demo-acme': 'Signed for tenant acme.',
  'demo-globex': 'Signed for tenant globex.',
  '': 'No session: the embed runs in private mode.',
  expired: 'The tenant refuses it: a fatal error, and no ready.',
  'not-a-session': 'Not a session the tenant knows: a fatal error, and no ready.',
};
const ERROR_TITLES = {
  'ready-timeout': 'No ready from the embed',
  'config-error': 'The embed URL was refused',
  'embed-fatal-error': 'The embed stopped',
  'session-renewal-failed': 'The session could not be renewed',
};
// Things the element itself would never send: posted straight into the frame to show the embed refusing them.
const MALFORMED = [
  { type: 'svc:action:set-color-scheme', payload: { scheme: 'purple' } },
  { type: 'svc:action:teleport', payload: {} },
  { type: 'svc:action:navigate', payload: { path: '//evil.example/' } },
  {
    type: 'svc:action:set-filter',
    payload: { filterUrlParameter: 'f_orders.region={"value":"EMEA"}&allowExport=true' },
  },
  { type: 'svc:action:set-theme', payload: { primaryColor: 'red' }, json: true },
];
const TIMEOUT_SCENARIO_MS = 8000;
const START_DELAY_MS = 2500;

const log = attachLog(embed, { list: $('log'), counts: $('counts'), stateEl: $('state'), empty: $('log-empty') });
$('clear-log').addEventListener('click', () => log.clear());

let config;
let surface = 'dashboard:sales-overview';
let form = 'src';
/** The running scenario: 'origin', 'expiring', 'loading' or none. */
let scenario;
/** The session of the "expiring" scenario and its expiry (ISO 8601, as the tenant gives it). */
/** Whether the scenario's first frame has said ready. */
let scenarioLoaded = false;
/** How many sessions the "expiring" scenario has swapped in ahead of expiry. */
let swaps = 0;
/** The session the element renewed to, since this page last set the URL, and its expiry (epoch ms). */
let renewedSession;
let renewedExpiresAt;
/** The filter the embed has applied, as this page sent it: {dimension, value}, or none. */
let applied;

// ---- small helpers

function segmented(id, onPick) {
  const group = $(id);
  group.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-value]');
    if (!button || button.disabled) return;
    pick(id, button.dataset.value);
    onPick(button.dataset.value);
  });
}

function pick(id, value) {
  for (const b of $(id).querySelectorAll('button')) b.setAttribute('aria-checked', String(b.dataset.value === value));
}

const view = () => (surface === 'dashboard:support-ops' ? 'tickets' : 'orders');
const tenantName = () => /^demo-([a-z0-9]+)/.exec($('session').value)?.[1] ?? 'acme';

// ---- the embed URL, in either form

function sessionValue() {
  // The scenario gives the element no session: its provider mints one for each frame, as the service requires.
  return scenario === 'expiring' ? '' : $('session').value;
}

function buildSrc() {
  const tenant = scenario === 'origin' ? config.refusingTenantOrigin : config.tenantOrigin;
  const [kind, publicId] = surface.split(':');
  const url = new URL(
    kind === 'dashboard' ? `/embed/dashboard/${encodeURIComponent(publicId)}` : `/embed/${kind}`,
    tenant,
  );
  if (sessionValue()) url.searchParams.set('session', sessionValue());
  // The simulated embed can wait before it starts, so a host's loading state can be seen.
  if (scenario === 'loading') url.searchParams.set('startDelay', String(START_DELAY_MS));
  return url.href;
}

/** Gives the element its URL, in the chosen form. A new URL is a new embed session. */
function setUrl() {
  const [, publicId] = surface.split(':');
  renewedSession = undefined;
  for (const name of ['src', 'tenant-origin', 'public-id', 'session']) embed.removeAttribute(name);
  // The provider's answers carry their expiry: this page's own session has none to give.
  embed.sessionExpiresAt = null;
  if (form === 'parts') {
    embed.setAttribute('tenant-origin', config.tenantOrigin);
    embed.setAttribute('public-id', publicId);
    if (sessionValue()) embed.setAttribute('session', sessionValue());
  } else {
    embed.setAttribute('src', buildSrc());
  }
  renderPreview();
  $('stage-info').textContent =
    `${surface.replace(':', ' · ')}${scenario === 'origin' ? ' · from the refusing tenant' : ''}`;
}

/** Loads the embed from the controls; `reload` starts it again even when the URL is the same. */
async function load({ reload = false } = {}) {
  if (reload) {
    for (const name of ['src', 'tenant-origin', 'public-id', 'session']) embed.removeAttribute(name);
    await embed.updateComplete;
  }
  setUrl();
}

/**
 * The element's URL as this page set it, written as attributes. A renewed session is the element's own: it
 * loads this page's URL with the renewed session in it, and src and session keep what this page set.
 */
function renderPreview() {
  const props = [
    ['src', 'src'],
    ['tenant-origin', 'tenantOrigin'],
    ['public-id', 'publicId'],
    ['session', 'session'],
  ];
  const attrs = props.filter(([, prop]) => embed[prop]).map(([attr, prop]) => `${attr}="${embed[prop]}"`);
  if (embed.allowExport) attrs.push('allow-export');
  if (renewedSession) attrs.push(`<!-- renewed by the element: session=${renewedSession} -->`);
  $('src-preview').textContent = attrs.join('\n');
}

// ---- sessions: the provider asks this page's server, as a customer's backend would be asked

/** A fresh session from this page's server: `{session}`, and with a ttl also `{ttlSeconds, expiresAt}`. */
async function mintSession({ ttl } = {}) {
  const q = new URLSearchParams({ tenant: tenantName() });
  if (ttl) q.set('ttl', String(ttl));
  const res = await fetch(`/session?${q}`);
  if (!res.ok) throw new Error(`GET /session answered ${res.status}`);
  return res.json();
}

async function provider({ reason }) {
  // In the scenario, every session lasts 20 s, and the provider says when it ends: the element renews ahead of it.
  const ttl = scenario === 'expiring' ? 20 : undefined;
  log.note(
    `sessionProvider called (${reason}): GET /session?tenant=${tenantName()}${ttl ? `&ttl=${ttl}` : ''} mints a fresh session`,
  );
  const { session, expiresAt } = await mintSession({ ttl });
  renewedSession = session;
  renewedExpiresAt = Date.parse(expiresAt);
  return expiresAt ? { session, expiresAt } : session;
}

function useProvider(on) {
  $('provider').checked = on;
  embed.sessionProvider = on ? provider : null;
}

async function renew() {
  try {
    if (embed.sessionProvider) await embed.renewSession();
    else {
      log.note('renewSession(session) with a session this page fetched from GET /session');
      await embed.renewSession((renewedSession = (await mintSession()).session));
    }
  } catch (error) {
    log.note(`renewSession() failed: ${error.reason ?? error.message}`);
  }
}

// ---- the session countdown of the "expiring" scenario

let countdown;
function startCountdown(ends) {
  clearInterval(countdown);
  const tick = () => {
    const left = Math.ceil((ends - Date.now()) / 1000);
    $('countdown').textContent =
      (left > 0 ? `session ends in ${left} s` : 'session ended') + (swaps ? ` · ${swaps} renewed ahead` : '');
    if (left <= 0) clearInterval(countdown);
  };
  $('countdown').hidden = false;
  tick();
  countdown = setInterval(tick, 250);
}

function stopCountdown() {
  clearInterval(countdown);
  $('countdown').hidden = true;
}

// ---- filter: one dimension at a time, like the element's `filter`, and always what the embed applies

function fillFilters() {
  const dims = FILTERS[view()];
  $('filter-dimension').replaceChildren(...Object.keys(dims).map((d) => new Option(d, d)));
  if (applied) $('filter-dimension').value = applied.dimension;
  fillValues();
}

function fillValues() {
  const dimension = $('filter-dimension').value;
  const values = FILTERS[view()][dimension] ?? [];
  $('filter-value').replaceChildren(new Option('All', ''), ...values.map((v) => new Option(v, v)));
  $('filter-value').value = applied?.dimension === dimension ? applied.value : '';
}

function sendFilter(dimension, value) {
  const param = filterParam(view(), dimension, value);
  $('filter-preview').textContent = param;
  embed.setAttribute('filter', param);
  applied = value === null ? undefined : { dimension, value };
  renderApplied();
}

function renderApplied() {
  $('filter-applied').textContent = applied
    ? `Applied in the embed: ${view()}.${applied.dimension} = ${applied.value}`
    : 'No filter applied in the embed.';
}

function resetFilter() {
  applied = undefined;
  embed.removeAttribute('filter');
  $('filter-preview').textContent = '—';
  fillFilters();
  renderApplied();
}

// ---- theme

function applyTheme() {
  const theme = { primaryColor: $('primary').value, borderRadius: Number($('radius').value) };
  if ($('font').value) theme.font = $('font').value;
  $('radius-out').textContent = `${theme.borderRadius}px`;
  embed.theme = theme;
  document.documentElement.style.setProperty('--accent', theme.primaryColor);
}

// ---- the surface and what depends on it

function setSurface(value) {
  surface = value;
  pick('surface', value);
  const dashboard = surface.startsWith('dashboard:');
  // The tenant-origin form builds dashboard URLs only.
  $('url-form').querySelector('[data-value="parts"]').disabled = !dashboard;
  if (!dashboard && form === 'parts') setForm('src');
  resetFilter();
  const chat = surface === 'chat';
  $('filter-group').disabled = chat;
  $('filter-view').textContent = chat ? '—' : view();
  $('filter-note').textContent = chat
    ? 'The chat surface takes no filters.'
    : surface === 'app'
      ? 'Applies to the app’s Sales overview dashboard.'
      : '';
  $('paths').replaceChildren(...PATHS[surface].map((p) => new Option(p, p)));
  $('path').value = PATHS[surface][1] ?? '/';
}

function setForm(value) {
  form = value;
  pick('url-form', value);
}

// ---- the loading and error slots: this page's own content over the frame

function onStatus({ status, reason, message }) {
  if (status === 'loading') {
    const renewal = reason === 'session-renewal';
    inSlots('loading-title').textContent = renewal ? 'Renewing the session…' : 'Connecting to your analytics…';
    inSlots('loading-sub').textContent = renewal
      ? 'A new session, then a new frame; the viewer keeps their place.'
      : 'Waiting for the embed to say it is ready.';
  }
  if (status === 'error') {
    inSlots('error-title').textContent = ERROR_TITLES[reason] ?? 'The embed stopped';
    inSlots('error-reason').textContent = reason ?? '';
    showMessage(inSlots('error-message'), message ?? '');
  }
  renderPreview();
}

/** The element's message as text; a list of likely causes ("Likely: a; b; or c.") as a list. */
function showMessage(box, message) {
  const [head, causes] = message.split(/(?<=Likely:) /);
  const items = causes ? causes.replace(/\.$/, '').split(/; (?:or )?/) : [];
  const list = document.createElement('ul');
  for (const item of items) list.append(Object.assign(document.createElement('li'), { textContent: item }));
  box.replaceChildren(
    Object.assign(document.createElement('p'), { textContent: head }),
    ...(items.length ? [list] : []),
  );
}

function useCustomSlots(on) {
  $('custom-slots').checked = on;
  for (const slot of slots) {
    if (on) embed.append(slot);
    else slot.remove();
  }
  embed.classList.toggle('custom-slots', on);
}

// ---- scenarios

function setScenario(name, hint = '') {
  scenario = name;
  for (const [id, value] of [
    ['scenario-origin', 'origin'],
    ['scenario-expiring', 'expiring'],
    ['scenario-loading', 'loading'],
  ]) {
    $(id).setAttribute('aria-pressed', String(name === value));
  }
  $('scenario-hint').textContent = hint;
  if (name !== 'expiring') stopCountdown();
}

function setTimeoutControl(value) {
  $('ready-timeout').value = value;
  if (value === '') embed.removeAttribute('ready-timeout');
  else embed.setAttribute('ready-timeout', value);
}

async function wrongOrigin() {
  setScenario(
    'origin',
    `The frame comes from ${config.refusingTenantOrigin}, whose allowed host origins leave out ${location.origin}. ` +
      `The browser refuses to show it; the element waits ${TIMEOUT_SCENARIO_MS / 1000} s for ready, then shows its diagnosis.`,
  );
  setSurface('dashboard:sales-overview');
  setForm('src');
  setTimeoutControl(String(TIMEOUT_SCENARIO_MS));
  log.note(
    `Scenario "Wrong host origin": loading from a tenant that allows only https://app.example.com; ready-timeout ${TIMEOUT_SCENARIO_MS}`,
  );
  await load();
}

async function expiring() {
  setScenario(
    'expiring',
    'Sessions of 20 s, single-use, minted for each frame by the session provider, which says when each ends. 5 s ' +
      'before one ends, the element asks for the next, loads it in a frame under this one (covered and inert) with ' +
      'the filter and the scheme, navigates it to the page the viewer is on, and swaps once its dashboard there has ' +
      'loaded and been painted: no overlay, no flash. The log shows each swap.',
  );
  setSurface('dashboard:sales-overview');
  setTimeoutControl('');
  useProvider(true);
  swaps = 0;
  scenarioLoaded = false;
  log.note(
    'Scenario "Session expiring in 20 s": no session in the URL; the sessionProvider mints one for each frame (GET /session?ttl=20)',
  );
  await load();
  await embed.whenReady();
  log.note('whenReady() resolved: now the dark scheme, a filter and navigate("/details"): the viewer\'s place to keep');
  pick('color-scheme', 'dark');
  embed.setAttribute('color-scheme', 'dark');
  $('filter-dimension').value = 'region';
  fillValues();
  $('filter-value').value = 'EMEA';
  sendFilter('region', 'EMEA');
  embed.navigate('/details');
}

async function customLoading() {
  setScenario(
    'loading',
    `The embed starts ${START_DELAY_MS / 1000} s late (startDelay in its URL); meanwhile this page's loading card, ` +
      'slotted into <svc-embed>, covers the frame.',
  );
  // startDelay goes into the src URL; the tenant-origin form has no room for it.
  setForm('src');
  setTimeoutControl('');
  useCustomSlots(true);
  log.note('Scenario "Custom loading slot": reloading the embed, slow to start on purpose');
  await load({ reload: true });
}

async function reset() {
  setScenario(undefined);
  setForm('src');
  setSurface('dashboard:sales-overview');
  $('session').value = 'demo-acme';
  $('allow-export').checked = false;
  embed.removeAttribute('allow-export');
  $('title').value = 'Sales analytics';
  embed.setAttribute('title', 'Sales analytics');
  setTimeoutControl('');
  $('loading').value = '';
  embed.removeAttribute('loading');
  $('debug').checked = false;
  embed.removeAttribute('debug');
  useProvider(false);
  useCustomSlots(true);
  pick('color-scheme', 'auto');
  embed.setAttribute('color-scheme', 'auto');
  $('locale').value = 'en-US';
  embed.setAttribute('locale', 'en-US');
  $('primary').value = '#4f46e5';
  $('radius').value = '10';
  $('font').value = '';
  applyTheme();
  renderSessionHint();
  await load();
}

function renderSessionHint() {
  $('session-hint').textContent = SESSION_HINTS[$('session').value] ?? '';
}

// ---- wiring

async function main() {
  config = await openPage();
  if (!config) return;
  if (!config.refusingTenantOrigin) {
    $('scenario-origin').disabled = true;
    $('scenario-origin').title = 'Needs the refusing tenant that npm start runs';
  }

  segmented('surface', (value) => {
    setScenario(undefined);
    setSurface(value);
    load();
  });
  segmented('url-form', (value) => {
    setForm(value);
    load();
  });
  $('session').addEventListener('change', () => {
    if (scenario === 'expiring') setScenario(undefined);
    renderSessionHint();
    load();
  });
  $('allow-export').addEventListener('change', (e) => {
    embed.toggleAttribute('allow-export', e.target.checked);
    renderPreview();
  });
  $('title').addEventListener('input', (e) => {
    if (e.target.value.trim()) embed.setAttribute('title', e.target.value);
    else embed.removeAttribute('title');
  });

  segmented('color-scheme', (value) => embed.setAttribute('color-scheme', value));
  $('locale').addEventListener('change', (e) => embed.setAttribute('locale', e.target.value));
  $('swatches').addEventListener('click', (e) => {
    const color = e.target.closest('[data-color]')?.dataset.color;
    if (!color) return;
    $('primary').value = color;
    applyTheme();
  });
  for (const id of ['primary', 'radius', 'font']) $(id).addEventListener('input', applyTheme);

  $('filter-dimension').addEventListener('change', () => {
    // The filter moves to another dimension: the old one is cleared in the embed first, so what the
    // control shows ("All" for the new dimension) is what the embed applies.
    if (applied && applied.dimension !== $('filter-dimension').value) sendFilter(applied.dimension, null);
    fillValues();
  });
  $('filter-value').addEventListener('change', (e) => {
    const dimension = $('filter-dimension').value;
    if (e.target.value) sendFilter(dimension, e.target.value);
    else if (applied?.dimension === dimension) sendFilter(dimension, null);
  });

  $('go').addEventListener('click', () => {
    $('path-error').textContent = '';
    try {
      embed.navigate($('path').value);
    } catch (error) {
      // The element refuses paths that are not inside the embed (a scheme, "//", a backslash…).
      $('path-error').textContent = error.message;
    }
  });
  $('path').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') $('go').click();
  });
  $('refresh').addEventListener('click', () => embed.refresh());
  let bad = 0;
  $('bad-action').addEventListener('click', () => {
    const frame = embed.shadowRoot?.querySelector('iframe');
    if (!frame?.contentWindow) return;
    const m = MALFORMED[bad++ % MALFORMED.length];
    const envelope = {
      source: 'svc-embed',
      direction: 'action',
      type: m.type,
      payload: m.payload,
      timestamp: Date.now(),
    };
    log.note(
      `posted a malformed ${m.type} straight into the frame (not through the element): the embed's Debug panel shows it refused`,
    );
    frame.contentWindow.postMessage(
      m.json
        ? JSON.parse(JSON.stringify(envelope).replace('"primaryColor"', '"__proto__":{"polluted":true},"primaryColor"'))
        : envelope,
      new URL(frame.src).origin,
    );
  });

  $('ready-timeout').addEventListener('change', (e) => setTimeoutControl(e.target.value));
  $('loading').addEventListener('change', (e) => {
    if (e.target.value) embed.setAttribute('loading', e.target.value);
    else embed.removeAttribute('loading');
  });
  $('debug').addEventListener('change', (e) => embed.toggleAttribute('debug', e.target.checked));
  $('provider').addEventListener('change', (e) => useProvider(e.target.checked));
  $('renew').addEventListener('click', renew);

  $('scenario-origin').addEventListener('click', wrongOrigin);
  $('scenario-expiring').addEventListener('click', () =>
    expiring().catch((error) => log.note(`scenario stopped: ${error.reason ?? error.message}`)),
  );
  $('scenario-loading').addEventListener('click', customLoading);
  $('custom-slots').addEventListener('change', (e) => useCustomSlots(e.target.checked));
  $('reset').addEventListener('click', reset);
  inSlots('error-retry').addEventListener('click', () => load({ reload: true }));

  embed.addEventListener('svc-status', (e) => onStatus(e.detail));
  embed.addEventListener('svc-ready', () => {
    if (scenario !== 'expiring') return;
    // The first ready is the load's; each later one without a status change is a swap.
    if (!scenarioLoaded) {
      scenarioLoaded = true;
      return startCountdown(renewedExpiresAt);
    }
    swaps++;
    log.note(
      `Renewed ahead of expiry (${swaps}): the new session's frame, loaded behind this one and on the viewer's page, took its place; status stayed ready`,
    );
    startCountdown(renewedExpiresAt);
    renderPreview();
  });
  embed.addEventListener('svc-session-renewal-failed', (e) => {
    const { attempt, reason } = e.detail;
    log.note(`Renewal ahead of expiry failed (attempt ${attempt}, ${reason}): the visible frame stays; retrying`);
  });
  embed.addEventListener('svc-status', (e) => {
    if (scenario !== 'expiring') return;
    if (e.detail.reason === 'session-renewal') {
      stopCountdown();
      log.note(
        'The embed said its session expired: the element renews it (it keeps the held commands and the last path)',
      );
    }
  });

  embed.setAttribute('color-scheme', 'auto');
  embed.setAttribute('locale', $('locale').value);
  useCustomSlots(true);
  setSurface(surface);
  renderSessionHint();
  await load();
}

main();
