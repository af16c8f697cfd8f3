// svc-embed/testing: each helper against the real element, its unchanged gate and its validation. The
// element's frame is a document on this page's own origin (a 404 page of the test server).
import { expect, waitUntil } from '@open-wc/testing';
import sinon from 'sinon';
import { DOM_EVENTS, cleanup, embed, frameOf, tenant } from './helpers.js';
import type { PeerMessage, SvcDetail } from './helpers.js';
import { buildEvent, filterParam } from '../../src/index.js';
import type { EventPayloadMap, EventType, SvcEmbedElement, Surface } from '../../src/index.js';
import {
  READY_DEFAULTS,
  emitEvent,
  emitReady,
  forgetUsedSessions,
  mountTestEmbed,
  RenewalFailedError,
  recordActions,
  renewAhead,
  testEmbedSrc,
} from '../../src/testing/index.js';
import { framePoster } from '../../src/testing/frame.js';
import { literal } from '../support/literal.mjs';

// Every svc-* event, the element's own status and action notices included.
const ALL_EVENTS = [...DOM_EVENTS, 'svc-status', 'svc-action'] as const;

/** Every svc-* event dispatched on `el`, by name and detail, in order. */
function record(el: Element) {
  const seen: Array<{ name: string; detail: SvcDetail }> = [];
  for (const name of ALL_EVENTS) {
    el.addEventListener(name, (e) => seen.push({ name, detail: (e as CustomEvent<SvcDetail>).detail }));
  }
  return seen;
}

/**
 * What the element's frame receives, recorded inside the frame: every svc-embed message, with its origin
 * and sender. `settled()` resolves once everything the page posted before has arrived (a marker the page
 * posts after it arrives last: one sender, one receiver, posting order).
 */
function frameInbox(el: SvcEmbedElement) {
  const win = frameOf(el)!.contentWindow!;
  const received: Array<{ origin: string; fromPage: boolean; data: PeerMessage }> = [];
  let marks = 0;
  const waiting: Array<[number, () => void]> = [];
  win.addEventListener('message', (e: MessageEvent<PeerMessage | string | null>) => {
    if (e.data === 'inbox-mark') {
      marks++;
      for (const [n, resolve] of waiting) if (n <= marks) resolve();
      return;
    }
    if (typeof e.data === 'object' && e.data?.source === 'svc-embed') {
      received.push({ origin: e.origin, fromPage: e.source === window, data: e.data });
    }
  });
  let posted = 0;
  return {
    received,
    settled: () =>
      new Promise<void>((resolve) => {
        waiting.push([++posted, resolve]);
        win.postMessage('inbox-mark', location.origin);
      }),
  };
}

/** Asserts that `promise` rejects with an instance of `type` whose message matches `pattern`. */
async function rejects(promise: Promise<unknown>, type: ErrorConstructor | TypeErrorConstructor, pattern: RegExp) {
  const outcome = await promise.then(
    (value) => ({ value }),
    (error: Error) => ({ error }),
  );
  if (!('error' in outcome)) throw new Error(`expected a rejection, got ${String(outcome.value)}`);
  expect(outcome.error).to.be.instanceOf(type);
  expect(outcome.error.message).to.match(pattern);
}

/** A plain iframe (no element's) on this page's origin, loaded. */
function siblingFrame(): Promise<HTMLIFrameElement> {
  const frame = document.createElement('iframe');
  frame.src = `${location.origin}/__svc-embed-test__/sibling`;
  document.body.append(frame);
  return Promise.resolve(frame);
}

const VALID: { [T in EventType]: EventPayloadMap[T] } = {
  'svc:event:ready': { embedTenant: 'acme', deploymentId: 7, mode: 'private', surface: 'app' },
  'svc:event:view': { surface: 'dashboard', path: '/details', publicId: 'p1', title: 'Details' },
  'svc:event:navigate': { path: '/b', previousPath: '/a' },
  'svc:event:dashboard-loaded': { publicId: 'p1', widgetCount: 7, loadDurationMs: 12.5 },
  'svc:event:download': { format: 'csv', target: 'widget', widgetId: 'w1', title: 'Orders', rowCount: 42 },
  'svc:event:drilldown': { member: 'orders.revenue', value: { region: 'EMEA' }, widgetId: 'w2' },
  'svc:event:ai-query': { query: 'revenue by region', status: 'completed', chatId: 'c1', agentId: 'a1' },
  'svc:event:error': { message: 'Widget failed', name: 'QueryError', context: 'widget', fatal: false },
};

