// The classic-script bundle (cdn/svc-embed.classic.min.js), as tag managers and CMSes load it: <script src>
// without type="module", with or without defer, alone or beside the ES module bundle. Each page is a frame of its
// own, so each starts with an empty custom element registry.
import { expect } from '@open-wc/testing';
import { framePage, peerUrl } from './helpers.js';

const CLASSIC = '/cdn/svc-embed.classic.min.js';
const MODULE = '/cdn/svc-embed.min.js';

interface PageWindow extends Window {
  errors: string[];
  ready?: { type: string; payload: { mode: string } };
  SvcEmbed?: { SvcEmbedElement: CustomElementConstructor };
}

/**
 * Loads a page made of these head scripts and one <svc-embed>, and resolves once it is ready, or after 25 s (a
 * loaded machine can be slow; the test's own limit is 30 s) so that the test fails on what it checks.
 */
async function page(scripts: string): Promise<PageWindow> {
  return framePage<PageWindow>(
    `<!doctype html><html><head>
    <script>
      window.errors = [];
      addEventListener('error', (e) => errors.push(String(e.message)));
      document.addEventListener('svc-ready', (e) => (window.ready = e.detail));
    </script>
    ${scripts}
  </head><body><svc-embed src="${peerUrl()}" style="height: 100px"></svc-embed></body></html>`,
    (win) => Boolean(win.ready),
  );
}

describe('classic-script bundle', () => {
  afterEach(() => document.querySelectorAll('iframe').forEach((f) => f.remove()));

  for (const defer of [false, true]) {
    it(`<script src> without type${defer ? ', with defer' : ''}: defines <svc-embed> and the global SvcEmbed`, async () => {
      const win = await page(`<script src="${CLASSIC}"${defer ? ' defer' : ''}></script>`);
      expect(win.errors).to.deep.equal([]);
      expect(win.ready?.payload.mode).to.equal('signed');
      expect(win.customElements.get('svc-embed')).to.equal(win.SvcEmbed!.SvcEmbedElement);
      expect(Object.keys(win.SvcEmbed!)).to.deep.equal(['SvcEmbedElement', 'SvcEmbedError']);
      expect(win.document.querySelector('script[type="module"]')).to.equal(null);
    });
  }

  it('beside the ES module bundle, loaded first: the classic define is skipped without an error', async () => {
    // A module script and a deferred classic script run in document order.
    const win = await page(`<script type="module" src="${MODULE}"></script><script src="${CLASSIC}" defer></script>`);
    expect(win.errors).to.deep.equal([]);
    expect(win.ready?.payload.mode).to.equal('signed');
    expect(win.SvcEmbed).to.not.equal(undefined);
    expect(win.customElements.get('svc-embed')).to.not.equal(win.SvcEmbed!.SvcEmbedElement);
  });

  it('beside the ES module bundle, loaded after it: the module define is skipped without an error', async () => {
    const win = await page(`<script src="${CLASSIC}"></script><script type="module" src="${MODULE}"></script>`);
    expect(win.errors).to.deep.equal([]);
    expect(win.ready?.payload.mode).to.equal('signed');
    expect(win.customElements.get('svc-embed')).to.equal(win.SvcEmbed!.SvcEmbedElement);
  });
});
