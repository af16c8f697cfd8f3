// The embed URL: which src forms are accepted, which are refused and how.
import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { cleanup, frameOf, peerUrl } from './helpers.js';
import { SvcEmbedElement } from '../../src/index.js';
import type { SvcConfigErrorDetail } from '../../src/index.js';

/** Imports the module at `url` (served by the test server, so not one TypeScript resolves). */
function importServed(url: string): Promise<{ SvcEmbedElement: unknown }> {
  return import(url) as Promise<{ SvcEmbedElement: unknown }>;
}

async function make(attrs: Record<string, string>) {
  const el = document.createElement('svc-embed');
  const errors: Array<CustomEvent<SvcConfigErrorDetail>> = [];
  el.addEventListener('svc-config-error', (e) => errors.push(e));
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, value);
  document.body.append(el);
  await el.updateComplete;
  return { el, errors };
}

const REFUSED: Array<[string, string]> = [
  ['http://tenant.example.com/embed/dashboard/x?session=s3cr3t', 'insecure-protocol'],
  ['http://localhost.evil.example/embed', 'insecure-protocol'],
  ['http://127.0.0.1.evil.example/embed', 'insecure-protocol'],
  ['http://10.0.0.5/embed', 'insecure-protocol'],
  ['javascript:alert(document.domain)', 'unsupported-protocol'],
  ['data:text/html,<script>alert(1)</script>', 'unsupported-protocol'],
  ['blob:https://tenant.example.com/6f1c7c1e-0000-4000-8000-000000000000', 'unsupported-protocol'],
  ['about:blank', 'unsupported-protocol'],
  ['file:///etc/passwd', 'unsupported-protocol'],
  ['ftp://tenant.example.com/embed', 'unsupported-protocol'],
  ['/embed/dashboard/x?session=s3cr3t', 'relative-url'],
  ['embed/dashboard/x', 'relative-url'],
  ['//tenant.example.com/embed', 'relative-url'],
  ['https://user:s3cr3t@tenant.example.com/embed', 'credentials-in-url'],
  ['https://user@tenant.example.com/embed', 'credentials-in-url'],
  ['https://[::1/embed', 'invalid-url'],
];

