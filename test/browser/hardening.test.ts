// The defects of the outside review (issue 7), each with the test that failed on the code it found them in.
import { expect, oneEvent } from '@open-wc/testing';
import sinon from 'sinon';
import {
  cleanup,
  embed,
  envelope,
  frameOf,
  oneSvcEvent,
  peerLoaded,
  peerPopup,
  peerPost,
  peerPostPort,
  peerPostValues,
  peerReady,
  peerReport,
  peerUrl,
  record,
  tenant,
  windowOf,
} from './helpers.js';
import type { PeerReport } from './helpers.js';
import { literal } from '../support/literal.mjs';
import { SvcEmbedElement, filterParam } from '../../src/index.js';
import type { SvcConfigErrorDetail } from '../../src/index.js';

const types = (report: PeerReport) => report.map((r) => r.data.type);

/** An element whose Lit update can be held back, as a busy framework or a long task would. */
class LateEmbed extends SvcEmbedElement {
  hold?: Promise<void>;
  protected override async scheduleUpdate() {
    await this.hold;
    return super.scheduleUpdate();
  }
}
customElements.define('late-svc-embed', LateEmbed);

async function lateEmbed() {
  const el = document.createElement('late-svc-embed') as LateEmbed;
  el.src = peerUrl();
  const ready = oneEvent(el, 'svc-ready');
  document.body.append(el);
  await ready;
  let release!: () => void;
  const hold = () => {
    el.hold = new Promise<void>((r) => (release = r));
    return () => release();
  };
  return { el, hold };
}

