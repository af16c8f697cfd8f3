// Incoming events from a real peer on a second origin: every valid event, every broken rule.
import { expect } from '@open-wc/testing';
import { cleanup, embed, envelope, omit, peerBurst, peerPost, record, windowOf } from './helpers.js';
import type { SvcEmbedElement } from '../../src/index.js';

/** One valid event of each type, with every field the spec lists. */
const VALID: Array<[string, string, Record<string, unknown>, string]> = [
  [
    'svc-ready',
    'svc:event:ready',
    { embedTenant: 'acme', deploymentId: 7, mode: 'signed', surface: 'dashboard', publicId: 'pub-1' },
    'dashboard',
  ],
  ['svc-view', 'svc:event:view', { surface: 'app', path: '/workbooks/3', publicId: 'pub-1', title: 'Sales' }, 'app'],
  ['svc-navigate', 'svc:event:navigate', { path: '/b', previousPath: '/a' }, 'app'],
  [
    'svc-dashboard-loaded',
    'svc:event:dashboard-loaded',
    { publicId: 'pub-1', widgetCount: 4, loadDurationMs: 812.5 },
    'dashboard',
  ],
  [
    'svc-download',
    'svc:event:download',
    { format: 'csv', target: 'widget', widgetId: 'w1', title: 'Orders', rowCount: 120 },
    'dashboard',
  ],
  [
    'svc-drilldown',
    'svc:event:drilldown',
    { member: 'orders.count', value: { region: 'EU', n: [1, 2] }, widgetId: 'w2' },
    'dashboard',
  ],
  [
    'svc-ai-query',
    'svc:event:ai-query',
    { query: 'top customers', status: 'completed', chatId: 'c1', agentId: 'a1' },
    'chat',
  ],
  [
    'svc-error',
    'svc:event:error',
    { message: 'Query failed', name: 'QueryError', context: 'widget:w1', fatal: false },
    'dashboard',
  ],
];

