// The first load (issue 44): `svc-embed/ssr` markup, whose frame starts with the HTML, adopted by the element when it
// is defined, without a second request. Each page is a srcdoc frame of its own: it is parsed by the HTML parser (so the
// declarative shadow root is made), and its custom element registry is empty until the test loads the CDN bundle.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import { EARLY, SANDBOX } from '../../src/frame.js';
import { renderEmbed } from '../../src/ssr.js';
import type { SvcEmbedElement } from '../../src/index.js';
import { cleanup, embed, envelope, forgetSpent, framePage, other, peerUrl, tenant } from './helpers.js';

const MODULE = '/cdn/svc-embed.min.js';
const [tenantA]: string[] = await executeServerCommand('tenant-origins');

interface Page extends Window {
  errors: string[];
  /** How many peer pages announced their load. */
  peersLoaded: number;
  events: string[];
  define(): Promise<unknown>;
}

/** How often the peer served an embed page whose URL contains `text`. */
const requests = (text: string): Promise<number> => executeServerCommand('peer-requests', { contains: text });
/** A text no other test's URL holds. */
const unique = () => `ssr-${Math.random().toString(36).slice(2)}`;
/** Whether the early-message script kept a ready. */
const saidReady = (win: Window) =>
  !!early(win)?.some((e) => (e.data as { type?: string } | null)?.type === 'svc:event:ready');
const early = (win: Window) => (win as unknown as Record<symbol, MessageEvent[] | undefined>)[Symbol.for(EARLY)];

