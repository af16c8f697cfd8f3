// The unit-test examples of docs/testing.md ("Unit and component tests"), run as written: the component,
// then its test, then the session provider's test, then the single-use sessions' test. Only the module specifiers
// are mapped to this repository's modules.
import * as openWc from '@open-wc/testing';
import * as testing from '../../src/testing/index.js';
import { cleanup } from './helpers.js';

const { expect } = openWc;

/** The fenced blocks that a comment marks as run by this file, in the page's section on unit tests. */
async function examples(): Promise<string[]> {
  const res = await fetch('/docs/testing.md');
  if (!res.ok) throw new Error(`docs/testing.md: HTTP ${res.status}`);
  const page = await res.text();
  const start = page.indexOf('\n## Unit and component tests\n');
  if (start < 0) throw new Error('docs/testing.md has no section "Unit and component tests"');
  const end = page.indexOf('\n## ', start + 1);
  const section = page.slice(start, end < 0 ? undefined : end);
  const re = /<!-- [Rr]un by [^>]*test\/browser\/testing-readme\.test\.ts[^>]*-->\n```js\n([\s\S]*?)```/g;
  return [...section.matchAll(re)].map((m) => m[1]);
}

/**
 * The example as the body of an async function: its imports become look-ups in `modules`, and `export`
 * goes. Anything else the page might import is an error here, not a silent pass.
 */
function asBody(code: string, modules: Record<string, unknown>): string {
  return code
    .replace(/^import \{([^}]+)\} from '([^']+)';$/gm, (_, names: string, from: string) => {
      if (!Object.hasOwn(modules, from))
        throw new Error(`docs/testing.md imports ${from}, which this test does not map`);
      return `const {${names}} = modules[${JSON.stringify(from)}];`;
    })
    .replace(/^import '([^']+)';$/gm, (_, from: string) => {
      if (!Object.hasOwn(modules, from))
        throw new Error(`docs/testing.md imports ${from}, which this test does not map`);
      return '';
    })
    .replace(/^export /gm, '');
}

const AsyncFunction = (async () => {}).constructor as new (...args: string[]) => (...args: unknown[]) => Promise<void>;

/** Runs a test block of the page as a test file would: its describe/it/afterEach collected, then run in order. */
async function runTestBlock(code: string, modules: Record<string, unknown>): Promise<string[]> {
  const tests: Array<[string, () => unknown]> = [];
  const afterEachHooks: Array<() => unknown> = [];
  const prefix: string[] = [];
  const shims = {
    describe: (name: string, body: () => void) => {
      prefix.push(name);
      body();
      prefix.pop();
    },
    it: (name: string, body: () => unknown) => tests.push([[...prefix, name].join(' '), body]),
    afterEach: (hook: () => unknown) => afterEachHooks.push(hook),
  };
  await new AsyncFunction('modules', 'describe', 'it', 'afterEach', asBody(code, modules))(
    modules,
    shims.describe,
    shims.it,
    shims.afterEach,
  );
  for (const [, body] of tests) {
    try {
      await body();
    } finally {
      for (const hook of afterEachHooks) await hook();
    }
  }
  return tests.map(([name]) => name);
}

describe('docs/testing.md: the unit test examples', () => {
  after(cleanup);

  it("the component and its test run as written, and pass; so do the session provider's and the single-use sessions' tests", async function () {
    this.timeout(30_000);
    const blocks = await examples();
    // Every block, or the page has lost one: a block that is no longer run is a failure, not a pass.
    expect(blocks).to.have.length(4);
    const [component, test, provider, singleUse] = blocks;
    expect(component).to.include('// export-panel.js');
    expect(test).to.include("from 'svc-embed/testing'");
    const modules = { '@open-wc/testing': openWc, 'svc-embed/testing': testing, './export-panel.js': {} };
    expect(test).to.include("import './export-panel.js';");
    await new AsyncFunction('modules', asBody(component, modules))(modules);
    expect(customElements.get('export-panel')).to.be.a('function');

    expect(await runTestBlock(test, modules)).to.deep.equal([
      '<export-panel> shows the export and refreshes the embed',
    ]);
    // Its afterEach removed the panel, and the embed in it.
    expect(document.querySelector('export-panel, svc-embed')).to.equal(null);

    expect(provider).to.include('renewAhead');
    expect(await runTestBlock(provider, modules)).to.deep.equal([
      'the session provider renews ahead of expiry, behind the visible frame',
      'the session provider reports a failed attempt, and the visible frame stays',
    ]);
    expect(document.querySelector('svc-embed')).to.equal(null);

    expect(singleUse).to.include('singleUseSessions: true');
    expect(await runTestBlock(singleUse, modules)).to.deep.equal([
      'single-use sessions a remounted embed loads a session of its own',
      'single-use sessions without a provider, the spent session is refused',
    ]);
    expect(document.querySelector('svc-embed')).to.equal(null);
  });
});