/** One row per broken rule: [what, message, reason prefix, type reported]. */
const wrong = (type: string, payload: unknown, surface?: string) => envelope(type, payload, surface);
const view = { surface: 'dashboard', path: '/x' };
const INVALID: Array<[string, Record<string, unknown>, string, string | undefined]> = [
  [
    'direction is action',
    { ...envelope('svc:event:view', view), direction: 'action' },
    "direction: must be 'event'",
    'svc:event:view',
  ],
  ['unknown type', envelope('svc:event:hello', view), 'type: must be a known event type', undefined],
  ['action type', envelope('svc:action:refresh', {}), 'type: must be a known event type', undefined],
  [
    'timestamp missing',
    omit(envelope('svc:event:view', view), 'timestamp'),
    'timestamp: must be a finite number',
    'svc:event:view',
  ],
  [
    'timestamp NaN',
    { ...envelope('svc:event:view', view), timestamp: NaN },
    'timestamp: must be a finite number',
    'svc:event:view',
  ],
  [
    'timestamp Infinity',
    { ...envelope('svc:event:view', view), timestamp: Infinity },
    'timestamp: must be a finite number',
    'svc:event:view',
  ],
  [
    'timestamp string',
    { ...envelope('svc:event:view', view), timestamp: '1700000000000' },
    'timestamp: must be a finite number',
    'svc:event:view',
  ],
  [
    'surface missing',
    omit(envelope('svc:event:view', view), 'surface'),
    'surface: must be one of dashboard, app, chat',
    'svc:event:view',
  ],
  ['surface unknown', wrong('svc:event:view', view, 'report'), 'surface: must be one of', 'svc:event:view'],
  [
    'payload missing',
    omit(envelope('svc:event:view', view), 'payload'),
    'payload: must be a plain object',
    'svc:event:view',
  ],
  ['payload null', envelope('svc:event:view', null), 'payload: must be a plain object', 'svc:event:view'],
  ['payload array', envelope('svc:event:view', [view]), 'payload: must be a plain object', 'svc:event:view'],
  ['payload string', envelope('svc:event:view', '{}'), 'payload: must be a plain object', 'svc:event:view'],
  [
    'payload Date',
    envelope('svc:event:dashboard-loaded', new Date()),
    'payload: must be a plain object',
    'svc:event:dashboard-loaded',
  ],
  [
    'payload Map',
    envelope('svc:event:dashboard-loaded', new Map()),
    'payload: must be a plain object',
    'svc:event:dashboard-loaded',
  ],
  // ready
  [
    'ready: embedTenant missing',
    wrong('svc:event:ready', { deploymentId: 1, mode: 'signed', surface: 'dashboard' }),
    'payload.embedTenant: required',
    'svc:event:ready',
  ],
  [
    'ready: embedTenant number',
    wrong('svc:event:ready', { embedTenant: 5, deploymentId: 1, mode: 'signed', surface: 'dashboard' }),
    'payload.embedTenant: must be a string',
    'svc:event:ready',
  ],
  [
    'ready: deploymentId missing',
    wrong('svc:event:ready', { embedTenant: null, mode: 'signed', surface: 'dashboard' }),
    'payload.deploymentId: required',
    'svc:event:ready',
  ],
  [
    'ready: deploymentId string',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: '1', mode: 'signed', surface: 'dashboard' }),
    'payload.deploymentId: must be a finite number',
    'svc:event:ready',
  ],
  [
    'ready: deploymentId NaN',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: NaN, mode: 'signed', surface: 'dashboard' }),
    'payload.deploymentId: must be a finite number',
    'svc:event:ready',
  ],
  [
    'ready: mode missing',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: null, surface: 'dashboard' }),
    'payload.mode: required',
    'svc:event:ready',
  ],
  [
    'ready: mode unknown',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: null, mode: 'public', surface: 'dashboard' }),
    'payload.mode: must be one of signed, private',
    'svc:event:ready',
  ],
  [
    'ready: mode null',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: null, mode: null, surface: 'dashboard' }),
    'payload.mode: required',
    'svc:event:ready',
  ],
  [
    'ready: surface missing',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: null, mode: 'private' }),
    'payload.surface: required',
    'svc:event:ready',
  ],
  [
    'ready: surface unknown',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: null, mode: 'private', surface: 'x' }),
    'payload.surface: must be one of',
    'svc:event:ready',
  ],
  [
    'ready: publicId number',
    wrong('svc:event:ready', { embedTenant: null, deploymentId: null, mode: 'private', surface: 'chat', publicId: 3 }),
    'payload.publicId: must be a string',
    'svc:event:ready',
  ],
  // view
  ['view: surface missing', wrong('svc:event:view', { path: '/x' }), 'payload.surface: required', 'svc:event:view'],
  [
    'view: surface unknown',
    wrong('svc:event:view', { path: '/x', surface: 'DASHBOARD' }),
    'payload.surface: must be one of',
    'svc:event:view',
  ],
  ['view: path missing', wrong('svc:event:view', { surface: 'app' }), 'payload.path: required', 'svc:event:view'],
  [
    'view: path number',
    wrong('svc:event:view', { surface: 'app', path: 1 }),
    'payload.path: must be a string',
    'svc:event:view',
  ],
  [
    'view: title object',
    wrong('svc:event:view', { surface: 'app', path: '/', title: {} }),
    'payload.title: must be a string',
    'svc:event:view',
  ],
  [
    'view: publicId boolean',
    wrong('svc:event:view', { surface: 'app', path: '/', publicId: true }),
    'payload.publicId: must be a string',
    'svc:event:view',
  ],
  // navigate
  ['navigate: path missing', wrong('svc:event:navigate', {}), 'payload.path: required', 'svc:event:navigate'],
  [
    'navigate: path array',
    wrong('svc:event:navigate', { path: ['/'] }),
    'payload.path: must be a string',
    'svc:event:navigate',
  ],
  [
    'navigate: previousPath number',
    wrong('svc:event:navigate', { path: '/', previousPath: 2 }),
    'payload.previousPath: must be a string',
    'svc:event:navigate',
  ],
  // dashboard-loaded
  [
    'dashboard-loaded: widgetCount string',
    wrong('svc:event:dashboard-loaded', { widgetCount: '4' }),
    'payload.widgetCount: must be a finite number',
    'svc:event:dashboard-loaded',
  ],
  [
    'dashboard-loaded: loadDurationMs Infinity',
    wrong('svc:event:dashboard-loaded', { loadDurationMs: Infinity }),
    'payload.loadDurationMs: must be a finite number',
    'svc:event:dashboard-loaded',
  ],
  [
    'dashboard-loaded: publicId number',
    wrong('svc:event:dashboard-loaded', { publicId: 1 }),
    'payload.publicId: must be a string',
    'svc:event:dashboard-loaded',
  ],
  // download
  [
    'download: format missing',
    wrong('svc:event:download', { target: 'widget' }),
    'payload.format: required',
    'svc:event:download',
  ],
  [
    'download: format unknown',
    wrong('svc:event:download', { format: 'exe', target: 'widget' }),
    'payload.format: must be one of csv, xlsx, png, pdf',
    'svc:event:download',
  ],
  [
    'download: format upper case',
    wrong('svc:event:download', { format: 'CSV', target: 'widget' }),
    'payload.format: must be one of',
    'svc:event:download',
  ],
  [
    'download: target missing',
    wrong('svc:event:download', { format: 'png' }),
    'payload.target: required',
    'svc:event:download',
  ],
  [
    'download: target unknown',
    wrong('svc:event:download', { format: 'png', target: 'page' }),
    'payload.target: must be one of widget, dashboard',
    'svc:event:download',
  ],
  [
    'download: rowCount string',
    wrong('svc:event:download', { format: 'csv', target: 'widget', rowCount: '9' }),
    'payload.rowCount: must be a finite number',
    'svc:event:download',
  ],
  [
    'download: widgetId number',
    wrong('svc:event:download', { format: 'csv', target: 'widget', widgetId: 9 }),
    'payload.widgetId: must be a string',
    'svc:event:download',
  ],
  [
    'download: title array',
    wrong('svc:event:download', { format: 'csv', target: 'widget', title: [] }),
    'payload.title: must be a string',
    'svc:event:download',
  ],
  // drilldown
  [
    'drilldown: member missing',
    wrong('svc:event:drilldown', { value: 1 }),
    'payload.member: required',
    'svc:event:drilldown',
  ],
  [
    'drilldown: member number',
    wrong('svc:event:drilldown', { member: 1 }),
    'payload.member: must be a string',
    'svc:event:drilldown',
  ],
  [
    'drilldown: widgetId object',
    wrong('svc:event:drilldown', { member: 'm', widgetId: {} }),
    'payload.widgetId: must be a string',
    'svc:event:drilldown',
  ],
  // ai-query
  [
    'ai-query: query missing',
    wrong('svc:event:ai-query', { status: 'submitted' }),
    'payload.query: required',
    'svc:event:ai-query',
  ],
  [
    'ai-query: query number',
    wrong('svc:event:ai-query', { query: 1, status: 'submitted' }),
    'payload.query: must be a string',
    'svc:event:ai-query',
  ],
  [
    'ai-query: status missing',
    wrong('svc:event:ai-query', { query: 'q' }),
    'payload.status: required',
    'svc:event:ai-query',
  ],
  [
    'ai-query: status unknown',
    wrong('svc:event:ai-query', { query: 'q', status: 'done' }),
    'payload.status: must be one of submitted, completed, error',
    'svc:event:ai-query',
  ],
  [
    'ai-query: chatId number',
    wrong('svc:event:ai-query', { query: 'q', status: 'error', chatId: 1 }),
    'payload.chatId: must be a string',
    'svc:event:ai-query',
  ],
  [
    'ai-query: agentId boolean',
    wrong('svc:event:ai-query', { query: 'q', status: 'error', agentId: false }),
    'payload.agentId: must be a string',
    'svc:event:ai-query',
  ],
  // error
  ['error: message missing', wrong('svc:event:error', { fatal: true }), 'payload.message: required', 'svc:event:error'],
  [
    'error: message object',
    wrong('svc:event:error', { message: { text: 'x' } }),
    'payload.message: must be a string',
    'svc:event:error',
  ],
  [
    'error: fatal string',
    wrong('svc:event:error', { message: 'm', fatal: 'true' }),
    'payload.fatal: must be a boolean',
    'svc:event:error',
  ],
  [
    'error: name number',
    wrong('svc:event:error', { message: 'm', name: 1 }),
    'payload.name: must be a string',
    'svc:event:error',
  ],
  [
    'error: context number',
    wrong('svc:event:error', { message: 'm', context: 1 }),
    'payload.context: must be a string',
    'svc:event:error',
  ],
];

