// The CSS parts, slots and custom states in custom-elements.json are those the element shows, in each status.
import { expect } from '@open-wc/testing';
import { cleanup, embed } from './helpers.js';
import type { SvcEmbedElement } from '../../src/index.js';

interface Named {
  name: string;
}

/** What this test reads of custom-elements.json. */
interface Manifest {
  modules: Array<{ declarations?: Declaration[] }>;
}

interface Declaration {
  tagName?: string;
  cssParts?: Named[];
  slots?: Named[];
  cssStates?: Named[];
}

describe('Custom Elements Manifest', () => {
  after(cleanup);

  it('lists every CSS part, slot and CSS state the element shows, idle, loading, ready and refused, and no other', async () => {
    const manifest = (await (await fetch('/custom-elements.json')).json()) as Manifest;
    const declared = manifest.modules.flatMap((m) => m.declarations ?? []).find((d) => d.tagName === 'svc-embed')!;
    const declaredStates = (declared.cssStates ?? []).map((s) => s.name);

    const parts = new Set<string>();
    const slots = new Set<string>();
    const states = new Set<string>();
    const look = async (el: SvcEmbedElement) => {
      await el.updateComplete;
      for (const state of declaredStates) if (el.matches(`:state(${state})`)) states.add(state);
      for (const node of el.shadowRoot!.querySelectorAll('[part]'))
        for (const p of node.getAttribute('part')!.split(/\s+/)) parts.add(p);
      for (const slot of el.shadowRoot!.querySelectorAll('slot')) slots.add(slot.name);
    };

    const idle = document.createElement('svc-embed');
    document.body.append(idle);
    await look(idle);

    const { el, ready } = embed();
    await look(el);
    await ready;
    await look(el);

    const consoleError = console.error;
    console.error = () => {};
    try {
      const refused = embed({ src: 'javascript:alert(1)' }).el;
      await look(refused);
    } finally {
      console.error = consoleError;
    }

    expect([...parts].sort()).to.deep.equal((declared.cssParts ?? []).map((p) => p.name).sort());
    expect([...slots].sort()).to.deep.equal((declared.slots ?? []).map((s) => s.name).sort());
    // Custom states cannot be listed, only tested: each declared one must be reached.
    expect([...states].sort()).to.deep.equal([...declaredStates].sort());
  });
});
