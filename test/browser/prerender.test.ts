// svc-embed/prerender (issue 28): embeds prerendered in the parking container, shown and parked with moveBefore where
// the browser has it. Against the simulated tenant: three dashboards, switched 50 times.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import sinon from 'sinon';
import { canMoveBefore, cleanup, frameOf } from './helpers.js';
import { park, prerender, show } from '../../src/prerender.js';
import type { ShowResult } from '../../src/prerender.js';
import type { SvcActionDetail, SvcEmbedElement } from '../../src/index.js';
import '../../src/define.js';

const [tenantA]: string[] = await executeServerCommand('tenant-origins');
const parkingOf = () => document.querySelector<HTMLElement>('[data-svc-embed-parking]');
const microtasks = () => new Promise((r) => setTimeout(r, 0));
/** Resolves once `el` has seen the embed view `path`. */
const viewed = (el: SvcEmbedElement, path: string) =>
  new Promise<void>((resolve) =>
    el.addEventListener('svc-view', function on(e) {
      if (e.detail.payload.path !== path) return;
      el.removeEventListener('svc-view', on);
      resolve();
    }),
  );

describe('svc-embed/prerender', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  it('three dashboards, switched 50 times: kept and ready in the same task where moveBefore keeps frames; else ready again with the state and the path restored', async function () {
    this.timeout(240_000);
    const boards: Array<[string, string]> = [
      ['dashboard/sales-overview', '/details'],
      ['dashboard/support-ops', '/'],
      ['app', '/workbooks'],
    ];
    const els = boards.map(([board]) =>
      prerender(
        { src: `${tenantA}/embed/${board}?session=demo-acme`, colorScheme: 'dark' },
        { width: 900, height: 500 },
      ),
    );
    await Promise.all(els.map((el) => el.whenReady()));
    // The viewer's place in each.
    for (const [i, [, path]] of boards.entries()) {
      if (path === '/') continue;
      const there = viewed(els[i], path);
      els[i].navigate(path);
      await there;
    }
    const statuses: string[] = [];
    const actions: Array<[number, SvcActionDetail]> = [];
    els.forEach((el, i) => {
      el.addEventListener('svc-status', (e) => statuses.push(`${i} ${e.detail.previous}→${e.detail.status}`));
      el.addEventListener('svc-action', (e) => actions.push([i, e.detail]));
    });
    const outlet = document.createElement('main');
    outlet.style.cssText = 'width: 900px; height: 500px';
    document.body.append(outlet);
    const keeps = canMoveBefore(outlet) && !navigator.userAgent.includes('Firefox');
    const results: ShowResult[] = [];
    let shown: SvcEmbedElement | undefined;
    for (let n = 0; n < 50; n++) {
      const el = els[n % 3];
      const [, path] = boards[n % 3];
      if (shown) park(shown);
      const win = frameOf(el)!.contentWindow;
      const sent = actions.length;
      const result = show(el, outlet);
      results.push(result);
      expect(el.parentNode).to.equal(outlet);
      // What show() says is what happened to the frame.
      expect(result === 'kept', `switch ${n}: ${result}`).to.equal(frameOf(el)!.contentWindow === win);
      if (result === 'kept') expect(el.status, `switch ${n}`).to.equal('ready');
      else {
        expect(el.status, `switch ${n}`).to.equal('loading');
        const restored = path === '/' ? Promise.resolve() : viewed(el, path);
        await el.whenReady();
        await restored;
        // At the new ready: the scheme, and the viewer's path.
        const again = actions
          .slice(sent)
          .filter(([i]) => i === n % 3)
          .map(([, a]) => a.type);
        expect(again, `switch ${n}`).to.include('svc:action:set-color-scheme');
        if (path !== '/') expect(again, `switch ${n}`).to.include('svc:action:navigate');
      }
      shown = el;
    }
    if (keeps) {
      expect(results.every((r) => r === 'kept')).to.equal(true);
      expect(statuses).to.deep.equal([]);
    } else {
      expect(results.every((r) => r === 'reloaded')).to.equal(true);
      expect(els.map((el) => el.status)).to.include('ready');
    }
  });

  it('the parking container: one per document, off-screen at the berth size, inert and hidden, never scrolling the page; it goes with its last element', async () => {
    const el = prerender(
      { src: `${tenantA}/embed/dashboard/sales-overview?session=demo-acme` },
      { width: 640, height: 420 },
    );
    const other = prerender({ src: `${tenantA}/embed/dashboard/support-ops?session=demo-acme` });
    const parking = parkingOf()!;
    expect(document.querySelectorAll('[data-svc-embed-parking]').length).to.equal(1);
    expect([parking.inert, parking.getAttribute('aria-hidden')]).to.deep.equal([true, 'true']);
    expect(getComputedStyle(parking).position).to.equal('fixed');
    const box = el.getBoundingClientRect();
    expect([box.width, box.height]).to.deep.equal([640, 420]);
    expect(box.right).to.be.at.most(0);
    expect(other.getBoundingClientRect().width).to.equal(document.documentElement.clientWidth);
    const root = document.scrollingElement!;
    expect([root.scrollWidth, root.scrollHeight]).to.deep.equal([root.clientWidth, root.clientHeight]);
    await el.whenReady();
    // Shown at another size, then parked: it keeps the size it was shown at.
    const outlet = document.createElement('div');
    outlet.style.cssText = 'width: 500px; height: 300px';
    document.body.append(outlet);
    show(el, outlet);
    el.style.height = '100%';
    park(el);
    expect([el.getBoundingClientRect().width, el.getBoundingClientRect().height]).to.deep.equal([500, 300]);
    expect(park(el)).to.equal('kept');
    // Removed: its berth goes, and with the last one the container.
    el.remove();
    other.remove();
    await microtasks();
    expect(parkingOf()).to.equal(null);
    expect([frameOf(el)?.isConnected ?? false, frameOf(other)?.isConnected ?? false]).to.deep.equal([false, false]);
  });

  it('ignores loading="lazy" with a warning, and refuses what is not an element, a property or a size', () => {
    const warn = sinon.stub(console, 'warn');
    const el = prerender({ src: `${tenantA}/embed/app?session=demo-acme`, loading: 'lazy' });
    expect(el.loading).to.equal(undefined);
    expect(String(warn.firstCall.args[0])).to.match(/loading="lazy"/);
    expect(() => prerender({ innerHTML: '<b>x</b>' } as never)).to.throw(TypeError, /not a property of <svc-embed>/);
    expect(() => prerender(null as never)).to.throw(TypeError, /properties must be an object/);
    expect(() => prerender({}, { width: -1 })).to.throw(TypeError, /size.width must be a positive number/);
    expect(() => show(document.createElement('div') as never, document.body)).to.throw(TypeError, /<svc-embed>/);
    expect(() => show(el, 'main' as never)).to.throw(TypeError, /container must be an element/);
    expect(() => show(el, document.body, document.createElement('p'))).to.throw(TypeError, /before must be a child/);
    expect(() => park({} as never)).to.throw(TypeError, /<svc-embed>/);
  });
});
