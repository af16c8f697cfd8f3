// @svc-embed/react's usePrerenderedEmbed() and <SvcEmbedOutlet> (issue 28), against the simulated tenant: an app
// that keeps three prerendered embeds above its routes, switched like a router switches routes; also in StrictMode.
import { expect } from '@open-wc/testing';
import { executeServerCommand } from '@web/test-runner-commands';
import type { Root } from 'react-dom/client';
import { canMoveBefore, cleanup } from './helpers.js';
import { createRoot, renderRoutes } from './fixtures/react-app.js';
import type { SvcEmbedElement } from '../../src/index.js';

const [tenantA]: string[] = await executeServerCommand('tenant-origins');
const SRCS = ['dashboard/sales-overview', 'dashboard/support-ops', 'app'].map(
  (board) => `${tenantA}/embed/${board}?session=demo-acme`,
);
const embeds = () => [...document.querySelectorAll('svc-embed')];
const frameWindow = (el: SvcEmbedElement) => el.shadowRoot!.querySelector('iframe')!.contentWindow;

describe('React: prerendered embeds', () => {
  let root: Root | undefined;
  afterEach(() => {
    root?.unmount();
    root = undefined;
    cleanup();
  });

  for (const strict of [false, true]) {
    it(`three routes switched 20 times: each outlet shows its route's live embed${strict ? ', in StrictMode' : ''}`, async function () {
      this.timeout(120_000);
      const host = document.createElement('div');
      document.body.append(host);
      root = createRoot(host);
      let readies = 0;
      renderRoutes(root, { route: 0, srcs: SRCS, onReady: () => readies++ }, strict);
      // The effects ran: one element per hook, StrictMode's double mount included.
      await new Promise((r) => setTimeout(r, 0));
      expect(embeds()).to.have.length(3);
      await Promise.all(embeds().map((el) => el.whenReady()));
      expect(readies).to.be.at.least(3);
      const statuses: string[] = [];
      for (const el of embeds()) el.addEventListener('svc-status', (e) => statuses.push(e.detail.status));
      const keeps = canMoveBefore(host) && !navigator.userAgent.includes('Firefox');
      for (let n = 1; n <= 20; n++) {
        const route = n % 3;
        renderRoutes(root, { route, srcs: SRCS }, strict);
        const outlet = host.querySelector('.outlet')!;
        const shown = outlet.querySelector('svc-embed')!;
        expect(shown, `route ${route}`).to.not.equal(null);
        expect(new URL(shown.src!).pathname).to.equal(new URL(SRCS[route]).pathname);
        expect(embeds()).to.have.length(3);
        if (keeps) expect(shown.status, `switch ${n}`).to.equal('ready');
        else await shown.whenReady();
        expect(frameWindow(shown)).to.not.equal(null);
      }
      if (keeps) expect(statuses).to.deep.equal([]);
      // Unmounted: every element is removed, the parking container with them.
      root.unmount();
      root = undefined;
      await new Promise((r) => setTimeout(r, 0));
      expect(embeds()).to.have.length(0);
      expect(document.querySelector('[data-svc-embed-parking]')).to.equal(null);
    });
  }
});
