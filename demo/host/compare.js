// Two embeds of one tenant origin, side by side: the element's source-window gate keeps their events
// apart. Each pane's label is read from its element, so it always says what the embed was told.
import { filterParam } from '/dist/protocol/index.js';
import { attachLog, openPage } from './events.js';

const $ = (id) => document.getElementById(id);
const panes = [
  { side: 'left', tenant: 'acme', theme: { primaryColor: '#4f46e5', borderRadius: 12 } },
  {
    side: 'right',
    tenant: 'globex',
    theme: { primaryColor: '#0d9488', borderRadius: 4, font: "Georgia, 'Times New Roman', serif" },
  },
];

function label({ side, tenant }) {
  const embed = $(side);
  const filter = embed.getAttribute('filter');
  const value = filter && JSON.parse(decodeURIComponent(filter.slice(filter.indexOf('=') + 1))).value;
  $(`info-${side}`).textContent = [
    tenant,
    'Sales overview',
    embed.getAttribute('color-scheme'),
    embed.getAttribute('locale'),
    value ? `region = ${value}` : null,
  ]
    .filter(Boolean)
    .join(' · ');
}

async function main() {
  const config = await openPage();
  if (!config) return;
  const { tenantOrigin } = config;
  for (const pane of panes) {
    const embed = $(pane.side);
    attachLog(embed, { list: $(`log-${pane.side}`), stateEl: $(`state-${pane.side}`), max: 60 });
    embed.theme = pane.theme;
    // No session in the URL: the element asks its provider when a frame is about to load, and this page's backend
    // mints a single-use session of the pane's embed tenant for that frame.
    embed.sessionProvider = async () => {
      const res = await fetch(`/session?tenant=${pane.tenant}`);
      if (!res.ok) throw new Error(`GET /session answered ${res.status}`);
      return (await res.json()).session;
    };
    embed.setAttribute('src', new URL('/embed/dashboard/sales-overview', tenantOrigin).href);
    // Whatever changes the element's attributes, the label follows.
    new MutationObserver(() => label(pane)).observe(embed, {
      attributes: true,
      attributeFilter: ['color-scheme', 'locale', 'filter'],
    });
    label(pane);
  }
  const all = (fn) => panes.forEach((p) => fn($(p.side)));
  $('both-region').addEventListener('click', () =>
    all((e) => e.setAttribute('filter', filterParam('orders', 'region', 'EMEA'))),
  );
  $('both-clear').addEventListener('click', () =>
    all((e) => e.setAttribute('filter', filterParam('orders', 'region', null))),
  );
  $('both-refresh').addEventListener('click', () => all((e) => e.refresh()));
  $('swap').addEventListener('click', () =>
    all((e) => e.setAttribute('color-scheme', e.getAttribute('color-scheme') === 'dark' ? 'light' : 'dark')),
  );
}

main();
