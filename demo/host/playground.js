// The playground page: every control maps to one attribute, property or method of <svc-embed>.
import { filterParam } from '/dist/protocol/index.js';
import { attachLog, elementReady, tenantOrigin } from './events.js';

const $ = (id) => document.getElementById(id);
const embed = $('embed');

const FILTERS = {
  orders: { region: ['North America', 'EMEA', 'APAC', 'LATAM'], category: ['Software', 'Hardware', 'Services', 'Training'],
    channel: ['Online', 'Partner', 'Direct'], status: ['shipped', 'pending', 'returned'] },
  tickets: { team: ['Billing', 'Platform', 'Onboarding', 'Integrations'], priority: ['P1', 'P2', 'P3'], channel: ['Email', 'Chat', 'Phone'], status: ['resolved', 'open'] },
};
const PATHS = {
  'dashboard:sales-overview': ['/', '/details', '/no-such-page'],
  'dashboard:support-ops': ['/', '/no-such-page'],
  app: ['/', '/workbooks', '/workbooks/q3-planning', '/dashboards/sales-overview', '/dashboards/sales-overview/details', '/dashboards/support-ops', '/chat'],
  chat: ['/', '/new'],
};
// Things the element itself would never send: posted straight into the frame to show the embed refusing them.
const MALFORMED = [
  { type: 'svc:action:set-color-scheme', payload: { scheme: 'purple' } },
  { type: 'svc:action:teleport', payload: {} },
  { type: 'svc:action:navigate', payload: { path: '//evil.example/' } },
  { type: 'svc:action:set-filter', payload: { filterUrlParameter: 'f_orders.region={"value":"EMEA"}&allowExport=true' } },
  { type: 'svc:action:set-theme', payload: { primaryColor: 'red' }, json: true },
];

const log = attachLog(embed, { list: $('log'), counts: $('counts'), stateEl: $('state'), empty: $('log-empty') });
$('clear-log').addEventListener('click', () => log.clear());

let tenant;
let surface = 'dashboard:sales-overview';

function segmented(id, onPick) {
  const group = $(id);
  group.addEventListener('click', (e) => {
    const button = e.target.closest('button[data-value]');
    if (!button) return;
    for (const b of group.querySelectorAll('button')) b.setAttribute('aria-checked', String(b === button));
    onPick(button.dataset.value);
  });
}

const view = () => (surface === 'dashboard:support-ops' ? 'tickets' : 'orders');

function buildSrc() {
  const session = $('session').value;
  const [kind, publicId] = surface.split(':');
  const url = new URL(kind === 'dashboard' ? `/embed/dashboard/${encodeURIComponent(publicId)}` : `/embed/${kind}`, tenant);
  if (session) url.searchParams.set('session', session);
  return url.href;
}

/** A new src starts a new embed session; the element re-sends the current state at its ready. */
function load() {
  const src = buildSrc();
  $('src-preview').textContent = `${src}${$('allow-export').checked ? `${src.includes('?') ? '&' : '?'}allowExport=true` : ''}`;
  $('stage-info').textContent = surface.replace(':', ' · ');
  log.loading();
  embed.setAttribute('src', src);
}

function fillFilters() {
  const dims = FILTERS[view()];
  $('filter-dimension').replaceChildren(...Object.keys(dims).map((d) => new Option(`${view()}.${d}`, d)));
  fillValues();
}

function fillValues() {
  const values = FILTERS[view()][$('filter-dimension').value] ?? [];
  $('filter-value').replaceChildren(new Option('All (clear)', ''), ...values.map((v) => new Option(v, v)));
}

function applyFilter() {
  const value = $('filter-value').value;
  // A null value clears that dimension in the embed; removing the attribute would post nothing at all.
  const param = filterParam(view(), $('filter-dimension').value, value === '' ? null : value);
  $('filter-preview').textContent = param;
  embed.setAttribute('filter', param);
}

function applyTheme() {
  const theme = { primaryColor: $('primary').value, borderRadius: Number($('radius').value) };
  if ($('font').value) theme.font = $('font').value;
  $('radius-out').textContent = `${theme.borderRadius}px`;
  embed.theme = theme;
  document.documentElement.style.setProperty('--accent', theme.primaryColor);
}

function fillPaths() {
  $('paths').replaceChildren(...PATHS[surface].map((p) => new Option(p, p)));
  $('path').value = PATHS[surface][1] ?? '/';
}

async function main() {
  if (!(await elementReady())) {
    $('build-warning').hidden = false;
    return;
  }
  tenant = await tenantOrigin();
  $('tenant-origin').textContent = tenant;

  segmented('surface', (value) => {
    surface = value;
    embed.removeAttribute('filter');
    $('filter-preview').textContent = '—';
    fillFilters();
    fillPaths();
    load();
  });
  $('session').addEventListener('change', load);
  $('allow-export').addEventListener('change', (e) => {
    embed.toggleAttribute('allow-export', e.target.checked);
    load();
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
    fillValues();
    applyFilter();
  });
  $('filter-value').addEventListener('change', applyFilter);
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
    const envelope = { source: 'svc-embed', direction: 'action', type: m.type, payload: m.payload, timestamp: Date.now() };
    frame.contentWindow.postMessage(m.json ? JSON.parse(JSON.stringify(envelope).replace('"primaryColor"', '"__proto__":{"polluted":true},"primaryColor"')) : envelope, tenant);
  });

  embed.setAttribute('color-scheme', 'auto');
  embed.setAttribute('locale', $('locale').value);
  fillFilters();
  fillPaths();
  load();
}

main();
