// Subresource Integrity for the CDN bundles, as a page pins them: each built bundle, served from a second origin (the
// test peer serves cdn/ with CORS for this page's origin alone, as a CDN would), loads through
// <script src integrity crossorigin> with the value the build wrote to cdn/integrity.json, and a tag whose value does
// not match is refused. Each case is a document of its own (a same-origin frame): both bundles define <svc-embed>,
// and a document loads a module once per URL.
import { expect } from '@open-wc/testing';
import { framePage, tenant } from './helpers.js';

/** The bundles as cdn/integrity.json names them, and how a page loads each. */
const BUNDLES = [
  { name: 'svc-embed.min.js', module: true },
  { name: 'svc-embed.classic.min.js', module: false },
] as const;

interface PageWindow extends Window {
  /** What the bundle's script element reported: `load` or `error`. */
  outcome?: string[];
  errors: string[];
  SvcEmbed?: { SvcEmbedElement: CustomElementConstructor };
}

/** cdn/integrity.json as the build wrote it: bundle file name → `sha384-<base64>`. */
async function builtIntegrity(): Promise<Record<string, string>> {
  const response = await fetch('/cdn/integrity.json', { cache: 'no-store' });
  expect(response.ok, 'cdn/integrity.json is built (npm run build)').to.equal(true);
  return (await response.json()) as Record<string, string>;
}

/**
 * Loads a page whose head has one script tag with these attributes, and resolves once that script has reported
 * `load` or `error`, or after 25 s (the test's own limit is 30 s) so that the test fails on what it checks.
 */
async function page(attributes: string): Promise<PageWindow> {
  return framePage<PageWindow>(
    `<!doctype html><html><head>
    <script>
      window.outcome = [];
      window.errors = [];
      addEventListener('error', (e) => errors.push(String(e.message)));
    </script>
    <script ${attributes} onload="outcome.push('load')" onerror="outcome.push('error')"></script>
  </head><body><svc-embed></svc-embed></body></html>`,
    // A classic script in the head runs (and reports `load`) before the body is parsed: wait for the whole document.
    (win) => Boolean(win.outcome?.length) && win.document.readyState !== 'loading',
  );
}

/** The attributes of a tag that loads `bundle` from the peer's origin, with `integrity` and `crossorigin`. */
function tag(bundle: (typeof BUNDLES)[number], integrity: string, crossorigin = true): string {
  return [
    bundle.module ? 'type="module"' : '',
    `src="${tenant}/cdn/${bundle.name}"`,
    `integrity="${integrity}"`,
    crossorigin ? 'crossorigin="anonymous"' : '',
  ].join(' ');
}

describe('Subresource Integrity of the CDN bundles (cdn/integrity.json)', () => {
  afterEach(() => document.querySelectorAll('iframe').forEach((f) => f.remove()));

  it('svc-embed/history loads as a module with its own value, and is refused with another', async () => {
    const integrity = await builtIntegrity();
    const name = 'svc-embed-history.min.js';
    const attrs = (value: string) =>
      `type="module" src="${tenant}/cdn/${name}" integrity="${value}" crossorigin="anonymous"`;
    expect((await page(attrs(integrity[name]))).outcome).to.deep.equal(['load']);
    expect((await page(attrs(integrity['svc-embed.min.js']))).outcome).to.deep.equal(['error']);
  });

  it('cdn/integrity.json maps each bundle file name to one sha384 value', async () => {
    const integrity = await builtIntegrity();
    // The element's bundles, then svc-embed/prerender's module (loaded as a module beside the element's), then
    // svc-embed/history's.
    expect(Object.keys(integrity)).to.deep.equal([
      ...BUNDLES.map((b) => b.name),
      'svc-embed-prerender.min.js',
      'svc-embed-history.min.js',
    ]);
    // 384 bits are 48 bytes, 64 base64 characters without padding.
    for (const value of Object.values(integrity)) expect(value).to.match(/^sha384-[A-Za-z0-9+/]{64}$/);
    expect(new Set(Object.values(integrity)).size).to.equal(BUNDLES.length + 2);
    expect(new URL(tenant).origin).to.not.equal(location.origin);
  });

  for (const bundle of BUNDLES) {
    const how = bundle.module ? '<script type="module">' : 'a classic <script>';
    it(`${bundle.name} from another origin, in ${how} with its integrity: defines <svc-embed>`, async () => {
      const integrity = await builtIntegrity();
      const win = await page(tag(bundle, integrity[bundle.name]));
      expect(win.outcome).to.deep.equal(['load']);
      expect(win.errors).to.deep.equal([]);
      const defined = win.customElements.get('svc-embed');
      expect(defined).to.be.a('function');
      expect(win.document.querySelector('svc-embed')).to.be.an.instanceOf(defined!);
      if (!bundle.module) expect(defined).to.equal(win.SvcEmbed!.SvcEmbedElement);
    });

    it(`${bundle.name} in ${how} with the other bundle's integrity: refused, the error event fires`, async () => {
      const integrity = await builtIntegrity();
      const wrong = integrity[BUNDLES.find((b) => b !== bundle)!.name];
      expect(wrong)
        .to.match(/^sha384-/)
        .and.not.equal(integrity[bundle.name]);
      const win = await page(tag(bundle, wrong));
      expect(win.outcome).to.deep.equal(['error']);
      expect(win.customElements.get('svc-embed')).to.equal(undefined);
      expect(win.SvcEmbed).to.equal(undefined);
    });
  }

  it('the classic bundle with its integrity but without crossorigin: refused (an opaque response cannot be checked)', async () => {
    const integrity = await builtIntegrity();
    const bundle = BUNDLES[1];
    const win = await page(tag(bundle, integrity[bundle.name], false));
    expect(win.outcome).to.deep.equal(['error']);
    expect(win.customElements.get('svc-embed')).to.equal(undefined);
  });
});