describe('hardening', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  describe('a URL change ends the session at the assignment', () => {
    it('posts nothing to the old frame after src changes, even before the update has run', async () => {
      const { el, hold } = await lateEmbed();
      const oldWin = windowOf(el);
      const release = hold();
      el.src = peerUrl(tenant, null, '&session=2');
      el.navigate('/x');
      el.colorScheme = 'dark';
      el.refresh();
      expect(el.ready).to.equal(false);
      // The update is held: the old frame is still in the document, and must have received nothing.
      expect(await peerReport(oldWin)).to.deep.equal([]);
      release();
      await el.updateComplete;
      expect(windowOf(el)).to.not.equal(oldWin);
      await peerLoaded(windowOf(el));
      await peerReady(windowOf(el));
      expect(types(await peerReport(windowOf(el)))).to.deep.equal([
        'svc:action:set-color-scheme',
        'svc:action:navigate',
        'svc:action:refresh',
      ]);
    });

    it('holds a command made in an event listener right after the src change for the new session', async () => {
      const { el, hold } = await lateEmbed();
      const oldWin = windowOf(el);
      let release!: () => void;
      el.addEventListener(
        'svc-view',
        () => {
          release = hold();
          el.tenantOrigin = tenant;
          el.publicId = 'board-2';
          el.src = null;
          el.navigate('/from-listener');
        },
        { once: true },
      );
      await peerPost(oldWin, [envelope('svc:event:view', { surface: 'dashboard', path: '/' })]);
      expect(await peerReport(oldWin)).to.deep.equal([]);
      release();
      await el.updateComplete;
      expect(frameOf(el)!.src).to.equal(`${tenant}/embed/dashboard/board-2`);
      await peerLoaded(windowOf(el));
      await peerReady(windowOf(el));
      expect((await peerReport(windowOf(el))).map((r) => r.data.payload)).to.deep.equal([{ path: '/from-listener' }]);
    });

    it('keeps the session when an assignment leaves the URL as it was', async () => {
      const { el, ready } = embed();
      await ready;
      el.session = 'ignored-because-src-wins';
      const { src } = el;
      el.src = src;
      expect(el.ready).to.equal(true);
      el.refresh();
      expect(types(await peerReport(windowOf(el)))).to.deep.equal(['svc:action:refresh']);
    });
  });

  describe('posting never breaks the handshake', () => {
    it('sends a JSON copy of a reactive-proxy theme, taken when it is set, and still says ready', async () => {
      const { el } = embed({ src: peerUrl(tenant, null) });
      await el.updateComplete;
      await peerLoaded(windowOf(el));
      const reactive = new Proxy(
        { primaryColor: '#4f46e5', nested: { radius: 4 } },
        {
          get: (t, k, r): unknown => Reflect.get(t, k, r),
        },
      );
      el.theme = reactive;
      const ready = oneEvent(el, 'svc-ready');
      await peerReady(windowOf(el));
      await ready;
      el.theme = new Proxy({ primaryColor: '#000' }, {});
      await el.updateComplete;
      const report = await peerReport(windowOf(el));
      expect(report.map((r) => [r.data.type, r.data.payload])).to.deep.equal([
        ['svc:action:set-theme', { primaryColor: '#4f46e5', nested: { radius: 4 } }],
        ['svc:action:set-theme', { primaryColor: '#000' }],
      ]);
    });

    it('warns, naming the action, when a post fails, and carries on', async () => {
      const { el, ready } = embed();
      await ready;
      const warn = sinon.stub(console, 'warn');
      Object.defineProperty(frameOf(el), 'contentWindow', {
        get: () => ({
          postMessage: () => {
            throw new DOMException('cannot clone', 'DataCloneError');
          },
        }),
      });
      expect(() => el.navigate('/a')).to.not.throw();
      el.refresh();
      expect(warn.args.map((a): unknown => a[0])).to.deep.equal([
        '<svc-embed>: could not send svc:action:navigate: DataCloneError',
        '<svc-embed>: could not send svc:action:refresh: DataCloneError',
      ]);
    });

    it('ignores a theme whose getter throws, with a warning', async () => {
      const { el, ready } = embed();
      await ready;
      const warn = sinon.stub(console, 'warn');
      el.theme = {
        get primaryColor() {
          throw new Error('boom');
        },
      } as never;
      await el.updateComplete;
      expect(warn.callCount).to.equal(1);
      expect(warn.firstCall.args[0]).to.include('ignoring theme');
      expect(await peerReport(windowOf(el))).to.deep.equal([]);
    });
  });

  describe('public-id is one safe path segment', () => {
    const BAD = [
      '.',
      '..',
      '%2e',
      '%2e%2e',
      '.%2e',
      'a/b',
      'a\\b',
      '..%2f..',
      'a?b',
      'a#b',
      'a b',
      'a;b',
      'a\u0000',
      'ü',
      'x'.repeat(257),
    ];
    for (const publicId of BAD) {
      it(`refuses public-id ${literal(publicId)} with invalid-public-id`, async () => {
        const error = sinon.stub(console, 'error');
        const el = document.createElement('svc-embed');
        const errors: Array<CustomEvent<SvcConfigErrorDetail>> = [];
        el.addEventListener('svc-config-error', (e) => errors.push(e));
        Object.assign(el, { tenantOrigin: tenant, publicId, session: 'demo' });
        document.body.append(el);
        await el.updateComplete;
        expect(frameOf(el)).to.equal(null);
        expect(errors.map((e) => e.detail.reason)).to.deep.equal(['invalid-public-id']);
        expect(error.callCount).to.equal(1);
      });
    }

    for (const publicId of ['7f3c9a', 'sales-overview', 'v1.2', '...', 'a_b~c', 'x'.repeat(256)]) {
      it(`accepts public-id ${publicId.length > 20 ? `of ${publicId.length} characters` : publicId}`, async () => {
        const el = document.createElement('svc-embed');
        Object.assign(el, { tenantOrigin: tenant, publicId });
        document.body.append(el);
        await el.updateComplete;
        expect(frameOf(el)!.src).to.equal(`${tenant}/embed/dashboard/${publicId}`);
      });
    }
  });

  describe('navigate() refuses what a path must not hold', () => {
    const BAD = [
      '/x\u0085y',
      '/\u009b31m',
      '/\u0080',
      '/\u009f',
      '/a\u2028b',
      '/a\u2029b',
      '/\u202eevil',
      '/\u2066x\u2069',
      '/\u200e',
      '/\u061c',
      '/\ud800',
      '/x\udc00',
      '/..',
      '/../admin',
      '/a/../../b',
      '/./x',
      '/a/.',
      '/%2e%2e/x',
      '/%2E./x',
      '/a/%2e',
    ];
    for (const path of BAD) {
      it(`navigate(${literal(path)}) throws a TypeError`, async () => {
        const { el, ready } = embed();
        await ready;
        expect(() => el.navigate(path)).to.throw(TypeError, /must start with a single "\/"/);
        expect(await peerReport(windowOf(el))).to.deep.equal([]);
      });
    }

    it('accepts paths with dots, escapes and unicode that are not dot segments', async () => {
      const { el, ready } = embed();
      await ready;
      const good = ['/.well-known', '/a..b/c', '/v1.2/x', '/q?x=../y', '/ünïcode/日本', '/a%20b', '/😀'];
      for (const path of good) el.navigate(path);
      expect((await peerReport(windowOf(el))).map((r) => r.data.payload.path)).to.deep.equal(good);
    });
  });

  describe('messages that carry more than data', () => {
    it('rejects a message that transfers a MessagePort, and dispatches nothing of it', async () => {
      const { el, ready } = embed();
      await ready;
      const seen = record(el);
      await peerPostPort(windowOf(el), envelope('svc:event:drilldown', { member: 'orders.count', value: 1 }));
      expect(seen.map((e) => [e.type, e.detail])).to.deep.equal([
        ['svc-message-rejected', { reason: 'ports: not allowed', type: 'svc:event:drilldown' }],
      ]);
    });

    it('passes any structured-clone drilldown value through as is, at any depth', async () => {
      const { el, ready } = embed();
      await ready;
      const seen = record(el);
      let deep: unknown = 'bottom';
      for (let i = 0; i < 40; i++) deep = [deep];
      // Built in the peer, so each is the browser's own structured clone of the real thing.
      await peerPostValues(windowOf(el));
      await peerPost(windowOf(el), [envelope('svc:event:drilldown', { member: 'm', value: deep })]);
      expect(seen.map((e) => e.type)).to.deep.equal(Array(9).fill('svc-drilldown'));
      const values = seen.map((e) => e.detail.payload!.value);
      expect(values[0]).to.be.instanceOf(Map);
      expect([...(values[0] as Map<unknown, unknown>)]).to.deep.equal([[1, 2]]);
      expect(values[1]).to.be.instanceOf(Date);
      expect((values[1] as Date).getTime()).to.equal(0);
      expect(values[2]).to.be.instanceOf(Blob);
      expect(values[3]).to.be.instanceOf(ArrayBuffer);
      expect((values[3] as ArrayBuffer).byteLength).to.equal(2);
      expect(values[4]).to.be.instanceOf(Uint8Array);
      expect(values[5]).to.be.instanceOf(RegExp);
      expect(Number.isNaN((values[6] as unknown[])[0])).to.equal(true);
      expect((values[7] as { nested: unknown }).nested).to.be.instanceOf(Set);
      let depth = 0;
      for (let v = values[8]; Array.isArray(v); v = v[0]) depth++;
      expect(depth).to.equal(40);
    });

    it('keeps prototype keys inside a drilldown value as data, and pollutes nothing', async () => {
      const { el, ready } = embed();
      await ready;
      const seen = record(el);
      await peerPost(windowOf(el), [
        '{"source":"svc-embed","direction":"event","type":"svc:event:drilldown","timestamp":1,"surface":"dashboard","payload":{"member":"m","value":{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"prototype":1}}}',
      ]);
      const { value } = seen[0].detail.payload!;
      expect(Object.keys(value as object)).to.deep.equal(['__proto__', 'constructor', 'prototype']);
      expect(Object.getPrototypeOf(value)).to.equal(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      expect((Object.prototype as Record<string, unknown>).polluted).to.equal(undefined);
    });
  });

  describe('adopted into another document (a pop-out window)', () => {
    it('listens on its new window and accepts data from that realm', async () => {
      const holder = document.createElement('iframe');
      document.body.append(holder);
      const popOut = holder.contentDocument!;
      popOut.open();
      popOut.write('<!doctype html><body></body>');
      popOut.close();
      const { el, ready } = embed({ 'color-scheme': 'dark' });
      await ready;
      // Moving the element reloads its frame: the peer says ready again, now to a parent in the other window.
      const readyAgain = oneSvcEvent(el, 'svc-ready');
      popOut.body.append(popOut.adoptNode(el));
      const event = await readyAgain;
      expect(event.detail.payload.mode).to.equal('signed');
      // Firefox (ESR 140) gives the adopted node a wrapper of the pop-out's realm, where svc-embed is not defined: the
      // element works (its frame loads, its events arrive), but the node no longer has its properties or methods.
      // docs/lifecycle.md says so, and to load svc-embed in the pop-out.
      if (navigator.userAgent.includes('Firefox')) expect(el.ready).to.equal(undefined);
      else expect(el.ready).to.equal(true);
      expect(getComputedStyle(el).display).to.equal('block');
      expect(el.getBoundingClientRect().height).to.equal(600);
    });
  });

  describe('the frame', () => {
    it('has a sandbox whose popups keep it, and a referrer policy of its own', async () => {
      const { el, ready } = embed();
      await ready;
      const frame = frameOf(el)!;
      expect([...frame.sandbox].sort()).to.deep.equal([
        'allow-downloads',
        'allow-forms',
        'allow-popups',
        'allow-same-origin',
        'allow-scripts',
      ]);
      expect(frame.referrerPolicy).to.equal('strict-origin');
    });

    it('a popup opened by the embed cannot navigate the host page', async () => {
      const { el, ready } = embed();
      await ready;
      const before = location.href;
      const attack = `${location.href.replace(/#.*/, '')}#escaped`;
      const result = await peerPopup(frameOf(el)!, attack);
      const after = location.href;
      if (after !== before) history.replaceState(null, '', before);
      expect(after).to.equal(before);
      expect(result).to.match(/^threw /);
    });
  });

  describe('filters travel in URL-query form', () => {
    it('filterParam() percent-encodes &, #, + and %, and the element sends that form', async () => {
      const { el, ready } = embed();
      await ready;
      el.filter = filterParam('orders', 'status', 'x&allowExport=true#y+z%');
      await el.updateComplete;
      const [sent] = await peerReport(windowOf(el));
      expect(sent.data.payload.filterUrlParameter).to.equal(
        'f_orders.status={"value":"x%26allowExport=true%23y%2Bz%25"}',
      );
      const params = new URLSearchParams(sent.data.payload.filterUrlParameter as string);
      expect([...params.keys()]).to.deep.equal(['f_orders.status']);
    });

    for (const raw of [
      'f_orders.status={"value":"x&allowExport=true"}',
      'f_orders.status={"value":"#frag"}',
      'f_orders.status={"value":"a+b"}',
      'f_orders.status={"value":"100%"}',
    ]) {
      it(`warns and sends nothing for the raw filter ${raw}`, async () => {
        const { el, ready } = embed();
        await ready;
        const warn = sinon.stub(console, 'warn');
        el.filter = raw;
        await el.updateComplete;
        expect(warn.callCount).to.equal(1);
        expect(await peerReport(windowOf(el))).to.deep.equal([]);
      });
    }
  });
});