async function until(check: () => boolean | Promise<boolean>, what: string, ms = 20_000) {
  for (const end = performance.now() + ms; !(await check());) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A page whose body is `body` (server-rendered markup), with nothing defined: `define()` loads the element's CDN
 * bundle. It records errors and the element's events (`type status|reason|path`). Resolves once `done` holds.
 */
function page(body: string, done: (win: Page) => boolean = () => true): Promise<Page> {
  return framePage<Page>(
    `<!doctype html><html><head><script>
      window.errors = [];
      window.events = [];
      addEventListener('error', (e) => errors.push(String(e.message)));
      for (const t of ['svc-ready', 'svc-status', 'svc-view', 'svc-dashboard-loaded', 'svc-message-rejected', 'svc-action'])
        document.addEventListener(t, (e) => events.push([t, e.detail.status ?? e.detail.reason ?? e.detail.payload?.path ?? e.detail.type ?? ''].join(' ')));
      window.define = () => import('${location.origin}${MODULE}');
      window.peersLoaded = 0;
      addEventListener('message', (e) => e.data?.peerLoaded && peersLoaded++);
    </script></head><body>${body}</body></html>`,
    (win) => !!win.events && done(win),
  );
}

/** Posts a peer command to `frame` from `win`, the page: the peer takes commands from its parent only. */
function fromPage(win: Window, frame: HTMLIFrameElement, command: object) {
  const send = new (win as unknown as { Function: FunctionConstructor }).Function(
    'frame',
    'command',
    `frame.contentWindow.postMessage(command, '${tenant}')`,
  ) as (frame: HTMLIFrameElement, command: object) => void;
  send(frame, command);
}

const elementOf = (win: Window) => win.document.querySelector('svc-embed') as SvcEmbedElement;
const frameIn = (el: Element) => el.shadowRoot?.querySelector('iframe') ?? null;

/** The attributes of `el`, sorted, as `name=value`. */
const attributesOf = (el: Element) => [...el.attributes].map((a) => `${a.name}=${a.value}`).sort();

describe('svc-embed/ssr: a server-rendered frame, adopted', () => {
  afterEach(() => {
    cleanup();
    document.querySelectorAll('iframe').forEach((f) => f.remove());
  });

  it('a ready sent before the element is defined is caught; the frame is requested once and kept', async () => {
    const token = unique();
    const win = await page(renderEmbed({ src: `${peerUrl()}&session=${token}`, style: 'height: 120px' }), (w) =>
      saidReady(w),
    );
    const el = elementOf(win);
    const frame = frameIn(el);
    expect(frame, 'the frame is in the HTML').to.not.equal(null);
    expect(win.customElements.get('svc-embed')).to.equal(undefined);
    await win.define();
    await until(() => el.status === 'ready', 'ready');
    expect(frameIn(el)).to.equal(frame);
    expect(win.events.filter((e) => e.startsWith('svc-ready'))).to.have.length(1);
    expect(win.events.filter((e) => e.startsWith('svc-status'))).to.deep.equal([
      'svc-status loading',
      'svc-status ready',
    ]);
    expect(await requests(token)).to.equal(1);
    expect(early(win)).to.deep.equal([]);
    expect(win.errors).to.deep.equal([]);
  });

  it("the tenant's single-use session is loaded once: the embed renders its dashboard", async () => {
    const { session }: { session: string } = await executeServerCommand('tenant-session', { ttl: 60 });
    const win = await page(
      renderEmbed({ src: `${tenantA}/embed/dashboard/sales-overview?session=${session}`, style: 'height: 300px' }),
    );
    const el = elementOf(win);
    const frame = frameIn(el);
    await win.define();
    await until(() => win.events.some((e) => e.startsWith('svc-dashboard-loaded')), 'dashboard-loaded', 25_000);
    // A second load of the session would have been refused (SessionUsedError): a fatal error, and no dashboard.
    expect(el.status).to.equal('ready');
    expect(frameIn(el)).to.equal(frame);
    expect(win.events.filter((e) => e.startsWith('svc-message-rejected'))).to.deep.equal([]);
    expect(win.errors).to.deep.equal([]);
  });

  it("a foreign window's early message is ignored, and one from the right window but another origin", async () => {
    const token = unique();
    // The element's frame does not say ready by itself; a frame of the same tenant beside it does.
    const foreign = `<iframe src="${peerUrl(tenant, 'dashboard', `&session=${token}-foreign`)}"></iframe>`;
    const win = await page(
      renderEmbed({ src: peerUrl(tenant, null, `&session=${token}`) }) + foreign,
      (w) => [...w.document.querySelectorAll('iframe')].length > 0,
    );
    const el = elementOf(win);
    const own = frameIn(el)!;
    const other_ = win.document.body.querySelector('iframe')!;
    await until(() => win.peersLoaded === 2, 'both peers');
    // Forged records in the queue: the ready of the other frame, and one naming our frame with another origin.
    const ready = envelope('svc:event:ready', {
      embedTenant: 'acme',
      deploymentId: 1,
      mode: 'signed',
      surface: 'dashboard',
    });
    // (Records with what the element reads of a MessageEvent: Firefox makes none whose source is a cross-origin window.)
    const queue = early(win)! as unknown[];
    queue.push({ data: ready, origin: tenant, source: other_.contentWindow, ports: [] });
    queue.push({ data: ready, origin: other, source: own.contentWindow, ports: [] });
    await new Promise((r) => setTimeout(r, 300));
    await win.define();
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 300));
    expect(el.status).to.equal('loading');
    expect(win.events.filter((e) => e.startsWith('svc-ready'))).to.deep.equal([]);
    // The element's own frame saying ready counts.
    fromPage(win, own, { peerCmd: 'ready', id: 1 });
    await until(() => el.status === 'ready', 'ready');
    expect(await requests(`session=${token}`)).to.equal(2);
  });

  it('with `path`, the frame is covered from the first paint, and ready once the embed viewed the path', async () => {
    const token = unique();
    const win = await page(renderEmbed({ src: `${peerUrl()}&session=${token}`, path: '/details/7' }), (w) =>
      saidReady(w),
    );
    const el = elementOf(win);
    const box = el.shadowRoot!.querySelector<HTMLElement>('[part=loading]')!;
    expect(frameIn(el)!.hasAttribute('held')).to.equal(true);
    expect(win.getComputedStyle(box).backgroundColor).to.not.match(/rgba\(0, 0, 0, 0\)|transparent/);
    await win.define();
    await until(() => el.status === 'ready', 'ready');
    const views = win.events.filter((e) => /^svc-(view|ready)/.test(e));
    expect(views).to.deep.equal(['svc-view /details/7', 'svc-ready svc:event:ready']);
    expect(win.events).to.include('svc-action /details/7');
    expect(await requests(token)).to.equal(1);
  });

  it('an adopted frame takes the state and the commands held until its ready; its ready timeout runs', async () => {
    const token = unique();
    const win = await page(renderEmbed({ src: peerUrl(tenant, null, `&session=${token}`), 'color-scheme': 'dark' }));
    const el = elementOf(win);
    await win.define();
    await el.updateComplete;
    el.refresh();
    await until(() => win.peersLoaded === 1, 'the peer');
    expect([el.status, win.events.filter((e) => e.startsWith('svc-action'))]).to.deep.equal(['loading', []]);
    fromPage(win, frameIn(el)!, { peerCmd: 'ready', id: 1 });
    await until(() => el.status === 'ready', 'ready');
    expect(win.events.filter((e) => e.startsWith('svc-action'))).to.deep.equal([
      'svc-action svc:action:set-color-scheme',
      'svc-action svc:action:refresh',
    ]);
    expect(await requests(token)).to.equal(1);
  });

  it('markup without the early-message script: the element warns that what the frame said first is lost', async () => {
    const win = await page(
      renderEmbed({ src: `${peerUrl()}&session=${unique()}` }, { early: false }),
      (w) => w.peersLoaded > 0,
    );
    const warnings: string[] = [];
    (win as unknown as { console: Console }).console.warn = (...args: unknown[]) => warnings.push(args.join(' '));
    await win.define();
    await elementOf(win).updateComplete;
    expect(warnings).to.deep.equal(['<svc-embed>: no svc-embed/ssr EARLY_SCRIPT: early messages lost']);
    expect(elementOf(win).status).to.equal('loading');
  });

  it('an adopted frame that never says ready times out, as any frame', async () => {
    const win = await page(renderEmbed({ src: peerUrl(tenant, null, `&session=${unique()}`), 'ready-timeout': 500 }));
    const el = elementOf(win);
    await win.define();
    await until(() => el.status === 'error', 'error');
    expect(win.events.filter((e) => e.startsWith('svc-status'))).to.deep.equal([
      'svc-status loading',
      'svc-status error',
    ]);
    expect(el.shadowRoot!.querySelector('[part=error]')!.textContent).to.match(/no ready in/);
  });

  it('a frame for another URL than the element resolves (changed before the upgrade) is replaced, once', async () => {
    const token = unique();
    const win = await page(renderEmbed({ src: `${peerUrl()}&session=${token}-a` }));
    const el = elementOf(win);
    const frame = frameIn(el);
    el.setAttribute('src', `${peerUrl()}&session=${token}-b`);
    await win.define();
    await until(() => el.status === 'ready', 'ready');
    expect(frameIn(el)).to.not.equal(frame);
    expect(frame!.isConnected).to.equal(false);
    expect(el.shadowRoot!.querySelectorAll('iframe')).to.have.length(1);
    expect(await requests(`${token}-b`)).to.equal(1);
  });

  for (const [name, from, to] of [
    ['allow', 'allow="fullscreen; clipboard-write"', 'allow="fullscreen; clipboard-write; camera"'],
    ['referrerpolicy', 'referrerpolicy="strict-origin"', 'referrerpolicy="unsafe-url"'],
    ['sandbox', 'sandbox="allow-scripts', 'sandbox="allow-top-navigation allow-scripts'],
  ])
    it(`a frame with another ${name} than the element's is not adopted: the element makes its own`, async () => {
      const token = unique();
      const markup = renderEmbed({ src: `${peerUrl()}&session=${token}` });
      expect(markup).to.include(from);
      const win = await page(markup.replace(from, to), (w) => w.peersLoaded > 0);
      const el = elementOf(win);
      const frame = frameIn(el);
      await win.define();
      await until(() => el.status === 'ready', 'ready');
      expect([frameIn(el) === frame, frame!.isConnected]).to.deep.equal([false, false]);
      expect(frameIn(el)!.getAttribute(name)).to.equal(
        frame!.getAttribute(name)!.replace(to.split('"')[1], from.split('"')[1]),
      );
      expect(await requests(token)).to.equal(2);
    });

  it('the element defined before its markup is parsed (a blocking script in the head): one frame, no error', async () => {
    const token = unique();
    const win = await page(
      `<script src="${location.origin}/cdn/svc-embed.classic.min.js"></script>${renderEmbed({ src: `${peerUrl()}&session=${token}` })}`,
      (w) => elementOf(w)?.status === 'ready',
    );
    const el = elementOf(win);
    expect(el.status).to.equal('ready');
    expect(el.shadowRoot!.querySelectorAll('iframe')).to.have.length(1);
    expect(await requests(token)).to.equal(1);
    expect(win.errors).to.deep.equal([]);
  });

  it('without declarative shadow DOM (markup parsed as a plain template): the element makes its frame, no error', async () => {
    const token = unique();
    const box = document.createElement('div');
    document.body.append(box);
    // innerHTML never makes a declarative shadow root: this is what an engine without it parses.
    box.innerHTML = renderEmbed({ src: `${peerUrl()}&session=${token}` });
    const el = box.querySelector('svc-embed')!;
    await el.whenReady();
    expect(el.querySelector('template')).to.not.equal(null);
    expect(el.shadowRoot!.querySelectorAll('iframe')).to.have.length(1);
    expect(await requests(token)).to.equal(1);
  });

  it('loading="lazy" far from the viewport: nothing loads until it is near, then it is adopted', async () => {
    const token = unique();
    const win = await page(
      `<div style="height: 6000px"></div>${renderEmbed({ src: `${peerUrl()}&session=${token}`, loading: 'lazy' })}`,
    );
    const el = elementOf(win);
    const frame = frameIn(el);
    await win.define();
    await el.updateComplete;
    await new Promise((r) => setTimeout(r, 500));
    expect([el.status, await requests(token)]).to.deep.equal(['loading', 0]);
    el.scrollIntoView();
    await until(() => el.status === 'ready', 'ready');
    expect(frameIn(el)).to.equal(frame);
    expect(await requests(token)).to.equal(1);
    expect(win.errors).to.deep.equal([]);
  });
});