describe('incoming events', () => {
  let el: SvcEmbedElement;
  let win: Window;

  before(async () => {
    const made = embed();
    el = made.el;
    await made.ready;
    win = windowOf(el);
  });
  after(cleanup);

  for (const [domName, type, payload, surface] of VALID) {
    it(`dispatches ${domName} for a valid ${type}, with detail {type, surface, timestamp, payload}`, async () => {
      const seen = record(el);
      await peerPost(win, [envelope(type, payload, surface)]);
      expect(seen.map((e) => e.type)).to.deep.equal([domName]);
      const [event] = seen;
      expect(event.bubbles && event.composed).to.equal(true);
      expect(event.detail).to.deep.equal({ type, surface, timestamp: 1_700_000_000_000, payload });
    });
  }

  it('dispatches only the required fields when the optional ones are absent', async () => {
    const seen = record(el);
    await peerPost(win, [envelope('svc:event:download', { format: 'pdf', target: 'dashboard' })]);
    expect(seen[0].detail.payload).to.deep.equal({ format: 'pdf', target: 'dashboard' });
  });

  it('accepts null for the nullable ready fields', async () => {
    const seen = record(el);
    await peerPost(win, [
      envelope('svc:event:ready', { embedTenant: null, deploymentId: null, mode: 'private', surface: 'chat' }, 'chat'),
    ]);
    expect(seen[0].detail.payload).to.deep.equal({
      embedTenant: null,
      deploymentId: null,
      mode: 'private',
      surface: 'chat',
    });
  });

  it('treats an optional field sent as null as absent', async () => {
    const seen = record(el);
    await peerPost(win, [envelope('svc:event:view', { surface: 'app', path: '/', title: null, publicId: null })]);
    expect(seen[0].detail.payload).to.deep.equal({ surface: 'app', path: '/' });
    expect(Object.hasOwn(seen[0].detail.payload!, 'title')).to.equal(false);
  });

  it('drops unknown payload and envelope fields', async () => {
    const seen = record(el);
    const message = { ...envelope('svc:event:navigate', { path: '/n', secret: 'x', html: '<b>' }), extra: 1 };
    await peerPost(win, [message]);
    expect(seen[0].detail).to.deep.equal({
      type: 'svc:event:navigate',
      surface: 'dashboard',
      timestamp: 1_700_000_000_000,
      payload: { path: '/n' },
    });
  });

  it('passes the drilldown value through as is, whatever its type', async () => {
    const values = [0, 'EU', null, [1, 'a'], { nested: { deep: true } }, false];
    const seen = record(el);
    await peerPost(
      win,
      values.map((value) => envelope('svc:event:drilldown', { member: 'orders.count', value })),
    );
    expect(seen.map((e) => e.detail.payload!.value)).to.deep.equal([
      0,
      'EU',
      undefined,
      [1, 'a'],
      { nested: { deep: true } },
      false,
    ]);
  });

  for (const [what, message, reason, type] of INVALID) {
    it(`rejects ${what}: one svc-message-rejected, nothing dispatched`, async () => {
      const seen = record(el);
      await peerPost(win, [message]);
      expect(seen.map((e) => e.type)).to.deep.equal(['svc-message-rejected']);
      const { detail } = seen[0];
      expect(detail.reason!.startsWith(reason), detail.reason).to.equal(true);
      expect(detail.type).to.equal(type);
      expect(Object.keys(detail).sort()).to.deep.equal(type ? ['reason', 'type'] : ['reason']);
    });
  }

  it('never echoes message data in a rejection reason', async () => {
    const seen = record(el);
    await peerPost(win, [
      envelope('svc:event:<img src=x onerror=alert(1)>', view),
      envelope('svc:event:download', { format: 'secret-token-123', target: 'widget' }),
      envelope('svc:event:view', view, 'secret-surface'),
    ]);
    expect(seen).to.have.length(3);
    for (const e of seen) {
      expect(e.detail.reason).to.not.match(/secret|<img/);
      expect(JSON.stringify(e.detail)).to.not.match(/secret|<img/);
    }
  });

  it('keeps own "__proto__" keys from polluting anything', async () => {
    const seen = record(el);
    await peerPost(win, [
      '{"source":"svc-embed","direction":"event","type":"svc:event:view","timestamp":1,"surface":"app","payload":{"surface":"app","path":"/p","__proto__":{"polluted":true}},"__proto__":{"polluted":true}}',
      '{"source":"svc-embed","direction":"event","type":"svc:event:drilldown","timestamp":1,"surface":"app","payload":{"member":"m","constructor":{"prototype":{"polluted":true}}}}',
      '{"__proto__":{"source":"svc-embed","direction":"event","type":"svc:event:view","timestamp":1,"surface":"app","payload":{"surface":"app","path":"/inherited"}}}',
    ]);
    expect(seen.map((e) => e.type)).to.deep.equal(['svc-view', 'svc-drilldown']);
    const payload = seen[0].detail.payload!;
    expect(Object.getPrototypeOf(payload)).to.equal(Object.prototype);
    expect(Object.keys(payload)).to.deep.equal(['surface', 'path']);
    expect(payload.polluted).to.equal(undefined);
    expect(seen[1].detail.payload).to.deep.equal({ member: 'm' });
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    expect((Object.prototype as Record<string, unknown>).polluted).to.equal(undefined);
  });

  it('ignores messages without our own source tag, silently', async () => {
    const seen = record(el);
    const v = envelope('svc:event:view', view);
    await peerPost(win, [{ ...v, source: 'other-sdk' }, omit(v, 'source'), 'null', '"svc-embed"', '[1,2]', '42']);
    expect(seen).to.deep.equal([]);
  });

  it('delivers a burst of 5000 events complete and in order', async function () {
    this.timeout(120_000);
    const paths: string[] = [];
    el.addEventListener('svc-view', (e) => paths.push(e.detail.payload.path));
    await peerBurst(win, 5000);
    expect(paths.length).to.equal(5000);
    expect(paths.every((p, i) => p === `/p/${i}`)).to.equal(true);
  });
});