describe('svc-embed/testing', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  describe('mountTestEmbed', () => {
    it("appends an element whose frame is a document of this page's origin, loading, not ready", async () => {
      const el = await mountTestEmbed({ attributes: { 'color-scheme': 'dark', 'ready-timeout': '0' } });
      expect(el.isConnected).to.equal(true);
      expect(el.parentNode).to.equal(document.body);
      expect(el.getAttribute('src')).to.equal(testEmbedSrc());
      expect(testEmbedSrc().startsWith(`${location.origin}/`)).to.equal(true);
      expect(el.colorScheme).to.equal('dark');
      expect(el.status).to.equal('loading');
      expect(el.ready).to.equal(false);
      const frame = frameOf(el)!;
      expect(frame.contentWindow!.location.href).to.equal(testEmbedSrc());
      expect(frame.contentDocument!.readyState).to.equal('complete');
    });

    it('takes a src relative to the page and a container', async () => {
      const box = document.createElement('section');
      document.body.append(box);
      const el = await mountTestEmbed({ src: '/__svc-embed-test__/app?session=x', container: box });
      expect(el.parentNode).to.equal(box);
      expect(frameOf(el)!.src).to.equal(`${location.origin}/__svc-embed-test__/app?session=x`);
    });

    it('refuses a src on another origin, or as an attribute, before appending anything', async () => {
      await rejects(mountTestEmbed({ src: `${tenant}/embed/dashboard/x` }), TypeError, /must be on this page's origin/);
      await rejects(mountTestEmbed({ attributes: { src: testEmbedSrc() } }), TypeError, /as the src option/);
      expect(document.querySelector('svc-embed')).to.equal(null);
    });

    it('works when the document at src runs no inline script (a CSP): the helper puts a document of its own there', async () => {
      const src = `${location.origin}/test/support/testing-csp-frame.html`;
      const el = await mountTestEmbed({ src });
      const frame = frameOf(el)!;
      expect(frame.src).to.equal(src);
      expect(frame.contentDocument!.URL).to.match(/^blob:/);
      expect(frame.contentWindow!.origin).to.equal(location.origin);
      const seen = record(el);
      await emitReady(el);
      expect(seen.map((e) => e.name)).to.deep.equal(['svc-status', 'svc-ready']);
      expect(el.status).to.equal('ready');
    });
  });

  describe('mountTestEmbed({singleUseSessions})', () => {
    afterEach(forgetUsedSessions);
    const src = (session: string) => `/__svc-embed-test__/dashboard/board?session=${session}`;
    /** The fatal errors the element reports, by name and message. */
    const fatalErrors = (el: Element) => {
      const seen: Array<{ name: unknown; message: unknown }> = [];
      el.addEventListener('svc-error', (e) => {
        const payload = (e as CustomEvent<SvcDetail>).detail.payload ?? {};
        if (payload.fatal === true) seen.push({ name: payload.name, message: payload.message });
      });
      return seen;
    };

    it('a second frame with a session an earlier test frame loaded is refused: a fatal SessionUsedError', async () => {
      const first = await mountTestEmbed({ src: src('one'), singleUseSessions: true });
      await emitReady(first);
      const second = document.createElement('div');
      const errors = fatalErrors(second);
      document.body.append(second);
      const el = await mountTestEmbed({ src: src('one'), singleUseSessions: true, container: second });
      await waitUntil(() => el.status === 'error', 'the reused session was not refused');
      expect(errors).to.have.length(1);
      expect(errors[0].name).to.equal('SessionUsedError');
      expect(String(errors[0].message)).to.match(/already used/);
      expect(first.status).to.equal('ready');
      // The refused frame is dead: the helpers say so rather than send from it.
      await rejects(emitReady(el), Error, /refused for a session an earlier test frame had loaded/);
    });

    it('a reload of the same element (a re-insertion) with its spent session is refused too', async () => {
      const el = await mountTestEmbed({ src: src('two'), singleUseSessions: true });
      const errors = fatalErrors(el);
      await emitReady(el);
      el.remove();
      document.body.append(el);
      await waitUntil(() => el.status === 'error', 'the reloaded session was not refused');
      expect(errors.map((e) => e.name)).to.deep.equal(['SessionUsedError']);
    });

    it('with a provider, the element recovers on a session of its own, and that frame is not refused', async () => {
      const el = await mountTestEmbed({ src: src('three'), singleUseSessions: true });
      let minted = 0;
      el.sessionProvider = () => Promise.resolve(`three-${++minted}`);
      await emitReady(el);
      el.remove();
      document.body.append(el);
      await waitUntil(() => frameOf(el)?.src.endsWith('session=three-1'), 'no frame with the new session');
      await emitReady(el);
      expect(el.status).to.equal('ready');
      expect(minted).to.equal(1);
    });

    it('a renewal ahead of expiry whose provider answers a spent session fails: it is never loaded', async () => {
      const el = await mountTestEmbed({ src: src('six'), singleUseSessions: true, expiresIn: 6000 });
      el.sessionProvider = () => Promise.resolve({ session: 'six', expiresAt: Date.now() + 600_000 });
      await emitReady(el);
      const frame = frameOf(el);
      const failure = await renewAhead(el).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).to.be.instanceOf(RenewalFailedError);
      expect((failure as RenewalFailedError).detail.reason).to.equal('invalid-session');
      expect((failure as RenewalFailedError).detail.message).to.match(/already loaded/);
      expect(frameOf(el)).to.equal(frame);
      expect(el.status).to.equal('ready');
    });

    it('new sessions load; without the option, or after forgetUsedSessions(), a session loads again', async () => {
      const a = await mountTestEmbed({ src: src('four'), singleUseSessions: true });
      const b = await mountTestEmbed({ src: src('five'), singleUseSessions: true });
      const c = await mountTestEmbed({ src: src('four') });
      for (const el of [a, b, c]) await emitReady(el);
      forgetUsedSessions();
      const d = await mountTestEmbed({ src: src('four'), singleUseSessions: true });
      await emitReady(d);
      for (const el of [a, b, c, d]) expect(el.status).to.equal('ready');
    });

    it('refuses a value that is not a boolean', async () => {
      await rejects(
        mountTestEmbed({ singleUseSessions: 'yes' as unknown as boolean }),
        TypeError,
        /singleUseSessions must be true or false/,
      );
      expect(document.querySelector('svc-embed')).to.equal(null);
    });
  });

  describe('emitEvent', () => {
    it('delivers every event type through the gate: listeners get the validated detail before it resolves', async () => {
      const el = await mountTestEmbed();
      const seen = record(el);
      const bubbled: string[] = [];
      document.addEventListener('svc-download', (e) => bubbled.push(e.type), { once: true });
      // Each payload, with the surface that some of them carry.
      const entries = Object.entries(VALID) as Array<[EventType, EventPayloadMap[EventType] & { surface?: Surface }]>;
      for (const [type, payload] of entries) {
        const before = seen.length;
        const event = await emitEvent(el, type, payload);
        const own = seen.slice(before).filter((e) => e.name !== 'svc-status' && e.name !== 'svc-action');
        expect(
          own.map((e) => e.name),
          type,
        ).to.deep.equal([`svc-${type.slice(10)}`]);
        expect(event.type).to.equal(own[0].name);
        expect(event.detail).to.equal(own[0].detail);
        expect(event.detail.type).to.equal(type);
        expect(event.detail.payload).to.deep.equal(payload);
        expect(event.detail.surface).to.equal(payload.surface ?? 'dashboard');
        expect(event.target).to.equal(el);
      }
      expect(bubbled).to.deep.equal(['svc-download']);
      expect(seen.filter((e) => e.name === 'svc-message-rejected')).to.deep.equal([]);
    });

    it('sets the envelope surface from the option', async () => {
      const el = await mountTestEmbed();
      const event = await emitEvent(el, 'svc:event:ai-query', { query: 'q', status: 'submitted' }, { surface: 'chat' });
      expect(event.detail.surface).to.equal('chat');
    });

    const INVALID: Array<[string, () => [EventType, unknown, object?]]> = [
      ['an unknown type', () => ['svc:event:nope' as EventType, {}]],
      ['an action type', () => ['svc:action:refresh' as EventType, {}]],
      ['a missing required field', () => ['svc:event:download', { format: 'csv' }]],
      ['a value outside its enumeration', () => ['svc:event:download', { format: 'docx', target: 'widget' }]],
      ['a wrong type', () => ['svc:event:view', { surface: 'dashboard', path: 42 }]],
      ['NaN for a number', () => ['svc:event:dashboard-loaded', { widgetCount: Number.NaN }]],
      ['a payload that is not an object', () => ['svc:event:navigate', '/a']],
      ['a payload that is an array', () => ['svc:event:navigate', [{ path: '/a' }]]],
      ['an unknown surface', () => ['svc:event:navigate', { path: '/a' }, { surface: 'admin' }]],
      ['a drilldown value that is not data', () => ['svc:event:drilldown', { member: 'm', value: () => 1 }]],
    ];
    for (const [name, make] of INVALID) {
      it(`throws the protocol's TypeError at once, and sends nothing: ${literal(name)}`, async () => {
        const el = await mountTestEmbed();
        const [type, payload, options] = make();
        let expected: unknown;
        try {
          buildEvent(type, ((options as { surface?: string })?.surface ?? 'dashboard') as never, payload as never);
        } catch (error) {
          expected = error;
        }
        expect(expected).to.be.instanceOf(TypeError);
        const seen = record(el);
        const inbox = frameInbox(el);
        expect(() => emitEvent(el, type, payload as never, options)).to.throw(TypeError, (expected as Error).message);
        // A valid event after it arrives alone: the invalid one was never posted.
        await emitEvent(el, 'svc:event:navigate', { path: '/after' });
        expect(seen.map((e) => e.name)).to.deep.equal(['svc-navigate']);
        await inbox.settled();
        expect(inbox.received).to.deep.equal([]);
      });
    }

    it('throws a TypeError for something that is not an <svc-embed>', () => {
      expect(() => emitEvent(document.createElement('div') as never, 'svc:event:navigate', { path: '/' })).to.throw(
        TypeError,
        /<svc-embed>/,
      );
    });

    it('rejects, naming the fix, for an element without a frame', async () => {
      const el = document.createElement('svc-embed');
      document.body.append(el);
      await rejects(emitEvent(el, 'svc:event:navigate', { path: '/' }), Error, /no frame[\s\S]*mountTestEmbed\(\)/);
    });

    it('rejects, naming the fix, for an element not in a document', async () => {
      const el = await mountTestEmbed();
      el.remove();
      await rejects(emitEvent(el, 'svc:event:navigate', { path: '/' }), Error, /not in a document/);
    });

    it('rejects, naming the fix, for a real cross-origin tenant frame, and that frame receives nothing', async () => {
      const { el, ready } = embed();
      await ready;
      const seen = record(el);
      await rejects(
        emitReady(el),
        Error,
        new RegExp(`frame is on ${tenant}, not on this page's origin[\\s\\S]*mountTestEmbed\\(\\)`),
      );
      await rejects(emitEvent(el, 'svc:event:navigate', { path: '/' }), Error, /src on this page's origin/);
      expect(seen).to.deep.equal([]);
    });

    it('rejects when the element ignored the event: its src changed in the meantime', async () => {
      const el = await mountTestEmbed();
      const seen = record(el);
      // Both are posted before either arrives. The first one's listener changes the URL, which ends the
      // session at once: the second one comes from a frame that no longer counts.
      el.addEventListener(
        'svc-view',
        () => {
          el.src = `${testEmbedSrc()}&renewed=1`;
        },
        { once: true },
      );
      const first = emitEvent(el, 'svc:event:view', { surface: 'dashboard', path: '/first' });
      const second = emitEvent(el, 'svc:event:navigate', { path: '/second' });
      expect((await first).detail.payload.path).to.equal('/first');
      await rejects(second, Error, /did not dispatch svc:event:navigate: it ignored it/);
      expect(seen.filter((e) => e.name === 'svc-navigate')).to.deep.equal([]);
    });
  });

  describe('emitReady', () => {
    it('sends ready with the defaults: the element becomes ready', async () => {
      const el = await mountTestEmbed();
      const seen = record(el);
      const event = await emitReady(el);
      expect(event.detail.payload).to.deep.equal(READY_DEFAULTS);
      expect(READY_DEFAULTS).to.deep.equal({
        embedTenant: 'test',
        deploymentId: 1,
        mode: 'signed',
        surface: 'dashboard',
      });
      expect(event.detail.surface).to.equal('dashboard');
      expect(seen.map((e) => [e.name, e.detail.status ?? e.detail.type])).to.deep.equal([
        ['svc-status', 'ready'],
        ['svc-ready', 'svc:event:ready'],
      ]);
      expect(el.status).to.equal('ready');
      expect(await el.whenReady()).to.equal(event.detail);
    });

    it("lays the given fields over the defaults; the envelope takes the payload's surface", async () => {
      const el = await mountTestEmbed();
      const event = await emitReady(el, { mode: 'private', embedTenant: null, surface: 'chat', publicId: 'p9' });
      expect(event.detail.payload).to.deep.equal({
        embedTenant: null,
        deploymentId: 1,
        mode: 'private',
        surface: 'chat',
        publicId: 'p9',
      });
      expect(event.detail.surface).to.equal('chat');
    });

    it('throws a TypeError for a bad payload', async () => {
      const el = await mountTestEmbed();
      expect(() => emitReady(el, 'signed' as never)).to.throw(TypeError, /plain object/);
      expect(() => emitReady(el, { mode: 'public' as never })).to.throw(TypeError, /payload\.mode/);
      expect(el.ready).to.equal(false);
    });
  });

  describe('recordActions', () => {
    it("records exactly what the frame received, in order, from this page's origin", async () => {
      const el = await mountTestEmbed({ attributes: { 'color-scheme': 'dark', locale: 'de-DE' } });
      const inbox = frameInbox(el);
      const actions = recordActions(el);
      el.theme = { primaryColor: '#4f46e5', borderRadius: 8 };
      el.filter = filterParam('orders', 'status', 'shipped');
      el.navigate('/held');
      await el.updateComplete;
      expect(actions).to.deep.equal([]);
      await emitReady(el);
      el.refresh();
      el.colorScheme = 'light';
      await el.updateComplete;
      await inbox.settled();

      expect(actions.map((a) => a.type)).to.deep.equal([
        'svc:action:set-theme',
        'svc:action:set-color-scheme',
        'svc:action:set-locale',
        'svc:action:set-filter',
        'svc:action:navigate',
        'svc:action:refresh',
        'svc:action:set-color-scheme',
      ]);
      expect(inbox.received.map((r) => r.data)).to.deep.equal(
        actions.map((a) => ({ source: 'svc-embed', direction: 'action', ...a })),
      );
      expect(inbox.received.every((r) => r.origin === location.origin && r.fromPage)).to.equal(true);
      expect(Object.keys(actions)).to.deep.equal(['0', '1', '2', '3', '4', '5', '6']);
    });

    it('is a copy: changing the record changes nothing the element sends later', async () => {
      const el = await mountTestEmbed();
      const inbox = frameInbox(el);
      const actions = recordActions(el);
      el.theme = { primaryColor: '#000000' };
      await emitReady(el);
      (actions[0].payload as { primaryColor: string }).primaryColor = '#ffffff';
      // Every ready re-sends the state: the theme as it was set.
      await emitReady(el);
      await inbox.settled();
      expect(inbox.received.map((r) => r.data.payload)).to.deep.equal([
        { primaryColor: '#000000' },
        { primaryColor: '#000000' },
      ]);
    });

    it('stop() ends the recording; another record goes on', async () => {
      const el = await mountTestEmbed();
      const first = recordActions(el);
      const second = recordActions(el);
      await emitReady(el);
      el.navigate('/a');
      first.stop();
      el.navigate('/b');
      expect(first.map((a) => a.payload)).to.deep.equal([{ path: '/a' }]);
      expect(second.map((a) => a.payload)).to.deep.equal([{ path: '/a' }, { path: '/b' }]);
    });

    it('records nothing for a refused value or a held command', async () => {
      const el = await mountTestEmbed();
      const actions = recordActions(el);
      sinon.stub(console, 'warn');
      // @ts-expect-error -- the type refuses it too; this checks the run-time check, for untyped callers.
      el.colorScheme = 'purple';
      el.refresh();
      await el.updateComplete;
      expect(actions).to.deep.equal([]);
      expect(() => el.navigate('//evil.example')).to.throw(TypeError);
      await emitReady(el);
      expect(actions.map((a) => a.type)).to.deep.equal(['svc:action:refresh']);
    });
  });

  describe('the poster', () => {
    it("posts as the frame: the frame's window and this page's origin; the page calling the same method posts as the page", async () => {
      const frame = await siblingFrame();
      const post = await framePoster(frame);
      const got: Array<[unknown, boolean, boolean, string]> = [];
      await new Promise<void>((resolve) => {
        const onMessage = (e: MessageEvent<{ n?: unknown } | null>) => {
          if (typeof e.data?.n !== 'number') return;
          got.push([e.data.n, e.source === frame.contentWindow, e.source === window, e.origin]);
          if (got.length === 2) {
            removeEventListener('message', onMessage);
            resolve();
          }
        };
        addEventListener('message', onMessage);
        post({ n: 1 }, location.origin);
        frame.contentWindow!.parent.postMessage({ n: 2 }, location.origin);
      });
      expect(got.sort((a, b) => Number(a[0]) - Number(b[0]))).to.deep.equal([
        [1, true, false, location.origin],
        [2, false, true, location.origin],
      ]);
      expect(await framePoster(frame)).to.equal(post);
    });
  });

  describe('the gate is unchanged', () => {
    const view = () => buildEvent('svc:event:view', 'dashboard', { surface: 'dashboard', path: '/forged' });

    it('ignores the same event from a sibling frame of the same origin, posted the same way', async () => {
      const el = await mountTestEmbed();
      await emitReady(el);
      const seen = record(el);
      const sibling = await siblingFrame();
      const post = await framePoster(sibling);
      const got: Array<MessageEventSource | null> = [];
      const onMessage = (e: MessageEvent<{ payload?: { path?: unknown } | null } | null>) =>
        e.data?.payload?.path === '/forged' && got.push(e.source);
      addEventListener('message', onMessage);
      post(view(), location.origin);
      await emitEvent(el, 'svc:event:navigate', { path: '/mine' });
      removeEventListener('message', onMessage);
      // The forged event did reach the page, from the sibling, on this origin; the element ignored it.
      expect(got).to.deep.equal([sibling.contentWindow]);
      expect(seen.map((e) => e.name)).to.deep.equal(['svc-navigate']);
    });

    it('ignores the same event posted by the page itself', async () => {
      const el = await mountTestEmbed();
      await emitReady(el);
      const seen = record(el);
      postMessage(view(), location.origin);
      // The page calling postMessage on the frame's parent is still the page: the sender is the calling realm.
      frameOf(el)!.contentWindow!.parent.postMessage(view(), location.origin);
      await emitEvent(el, 'svc:event:navigate', { path: '/mine' });
      expect(seen.map((e) => e.name)).to.deep.equal(['svc-navigate']);
    });

    it('keeps two test embeds apart', async () => {
      const a = await mountTestEmbed();
      const b = await mountTestEmbed();
      const seenA = record(a);
      const seenB = record(b);
      await emitReady(b);
      await emitEvent(a, 'svc:event:navigate', { path: '/a' });
      expect(seenA.map((e) => e.name)).to.deep.equal(['svc-navigate']);
      expect(seenB.map((e) => e.name)).to.deep.equal(['svc-status', 'svc-ready']);
      expect(a.status).to.equal('loading');
    });
  });
});