interface ReloadPage extends Page {
  reasons: string[];
}

/**
 * A page as a server renders it with one single-use session of the tenant in its HTML, the element's bundle in its
 * head, and a provider that mints a new session (through the test page: a customer's backend). Each load of the page
 * parses the same HTML: its session, spent at the first, is what a page from an HTTP cache (or a Firefox reload that
 * restores the frame's URL) brings back.
 */
async function sessionPage(): Promise<{ frame: HTMLIFrameElement; win: () => ReloadPage }> {
  const mint = async () =>
    (await executeServerCommand<{ session: string }, { ttl: number }>('tenant-session', { ttl: 60 })).session;
  (window as unknown as { mint: typeof mint }).mint = mint;
  const src = `${tenantA}/embed/dashboard/sales-overview?session=${await mint()}`;
  const body = `${renderEmbed({ src, style: 'height: 300px' })}<script type="module">
    import '${location.origin}${MODULE}';
    window.reasons = [];
    document.querySelector('svc-embed').sessionProvider = async ({ reason }) => (reasons.push(reason), parent.mint());
  </script>`;
  const loaded = await page(body, (w) => (w as ReloadPage).reasons !== undefined);
  const frame = [...document.querySelectorAll('iframe')].find((f) => f.contentWindow === loaded)!;
  return { frame, win: () => frame.contentWindow as ReloadPage };
}