describe('configuration', () => {
  afterEach(() => {
    cleanup();
    sinon.restore();
  });

  for (const [src, reason] of REFUSED) {
    it(`refuses src ${src}: no iframe, a console.error, svc-config-error {reason: ${reason}}`, async () => {
      const error = sinon.stub(console, 'error');
      const { el, errors } = await make({ src });
      expect(frameOf(el)).to.equal(null);
      expect(errors.map((e) => e.detail.reason)).to.deep.equal([reason]);
      expect(Object.keys(errors[0].detail).sort()).to.deep.equal(['message', 'reason']);
      expect(errors[0].bubbles && errors[0].composed).to.equal(true);
      expect(error.callCount).to.equal(1);
      expect(error.firstCall.args[0]).to.equal(errors[0].detail.message);
      // The message names the rule; it never repeats the URL or its secrets.
      expect(errors[0].detail.message).to.not.match(/s3cr3t|evil|tenant\.example|alert|passwd/);
    });
  }

  const ACCEPTED = [
    'https://tenant.example.com/embed/dashboard/x?session=s',
    'http://localhost:9/embed/dashboard/x',
    'http://127.0.0.1:9/embed',
    'http://127.5.6.7/embed',
    'http://[::1]:9/embed',
  ];
  for (const src of ACCEPTED) {
    it(`accepts src ${src}`, async () => {
      const { el, errors } = await make({ src });
      expect(errors).to.deep.equal([]);
      expect(frameOf(el)!.src).to.equal(new URL(src).href);
    });
  }

  it('creates nothing and reports nothing while no URL is configured', async () => {
    const error = sinon.stub(console, 'error');
    const { el, errors } = await make({ 'tenant-origin': 'https://tenant.example.com' });
    expect(frameOf(el)).to.equal(null);
    expect(errors).to.deep.equal([]);
    expect(error.notCalled).to.equal(true);
  });

  it('builds {tenant-origin}/embed/dashboard/{public-id}?session={session}, encoding the session', async () => {
    const { el } = await make({
      'tenant-origin': 'https://tenant.example.com',
      'public-id': 'a-b_c.d~e',
      session: 's&allowExport=true #x',
    });
    expect(frameOf(el)!.src).to.equal(
      'https://tenant.example.com/embed/dashboard/a-b_c.d~e?session=s%26allowExport%3Dtrue%20%23x',
    );
  });

  it('builds the URL without a session (private mode)', async () => {
    const { el } = await make({ 'tenant-origin': 'https://tenant.example.com/', 'public-id': 'pub' });
    expect(frameOf(el)!.src).to.equal('https://tenant.example.com/embed/dashboard/pub');
  });

  for (const origin of [
    'https://tenant.example.com/path',
    'tenant.example.com',
    'http://tenant.example.com',
    'data:,x',
    'https://u:p@tenant.example.com',
  ]) {
    it(`refuses tenant-origin ${origin}`, async () => {
      sinon.stub(console, 'error');
      const { el, errors } = await make({ 'tenant-origin': origin, 'public-id': 'pub' });
      expect(frameOf(el)).to.equal(null);
      expect(errors).to.have.length(1);
    });
  }

  it('src wins over tenant-origin', async () => {
    const { el } = await make({
      src: 'https://a.example.com/embed/app',
      'tenant-origin': 'https://b.example.com',
      'public-id': 'p',
    });
    expect(frameOf(el)!.src).to.equal('https://a.example.com/embed/app');
  });

  it('allow-export adds allowExport=true in either form, and removing it takes it away', async () => {
    const { el } = await make({ src: 'https://tenant.example.com/embed/dashboard/x?session=s', 'allow-export': '' });
    expect(frameOf(el)!.src).to.equal('https://tenant.example.com/embed/dashboard/x?session=s&allowExport=true');
    el.removeAttribute('allow-export');
    await el.updateComplete;
    expect(frameOf(el)!.src).to.equal('https://tenant.example.com/embed/dashboard/x?session=s');
    const built = await make({
      'tenant-origin': 'https://tenant.example.com',
      'public-id': 'p',
      session: 's',
      'allow-export': '',
    });
    expect(frameOf(built.el)!.src).to.equal('https://tenant.example.com/embed/dashboard/p?session=s&allowExport=true');
  });

  it('reads the boolean attributes allow-export and debug as false when their value is "false"', async () => {
    const { el } = await make({
      src: 'https://tenant.example.com/embed/dashboard/x',
      'allow-export': 'false',
      debug: 'false',
    });
    expect([el.allowExport, el.debug]).to.deep.equal([false, false]);
    expect(frameOf(el)!.src).to.equal('https://tenant.example.com/embed/dashboard/x');
    for (const value of ['', 'true', 'allow-export']) {
      el.setAttribute('allow-export', value);
      el.setAttribute('debug', value);
      expect([el.allowExport, el.debug]).to.deep.equal([true, true]);
    }
  });

  it('reports a refused src again when it changes to another refused one, and recovers on a valid one', async () => {
    sinon.stub(console, 'error');
    const { el, errors } = await make({ src: 'http://example.com/' });
    el.src = 'javascript:void 0';
    await el.updateComplete;
    el.src = peerUrl();
    await el.updateComplete;
    expect(errors.map((e) => e.detail.reason)).to.deep.equal(['insecure-protocol', 'unsupported-protocol']);
    expect(frameOf(el)!.src).to.equal(peerUrl());
    el.src = 'about:blank';
    await el.updateComplete;
    expect(frameOf(el)).to.equal(null);
  });

  it('gives the iframe an accessible name, a sandbox without top navigation, and a part', async () => {
    const { el } = await make({ src: peerUrl() });
    const frame = frameOf(el)!;
    expect(frame.title).to.equal('Embedded analytics');
    expect(frame.getAttribute('part')).to.equal('frame');
    expect(frame.sandbox.contains('allow-scripts')).to.equal(true);
    expect(frame.sandbox.contains('allow-top-navigation')).to.equal(false);
    el.setAttribute('title', 'Sales dashboard');
    await el.updateComplete;
    expect(frame.title).to.equal('Sales dashboard');
    expect(frameOf(el)).to.equal(frame);
  });

  it('is defined once; two more copies of the CDN bundle on the page do not throw', async () => {
    expect(customElements.get('svc-embed')).to.equal(SvcEmbedElement);
    // Two module instances of the bundle, each with its own copy of the class and of Lit.
    const first = await importServed('/cdn/svc-embed.min.js?copy=1');
    const second = await importServed('/cdn/svc-embed.min.js?copy=2');
    expect(first.SvcEmbedElement).to.not.equal(second.SvcEmbedElement);
    expect(customElements.get('svc-embed')).to.equal(SvcEmbedElement);
    expect(document.createElement('svc-embed')).to.be.instanceOf(SvcEmbedElement);
  });
});
