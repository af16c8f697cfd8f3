// The code examples of docs/element.md, docs/lifecycle.md and docs/frameworks/plain-html.md, run as written.
// Only module specifiers, file paths and the embed URL are mapped to this repository's and the test peer's.
// Each example is the block under a comment that names this file (test/node/docs.test.mjs checks the marks).
import { expect } from '@open-wc/testing';
import * as protocol from '@svc-embed/protocol';
import '../../src/index.js';
import type { SvcEmbedElement } from '../../src/index.js';
import { executeServerCommand } from '@web/test-runner-commands';
import { cleanup, frameOf, oneSvcEvent, peerUrl, tenant } from './helpers.js';

/** The blocks of a page that a mark gives to this file, in page order. */
async function examples(page: string): Promise<Array<{ lang: string; code: string }>> {
  const res = await fetch(`/${page}`);
  if (!res.ok) throw new Error(`${page}: HTTP ${res.status}`);
  const text = await res.text();
  const re = /<!-- run by test\/browser\/docs\.test\.ts -->\n```(\w+)\n([\s\S]*?)```/g;
  return [...text.matchAll(re)].map(([, lang, code]) => ({ lang: lang, code: code }));
}

/** An example's script as the body of a function of `names`; its imports become look-ups in `modules`. */
function run(code: string, modules: Record<string, unknown>, scope: Record<string, unknown>): unknown {
  const body = code.replace(/^\s*import \{([^}]+)\} from '([^']+)';$/gm, (_, names: string, from: string) => {
    if (!Object.hasOwn(modules, from)) throw new Error(`the example imports ${from}, which this test does not map`);
    return `const {${names}} = modules[${JSON.stringify(from)}];`;
  });
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the docs' example as written
  const fn = new Function('modules', ...Object.keys(scope), body) as (...args: unknown[]) => unknown;
  return fn(modules, ...Object.values(scope));
}

/** `expression; // 'value'` lines: each expression's value, and the value its comment says. */
function claims(code: string): Array<[string, string]> {
  return [...code.matchAll(/^(.+?);\s*\/\/ '(.*)'$/gm)].map(([, expression, value]) => [expression, value]);
}

afterEach(cleanup);

/** docs/lifecycle.md's scripts, in page order. */
const lifecycleScripts = async () => (await examples('docs/lifecycle.md')).filter((e) => e.lang === 'js');

describe('docs/element.md', () => {
  it('has the examples this file runs', async () => {
    expect((await examples('docs/element.md')).map((e) => e.lang)).to.deep.equal(['js', 'html']);
  });

  it('filterParam gives what the page says', async () => {
    const [filter] = await examples('docs/element.md');
    const found = claims(filter.code);
    expect(found).to.have.length(1);
    for (const [expression, value] of found) {
      const withReturn = filter.code.replace(`${expression};`, `return ${expression};`);
      expect(run(withReturn, { 'svc-embed/protocol': protocol }, {})).to.equal(value);
      expect(protocol.parseFilterParam(value)).to.deep.include({ view: 'orders', dimension: 'status' });
    }
  });

  it("the slotted error content is what the element shows when it can't load", async () => {
    const [, slots] = await examples('docs/element.md');
    const template = new DOMParser().parseFromString(slots.code, 'text/html').querySelector('svc-embed')!;
    const el = document.createElement('svc-embed');
    el.append(...[...template.children].map((c) => document.importNode(c, true)));
    const error = oneSvcEvent(el, 'svc-config-error');
    el.setAttribute('src', 'javascript:alert(1)'); // refused: the error state
    document.body.append(el);
    await error;
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="error"]')!;
    expect(slot.assignedElements().map((e) => e.textContent)).to.deep.equal([
      'The dashboard is unavailable. Contact support.',
    ]);
    expect(el.shadowRoot!.querySelector('[part="error"]')!.hasAttribute('hidden')).to.equal(false);
  });
});