describe('svc-embed/ssr: a session in the HTML that was spent', () => {
  afterEach(() => {
    cleanup();
    document.querySelectorAll('iframe').forEach((f) => f.remove());
  });

  for (const how of ['a reload', 'Back to the page'])
    for (const known of [false, true])
      it(`${how} brings back the spent session: ${known ? 'known as spent in this app, it is not adopted' : 'the tenant refuses it'}, and the provider gives a new one`, async () => {
        const { win } = await sessionPage();
        const first = elementOf(win());
        await until(() => first.status === 'ready', 'the first ready', 25_000);
        expect(win().reasons).to.deep.equal([]);
        // A frame's window stays the same object across its documents: the old document is told by a mark.
        const before = win() as ReloadPage & { old?: boolean };
        before.old = true;
        const again = () => !(win() as { old?: boolean }).old && win().reasons !== undefined;
        // Unless known: a new tab, or another visit, knows nothing of the session this app spent.
        if (!known) forgetSpent();
        if (how === 'a reload') before.location.reload();
        else {
          before.location.href = 'about:blank';
          await until(
            () => !(win() as { old?: boolean }).old && win().location.href === 'about:blank',
            'the other page',
          );
          win().history.back();
        }
        await until(again, 'the page again');
        const el = elementOf(win());
        await until(
          () => el.status === 'ready' && win().events.some((e) => e.startsWith('svc-dashboard-loaded')),
          'ready on a new session',
          25_000,
        );
        // WebKit, going Back, may also give the element's new frame the URL its place had in the history entry (the
        // spent one): the tenant refuses it, and the provider is asked once more.
        const reasons = win().reasons;
        if (how === 'Back to the page' && known && reasons.length === 2) expect(reasons[1]).to.equal('refused');
        else expect(reasons).to.deep.equal([known ? 'load' : 'refused']);
        const fatal = win().events.filter((e) => e.startsWith('svc-status error'));
        expect(fatal, 'no error shown').to.deep.equal([]);
        expect(el.shadowRoot!.querySelectorAll('iframe')).to.have.length(1);
      });
});

