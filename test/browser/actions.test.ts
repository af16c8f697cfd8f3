// Outgoing actions, as the peer on the tenant origin receives them.
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import {
  cleanup,
  embed,
  other,
  peerLoaded,
  peerNavigate,
  peerReady,
  peerReport,
  peerUrl,
  tenant,
  windowOf,
} from './helpers.js';
import type { PeerReport } from './helpers.js';
import { filterParam } from '../../src/index.js';
import type { EmbedTheme } from '../../src/index.js';
import { literal } from '../support/literal.mjs';

const host = location.origin;
const types = (report: PeerReport) => report.map((r) => r.data.type);
const settle = () => new Promise((r) => setTimeout(r, 50));

describe('outgoing actions', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  it('posts nothing before ready, then the state and the held commands in order', async () => {
    const { el } = embed({ src: peerUrl(tenant, null) });
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    el.theme = { primaryColor: '#4f46e5', borderRadius: 8 };
    el.colorScheme = 'dark';
    el.locale = 'de-DE';
    el.filter = filterParam('orders', 'status', 'shipped');
    el.navigate('/a');
    el.refresh();
    el.navigate('/b');
    await el.updateComplete;
    await settle();
    expect(await peerReport(windowOf(el))).to.deep.equal([]);

    await peerReady(windowOf(el));
    const report = await peerReport(windowOf(el));
    expect(types(report)).to.deep.equal([
      'svc:action:set-theme',
      'svc:action:set-color-scheme',
      'svc:action:set-locale',
      'svc:action:set-filter',
      'svc:action:navigate',
      'svc:action:refresh',
      'svc:action:navigate',
    ]);
    expect(report.map((r) => r.data.payload)).to.deep.equal([
      { primaryColor: '#4f46e5', borderRadius: 8 },
      { scheme: 'dark' },
      { locale: 'de-DE' },
      { filterUrlParameter: 'f_orders.status={"value":"shipped"}' },
      { path: '/a' },
      {},
      { path: '/b' },
    ]);
    for (const { origin, data } of report) {
      expect(origin).to.equal(host);
      expect(Object.keys(data).sort()).to.deep.equal(['direction', 'payload', 'source', 'timestamp', 'type']);
      expect(data.source).to.equal('svc-embed');
      expect(data.direction).to.equal('action');
      expect(Number.isFinite(data.timestamp)).to.equal(true);
    }
  });

  it('re-sends the current state at every ready, and held commands only once', async () => {
    const { el, ready } = embed({ 'color-scheme': 'light', locale: 'fr' });
    await ready;
    el.colorScheme = 'dark';
    await el.updateComplete;
    await peerReady(windowOf(el));
    expect(types(await peerReport(windowOf(el)))).to.deep.equal([
      'svc:action:set-color-scheme',
      'svc:action:set-locale', // first ready
      'svc:action:set-color-scheme', // the change
      'svc:action:set-color-scheme',
      'svc:action:set-locale', // repeated ready
    ]);
    const report = await peerReport(windowOf(el));
    expect(report.map((r) => r.data.payload.scheme ?? r.data.payload.locale)).to.deep.equal([
      'light',
      'fr',
      'dark',
      'dark',
      'fr',
    ]);
  });

  it('posts exactly one action per change after ready; removing an attribute posts nothing', async () => {
    const { el, ready } = embed();
    await ready;
    el.setAttribute('color-scheme', 'dark');
    await el.updateComplete;
    el.setAttribute('locale', 'pt-BR');
    el.setAttribute('filter', 'f_orders.region={"value":["EU","US"]}');
    el.setAttribute('theme', '{"primaryColor":"#0a0","font":"Inter"}');
    await el.updateComplete;
    el.removeAttribute('color-scheme');
    el.removeAttribute('locale');
    el.removeAttribute('filter');
    el.removeAttribute('theme');
    await el.updateComplete;
    const report = await peerReport(windowOf(el));
    // Changes batched into one update go out in the state order: theme, color scheme, locale, filter.
    expect(types(report)).to.deep.equal([
      'svc:action:set-color-scheme',
      'svc:action:set-theme',
      'svc:action:set-locale',
      'svc:action:set-filter',
    ]);
    expect(report[1].data.payload).to.deep.equal({ primaryColor: '#0a0', font: 'Inter' });
  });

  const INVALID: Array<[string, string, string]> = [
    ['color-scheme', 'purple', 'light, dark, auto'],
    ['locale', 'not a locale!', 'BCP 47'],
    ['locale', '', 'BCP 47'],
    ['filter', 'orders.status=shipped', 'f_<semantic_view>.<dimension>=<JSON>'],
    ['filter', 'f_orders.status={"value":1}&allowExport=true', 'f_<semantic_view>.<dimension>=<JSON>'],
    ['filter', 'f_orders.status={"val":1}', '"value" key'],
    ['filter', 'f_orders.status="shipped"', '"value" key'],
    ['theme', '{"primaryColor": ', 'plain object'],
    ['theme', '[1,2]', 'plain object'],
    ['theme', '{"__proto__":{"x":1}}', '__proto__'],
    ['theme', '{"nested":{"constructor":1}}', 'constructor'],
  ];
  for (const [attribute, value, form] of INVALID) {
    it(`warns and posts nothing for ${attribute}=${JSON.stringify(value)}`, async () => {
      const { el, ready } = embed();
      await ready;
      const warn = sinon.stub(console, 'warn');
      el.setAttribute(attribute, value);
      await el.updateComplete;
      expect(warn.callCount).to.equal(1);
      expect(warn.firstCall.args[0]).to.include(attribute).and.include(form);
      expect(await peerReport(windowOf(el))).to.deep.equal([]);
    });
  }

  it('warns and posts nothing for a theme property that structured clone or JSON cannot carry', async () => {
    const { el, ready } = embed();
    await ready;
    const warn = sinon.stub(console, 'warn');
    for (const theme of [{ font: () => 'x' }, { d: new Date() }, { n: NaN }, 'red', { s: Symbol('x') }] as unknown[]) {
      el.theme = theme as EmbedTheme;
      await el.updateComplete;
    }
    expect(warn.callCount).to.equal(5);
    expect(await peerReport(windowOf(el))).to.deep.equal([]);
  });

  it('does not send an invalid state at ready either', async () => {
    const warn = sinon.stub(console, 'warn');
    const { el, ready } = embed({ 'color-scheme': 'purple', locale: 'en-GB' });
    await ready;
    expect(warn.callCount).to.equal(1);
    expect((await peerReport(windowOf(el))).map((r) => r.data.payload)).to.deep.equal([{ locale: 'en-GB' }]);
  });

  const BAD_PATHS: unknown[] = [
    'relative',
    '//evil.example/x',
    '/\\evil',
    '/a\\b',
    'https://evil.example/',
    'javascript:alert(1)',
    '/a\nb',
    '/a\u0000',
    '/\u007f',
    '',
    '/a//b',
    42,
    null,
    undefined,
    { path: '/' },
  ];
  for (const path of BAD_PATHS) {
    it(`navigate(${literal(path)}) throws a TypeError and posts nothing`, async () => {
      const { el, ready } = embed();
      await ready;
      expect(() => el.navigate(path as string)).to.throw(TypeError, /must start with a single "\/"/);
      expect(await peerReport(windowOf(el))).to.deep.equal([]);
    });
  }

  it('navigate and refresh post at once when ready', async () => {
    const { el, ready } = embed();
    await ready;
    el.navigate('/dashboards/7?tab=2#top');
    el.refresh();
    const report = await peerReport(windowOf(el));
    expect(report.map((r) => [r.data.type, r.data.payload])).to.deep.equal([
      ['svc:action:navigate', { path: '/dashboards/7?tab=2#top' }],
      ['svc:action:refresh', {}],
    ]);
  });

  it("never targets '*': a frame navigated to another origin receives nothing", async () => {
    const { el, ready } = embed({ 'color-scheme': 'dark' });
    await ready;
    const win = windowOf(el);
    peerNavigate(win, peerUrl(other, null));
    await peerLoaded(win, other);
    el.refresh();
    el.navigate('/x');
    el.colorScheme = 'light';
    await el.updateComplete;
    await settle();
    expect(await peerReport(win, other)).to.deep.equal([]);
  });

  it('drops held commands when src changes, and needs a new ready', async () => {
    const { el } = embed({ src: peerUrl(tenant, null) });
    await el.updateComplete;
    await peerLoaded(windowOf(el));
    el.navigate('/old');
    el.refresh();
    const oldFrame = el.shadowRoot!.querySelector('iframe');
    el.src = peerUrl(tenant, null, '&session=2');
    await el.updateComplete;
    expect(el.shadowRoot!.querySelector('iframe')).to.not.equal(oldFrame);
    expect(el.ready).to.equal(false);
    await peerLoaded(windowOf(el));
    el.navigate('/new');
    await peerReady(windowOf(el));
    // The load holds its loading state until the embed has viewed /new (the peer does when sent there).
    await el.whenReady();
    expect(el.ready).to.equal(true);
    const report = await peerReport(windowOf(el));
    expect(report.map((r) => r.data.payload)).to.deep.equal([{ path: '/new' }]);
  });

  it('keeps commands made before any src was set for the first session', async () => {
    const el = document.createElement('svc-embed');
    document.body.append(el);
    el.navigate('/first');
    el.src = peerUrl(tenant, 'dashboard');
    const ready = new Promise((r) => el.addEventListener('svc-ready', r, { once: true }));
    await ready;
    expect((await peerReport(windowOf(el))).map((r) => r.data.payload)).to.deep.equal([{ path: '/first' }]);
  });
});