describe('docs/lifecycle.md', () => {
  it('has the examples this file runs', async () => {
    expect((await examples('docs/lifecycle.md')).map((e) => e.lang)).to.deep.equal(['js', 'html', 'js', 'js', 'js']);
  });

  it("a provider that shares its backend's reusable sessions: one request for the calls made within 10 s", async () => {
    const [, sharing] = await lifecycleScripts();
    let requests = 0;
    const fetchSession = () => Promise.resolve(`reusable-${++requests}`);
    const elements = [0, 1, 2].map(() => {
      const el = document.createElement('svc-embed');
      el.src = peerUrl(tenant, 'dashboard');
      return el;
    });
    const ready = Promise.all(elements.map((el) => oneSvcEvent(el, 'svc-ready')));
    // In the task that inserts them: each one's first load asks the provider.
    document.body.append(...elements);
    run(sharing.code, {}, { fetchSession });
    await ready;
    expect(requests).to.equal(1);
    expect(elements.map((el) => new URL(frameOf(el)!.src).searchParams.get('session'))).to.deep.equal([
      'reusable-1',
      'reusable-1',
      'reusable-1',
    ]);
  });

  it('the svc-status listener reports an error with its reason', async () => {
    const [listener] = await lifecycleScripts();
    const el = document.createElement('svc-embed');
    const reported: unknown[][] = [];
    run(listener.code, {}, { embed: el, reportToMonitoring: (...args: unknown[]) => reported.push(args) });
    const status = oneSvcEvent(el, 'svc-status');
    el.setAttribute('src', '/relative'); // refused: a configuration error
    document.body.append(el);
    await status;
    expect(reported).to.have.length(1);
    expect(reported[0][0]).to.equal('config-error');
    expect(reported[0][1]).to.be.a('string').and.not.equal('');
  });

  it('the session provider renews the session with what the backend answers', async () => {
    const [, , provider] = await lifecycleScripts();
    const el = document.createElement('svc-embed');
    el.src = peerUrl(tenant, 'dashboard', '&session=first-session');
    const asked: string[] = [];
    const fetchStub = (url: string, init: RequestInit) => {
      asked.push(`${init.method} ${url}`);
      return Promise.resolve(new Response(JSON.stringify({ session: 'renewed-session' })));
    };
    run(provider.code, {}, { embed: el, fetch: fetchStub });
    const ready = oneSvcEvent(el, 'svc-ready');
    document.body.append(el);
    await ready;
    await el.renewSession();
    expect(asked).to.deep.equal(['POST /api/embed-session']);
    expect(new URL(frameOf(el)!.src).searchParams.get('session')).to.equal('renewed-session');
  });
});

describe('docs/lifecycle.md, a path to open at', () => {
  it('the element with `path` opens there: svc-ready once the embed has viewed it', async () => {
    const [markup] = (await examples('docs/lifecycle.md')).filter((e) => e.lang === 'html');
    const template = new DOMParser().parseFromString(markup.code, 'text/html').querySelector('svc-embed')!;
    const el = document.importNode<SvcEmbedElement>(template, true);
    // The peer says ready at load, and views each path it is sent to.
    el.setAttribute('src', peerUrl(tenant, 'dashboard'));
    const views: string[] = [];
    el.addEventListener('svc-view', (e) => views.push(e.detail.payload.path));
    const ready = oneSvcEvent(el, 'svc-ready');
    document.body.append(el);
    await ready;
    expect([el.status, el.path, views]).to.deep.equal(['ready', '/details/7', ['/details/7']]);
  });
});

describe('docs/lifecycle.md, renewal ahead of expiry', () => {
  it('the provider answers the session with its expiry, and a failed attempt is reported', async () => {
    const [, , , ahead] = await lifecycleScripts();
    const el = document.createElement('svc-embed');
    el.src = peerUrl(tenant, 'dashboard', '&session=first-session');
    const expiresAt = new Date(Date.now() + 600_000).toISOString();
    const answers = [
      Promise.reject(new Error('backend down')),
      Promise.resolve({ session: 'next-session', expiresAt }),
    ];
    answers[0].catch(() => {});
    const fetchStub = () => answers.shift()!.then((body) => new Response(JSON.stringify(body)));
    const reported: unknown[][] = [];
    run(
      ahead.code,
      {},
      { embed: el, fetch: fetchStub, reportToMonitoring: (...args: unknown[]) => reported.push(args) },
    );
    // A session that is due for renewal 5 s after its load (the floor: a session of 5 s or less is not renewed ahead):
    // the first attempt fails and is reported.
    el.sessionExpiresAt = Date.now() + 8000;
    const ready = oneSvcEvent(el, 'svc-ready');
    document.body.append(el);
    await ready;
    const renewed = oneSvcEvent(el, 'svc-session-renewal-failed');
    expect((await renewed).detail.reason).to.equal('provider-error');
    expect(reported).to.deep.equal([['provider-error', 1]]);
  });
});