describe('svc-embed/ssr: an adopted frame on the tenant, with a provider', () => {
  afterEach(() => {
    cleanup();
    document.querySelectorAll('iframe').forEach((f) => f.remove());
  });

  const mint = async (ttl = 60) =>
    (await executeServerCommand<{ session: string }, { ttl: number }>('tenant-session', { ttl })).session;

  async function adopted(attrs: Record<string, string | number> = {}, ttl = 60) {
    const src = `${tenantA}/embed/dashboard/sales-overview?session=${await mint(ttl)}`;
    const win = await page(renderEmbed({ src, style: 'height: 300px', ...attrs }));
    const el = elementOf(win);
    const reasons: string[] = [];
    await win.define();
    el.sessionProvider = async ({ reason }) => (reasons.push(reason), { session: await mint(), expiresIn: 60 });
    await until(() => el.status === 'ready', 'ready', 25_000);
    return { win, el, reasons, frame: frameIn(el)! };
  }

  it('renews ahead of expiry behind the adopted frame, and swaps without leaving ready', async () => {
    const { win, el, reasons, frame } = await adopted({ 'session-expires-in': 12 }, 12);
    await until(() => frameIn(el) !== frame, 'the swap', 25_000);
    expect(reasons).to.deep.equal(['ahead']);
    expect(el.status).to.equal('ready');
    expect(win.events.filter((e) => e.startsWith('svc-status'))).to.deep.equal([
      'svc-status loading',
      'svc-status ready',
    ]);
  });

  it('a re-insertion gives the frame a new session from the provider: its own was spent', async () => {
    const { win, el, reasons, frame } = await adopted();
    el.remove();
    win.document.body.append(el);
    await until(() => el.status === 'ready' && frameIn(el) !== frame, 'ready again', 25_000);
    expect(reasons).to.deep.equal(['load']);
    expect(el.shadowRoot!.querySelectorAll('iframe')).to.have.length(1);
    expect(win.events.filter((e) => e.startsWith('svc-status error'))).to.deep.equal([]);
  });
});

describe('svc-embed/ssr: the markup is what the element renders', () => {
  afterEach(cleanup);

  const cases: Array<[string, Record<string, string>]> = [
    ['src', { src: peerUrl(tenant, null) }],
    [
      'tenant-origin, public-id, session, allow-export, title, loading, path',
      {
        'tenant-origin': tenant,
        'public-id': 'sales',
        session: 'a b&c"<',
        'allow-export': '',
        title: 'Sales "Q3" <draft>',
        loading: 'eager',
        path: '/details/7',
        'color-scheme': 'dark',
        style: 'height: 300px',
      },
    ],
  ];
  for (const [name, attrs] of cases)
    it(name, async () => {
      const el = document.createElement('svc-embed');
      for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
      document.body.append(el);
      await el.updateComplete;
      const parsed = document.createElement('template');
      parsed.innerHTML = renderEmbed(attrs);
      const server = parsed.content.querySelector('svc-embed')!;
      const shadow = server.querySelector('template')!.content;
      const serverFrame = shadow.querySelector('iframe')!;
      const frame = frameIn(el)!;
      expect(attributesOf(serverFrame)).to.deep.equal(attributesOf(frame));
      expect(serverFrame.getAttribute('sandbox')).to.equal(SANDBOX);
      // The boxes, in the element's order after the frame; the style is the element's own sheet.
      const boxes = (root: ParentNode) =>
        [...root.children].filter((c) => c.localName === 'div').map((c) => [attributesOf(c), c.innerHTML]);
      expect(boxes(shadow)).to.deep.equal(boxes(el.shadowRoot!));
      expect(shadow.firstElementChild).to.equal(serverFrame);
      expect(shadow.querySelector('style')!.textContent).to.equal(
        (el.constructor as typeof SvcEmbedElement).styles instanceof Array
          ? ''
          : String((el.constructor as unknown as { styles: { cssText: string } }).styles.cssText),
      );
      const host = attributesOf(server).filter((a) => !a.startsWith('aria-busy'));
      expect(host).to.deep.equal(attributesOf(el).filter((a) => !a.startsWith('aria-busy')));
      expect(server.getAttribute('aria-busy')).to.equal(el.getAttribute('aria-busy'));
    });

  it('a source the element refuses renders no frame, as the element makes none', async () => {
    const attrs = { src: 'http://example.com/embed/dashboard/x?session=s' };
    const warn = console.error;
    console.error = () => {};
    try {
      const { el } = embed(attrs);
      await el.updateComplete;
      expect(frameIn(el)).to.equal(null);
    } finally {
      console.error = warn;
    }
    expect(renderEmbed(attrs)).to.equal(`<svc-embed src="http://example.com/embed/dashboard/x?session=s"></svc-embed>`);
  });
});
