// The README's quick start, run as written: only the embed URL is swapped for the test peer's.
import { expect } from '@open-wc/testing';
import { cleanup, frameOf, peerReport, peerUrl, windowOf } from './helpers.js';

async function quickStart() {
  const readme = await (await fetch('/README.md')).text();
  const section = readme.slice(readme.indexOf('## Quick start'));
  const block = /```html\n([\s\S]*?)```/.exec(section)![1];
  return new DOMParser().parseFromString(block, 'text/html');
}

describe('README quick start', () => {
  after(cleanup);

  it('loads the bundle named in package.json', async () => {
    const doc = await quickStart();
    const pkg = (await (await fetch('/package.json')).json()) as { unpkg: string };
    const src = doc.querySelector('script[src]')!.getAttribute('src')!;
    expect(src).to.equal(`https://unpkg.com/svc-embed/${pkg.unpkg}`);
    expect(doc.querySelector('script[src]')!.getAttribute('type')).to.equal('module');
  });

  it('works as written', async () => {
    const doc = await quickStart();
    const template = doc.querySelector('svc-embed')!;
    const el = document.createElement('svc-embed');
    for (const { name, value } of template.attributes) el.setAttribute(name, name === 'src' ? peerUrl() : value);
    const ready = new Promise((resolve) => el.addEventListener('svc-ready', resolve, { once: true }));
    document.body.append(el);

    const logged: unknown[][] = [];
    const script = doc.querySelector('script:not([src])')!.textContent;
    // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the README's script as written
    const run = new Function('console', script) as (console: { log: (...args: unknown[]) => void }) => void;
    run({ log: (...args: unknown[]) => logged.push(args) });
    await ready;

    expect(logged).to.deep.equal([['ready', 'signed']]);
    expect(new URL(frameOf(el)!.src).searchParams.get('allowExport')).to.equal('true');
    const report = await peerReport(windowOf(el));
    expect(report.map((r) => [r.data.type, r.data.payload])).to.deep.equal([
      ['svc:action:set-color-scheme', { scheme: 'dark' }],
      ['svc:action:set-locale', { locale: 'de-DE' }],
      ['svc:action:set-filter', { filterUrlParameter: 'f_orders.status={"value":"shipped"}' }],
      ['svc:action:navigate', { path: '/details' }],
    ]);
  });
});
