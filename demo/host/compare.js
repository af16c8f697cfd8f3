// Two embeds of one tenant origin, side by side: the element's source-window gate keeps their events apart.
import { filterParam } from '/dist/protocol/index.js';
import { attachLog, elementReady, tenantOrigin } from './events.js';

const $ = (id) => document.getElementById(id);
const panes = [
  { embed: $('left'), session: 'demo-acme', theme: { primaryColor: '#4f46e5', borderRadius: 12 } },
  { embed: $('right'), session: 'demo-globex', theme: { primaryColor: '#0d9488', borderRadius: 4, font: "Georgia, 'Times New Roman', serif" } },
];

async function main() {
  if (!(await elementReady())) {
    $('build-warning').hidden = false;
    return;
  }
  const tenant = await tenantOrigin();
  $('tenant-origin').textContent = tenant;
  for (const [i, pane] of panes.entries()) {
    const side = i === 0 ? 'left' : 'right';
    const log = attachLog(pane.embed, { list: $(`log-${side}`), stateEl: $(`state-${side}`), max: 60 });
    pane.embed.theme = pane.theme;
    const url = new URL('/embed/dashboard/sales-overview', tenant);
    url.searchParams.set('session', pane.session);
    log.loading();
    pane.embed.setAttribute('src', url.href);
  }
  const all = (fn) => panes.forEach((p) => fn(p.embed));
  $('both-region').addEventListener('click', () => all((e) => e.setAttribute('filter', filterParam('orders', 'region', 'EMEA'))));
  $('both-clear').addEventListener('click', () => all((e) => e.setAttribute('filter', filterParam('orders', 'region', null))));
  $('both-refresh').addEventListener('click', () => all((e) => e.refresh()));
  $('swap').addEventListener('click', () => all((e) => e.setAttribute('color-scheme', e.getAttribute('color-scheme') === 'dark' ? 'light' : 'dark')));
}

main();