describe('docs/frameworks/plain-html.md', () => {
  it('has the examples this file runs', async () => {
    expect((await examples('docs/frameworks/plain-html.md')).map((e) => e.lang)).to.deep.equal([
      'html',
      'html',
      'html',
      'html',
    ]);
  });

  /** A path under node_modules/svc-embed/ is this repository's root; under @svc-embed/x, packages/x. */
  const local = (path: string) =>
    path.replace(/^\.?\/?node_modules\/svc-embed\//, '/').replace(/^\.?\/?node_modules\/@svc-embed\//, '/packages/');

  it('the page loads the CDN file that the package ships, and reaches ready', async () => {
    const [page] = await examples('docs/frameworks/plain-html.md');
    const doc = new DOMParser().parseFromString(page.code, 'text/html');
    const bundle = doc.querySelector('script[src]')!;
    expect(bundle.getAttribute('type')).to.equal('module');
    const pkg = (await (await fetch('/package.json')).json()) as { module: string; files: string[]; unpkg: string };
    expect(bundle.getAttribute('src')).to.equal(`node_modules/svc-embed/${pkg.unpkg}`);
    expect(pkg.files).to.include('cdn/');
    expect((await fetch(local(bundle.getAttribute('src')!))).ok).to.equal(true);

    // The element is already defined here (by the same source); the page's own script runs as written.
    const template = doc.querySelector('svc-embed')!;
    const el = document.createElement('svc-embed');
    for (const { name, value } of template.attributes) el.setAttribute(name, name === 'src' ? peerUrl() : value);
    document.body.append(el);
    const logged: unknown[][] = [];
    const ready = oneSvcEvent(el, 'svc-ready');
    run(
      doc.querySelector('script:not([src])')!.textContent,
      {},
      {
        document,
        console: { log: (...args: unknown[]) => logged.push(args) },
      },
    );
    await ready;
    expect(logged).to.deep.equal([['ready', 'signed']]);
  });

  it('the classic script is a file the package ships', async () => {
    const [, classic] = await examples('docs/frameworks/plain-html.md');
    const src = new DOMParser()
      .parseFromString(classic.code, 'text/html')
      .querySelector('script')!
      .getAttribute('src')!;
    expect(src).to.equal('node_modules/svc-embed/cdn/svc-embed.classic.min.js');
    const res = await fetch(local(src));
    expect(res.ok).to.equal(true);
    expect(await res.text()).to.contain('SvcEmbedElement');
  });

  it('the protocol module needs no bundling', async () => {
    const [, , module] = await examples('docs/frameworks/plain-html.md');
    const code = new DOMParser().parseFromString(module.code, 'text/html').querySelector('script')!.textContent;
    const from = /from '([^']+)'/.exec(code)![1];
    const imported = (await import(local(from))) as typeof protocol;
    const el = document.createElement('svc-embed');
    document.body.append(el);
    run(code, { [from]: imported }, { document });
    expect(el.filter).to.equal('f_orders.status={"value":"shipped"}');
    // The installed package has that file: it ships its dist/.
    const pkg = (await (await fetch('/packages/protocol/package.json')).json()) as { name: string; files: string[] };
    expect([from, pkg.name, pkg.files]).to.deep.equal([
      './node_modules/@svc-embed/protocol/dist/index.js',
      '@svc-embed/protocol',
      ['dist/'],
    ]);
  });

  it('the prerendered embeds switch as written: kept where moveBefore keeps the frame, reloaded elsewhere', async () => {
    const [tenantA]: string[] = await executeServerCommand('tenant-origins');
    const [, , , page] = await examples('docs/frameworks/plain-html.md');
    const doc = new DOMParser().parseFromString(page.code.replaceAll('http://127.0.0.1:8001', tenantA), 'text/html');
    expect(doc.querySelector('script[src]')!.getAttribute('src')).to.equal(
      'node_modules/svc-embed/cdn/svc-embed.min.js',
    );
    document.body.append(
      document.importNode(doc.querySelector('nav')!, true),
      document.importNode(doc.querySelector('main')!, true),
    );
    const code = doc.querySelector('script:not([src])')!.textContent;
    const from = /from '([^']+)'/.exec(code)![1];
    const logged: unknown[][] = [];
    run(
      code,
      { [from]: (await import(local(from))) as unknown },
      { document, console: { log: (...a: unknown[]) => logged.push(a) } },
    );
    const keeps = 'moveBefore' in Element.prototype && !navigator.userAgent.includes('Firefox');
    const sales = document.querySelector<SvcEmbedElement>('#outlet svc-embed')!;
    expect(new URL(sales.src!).pathname).to.equal('/embed/dashboard/sales-overview');
    await sales.whenReady();
    document.querySelector<HTMLButtonElement>('[data-route="support"]')!.click();
    const support = document.querySelector<SvcEmbedElement>('#outlet svc-embed')!;
    expect(new URL(support.src!).pathname).to.equal('/embed/dashboard/support-ops');
    await support.whenReady();
    document.querySelector<HTMLButtonElement>('[data-route="sales"]')!.click();
    const again = keeps ? 'kept' : 'reloaded';
    // The first show is in the task that prerendered it: no frame yet, so nothing to lose.
    expect(logged).to.deep.equal([
      ['sales', 'kept'],
      ['support', again],
      ['sales', again],
    ]);
    for (const el of document.querySelectorAll('svc-embed')) el.remove();
  });
});
