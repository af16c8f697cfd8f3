// svc-embed/ssr in Node, as a server runs it: renderEmbed()'s escaping, its refusals and options, the CSP hashes it
// publishes (computed here again from the script and the element's CSS), an import that needs no DOM, and the
// examples of docs/ssr.md: its Node server and its edge handler run as written, and its markup is renderEmbed()'s.
// test/browser/ssr.test.ts checks in the browsers that the markup is what the element renders, and that it is adopted.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { codeBlocks, read } from '../support/markdown.mjs';
import { runToEnd } from '../support/processes.mjs';

const root = fileURLToPath(new URL('../..', import.meta.url));
const built = join(root, 'dist/ssr.js');
assert.ok(existsSync(built), 'dist/ssr.js is missing: run npm run build first');
const { EARLY_SCRIPT, EARLY_SCRIPT_HASH, STYLE_HASH, renderEmbed, renderPreconnect } = await import(built);
const { ALLOW, CSS, REFERRER, SANDBOX } = await import(join(root, 'dist/frame.js'));

const TENANT = 'https://acme.example.com';
const SRC = `${TENANT}/embed/dashboard/sales-overview?session=s1`;
const SCRIPT = `<script>${EARLY_SCRIPT}</script>`;
const PRECONNECT = `<link rel="preconnect" href="${TENANT}">`;

/** A CSP source for `text`: `'sha256-<base64>'`. */
const sha256 = (text) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The parts of renderEmbed's output: what precedes the element, its opening tag, the frame tag, the style tag. */
function parts(html) {
  const at = html.indexOf('<svc-embed');
  const open = /^<svc-embed[^>]*>/.exec(html.slice(at))?.[0];
  return {
    head: html.slice(0, at),
    open,
    frame: /<iframe[^>]*>/.exec(html)?.[0] ?? null,
    style: /<style[^>]*>/.exec(html)?.[0] ?? null,
    script: /<script[^>]*>/.exec(html)?.[0] ?? null,
  };
}

describe('svc-embed/ssr: the CSP hashes', () => {
  test('EARLY_SCRIPT_HASH is the SHA-256 of EARLY_SCRIPT, and STYLE_HASH that of the CSS the element uses', () => {
    assert.equal(EARLY_SCRIPT_HASH, sha256(EARLY_SCRIPT));
    assert.equal(STYLE_HASH, sha256(CSS));
  });

  test('they hash the very text renderEmbed writes in the <script> and the <style>', () => {
    const html = renderEmbed({ src: SRC });
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)[1];
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)[1];
    assert.equal(sha256(script), EARLY_SCRIPT_HASH);
    assert.equal(sha256(style), STYLE_HASH);
    // A nonce changes the tags, not what they hold.
    const nonced = renderEmbed({ src: SRC }, { nonce: 'n0nce' });
    assert.equal(sha256(/<script nonce="n0nce">([\s\S]*?)<\/script>/.exec(nonced)[1]), EARLY_SCRIPT_HASH);
    assert.equal(sha256(/<style nonce="n0nce">([\s\S]*?)<\/style>/.exec(nonced)[1]), STYLE_HASH);
  });

  test('the element uses the same CSS: src/frame.ts is the one home of the style', () => {
    const element = readFileSync(join(root, 'src/svc-embed.ts'), 'utf8');
    assert.match(element, /static override styles = unsafeCSS\(CSS\);/);
  });
});

describe('svc-embed/ssr: renderEmbed()', () => {
  test('the whole output for a src: preconnect, the early script, the element with its frame in a shadow root', () => {
    const title = 'Embedded analytics';
    assert.equal(
      renderEmbed({ src: SRC }),
      `${PRECONNECT}${SCRIPT}<svc-embed src="${SRC}" aria-busy="true"><template shadowrootmode="open">` +
        `<iframe sandbox="${SANDBOX}" allow="${ALLOW}" referrerpolicy="${REFERRER}" title="${title}" src="${SRC}" part="frame"></iframe>` +
        `<div part="loading"><slot name="loading"></slot></div>` +
        `<div part="error" role="alert" hidden><slot name="error"><span></span></slot></div>` +
        `<style>${CSS}</style></template></svc-embed>`,
    );
  });

  test('attribute values are escaped: quotes, <, >, & in the element, the frame and the nonce', () => {
    const html = renderEmbed(
      { src: `${SRC}&x="'<>`, title: `Sales "Q3" <b>&amp; 'draft'</b>`, 'data-note': `"><script>alert(1)</script>` },
      { nonce: `a"b<c>&` },
    );
    const { open, frame, style, script } = parts(html);
    assert.equal(
      open,
      `<svc-embed src="${SRC}&#38;x=&#34;&#39;&#60;&#62;" title="Sales &#34;Q3&#34; &#60;b&#62;&#38;amp; &#39;draft&#39;&#60;/b&#62;" ` +
        `data-note="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;" aria-busy="true">`,
    );
    // The frame's URL is the resolved one (the URL parser percent-encodes the quotes and angle brackets), escaped.
    assert.match(
      frame,
      / src="https:\/\/acme\.example\.com\/embed\/dashboard\/sales-overview\?session=s1&#38;x=%22%27%3C%3E"/,
    );
    assert.match(frame, / title="Sales &#34;Q3&#34; &#60;b&#62;&#38;amp; &#39;draft&#39;&#60;\/b&#62;"/);
    assert.equal(script, '<script nonce="a&#34;b&#60;c&#62;&#38;">');
    assert.equal(style, '<style nonce="a&#34;b&#60;c&#62;&#38;">');
    // Nothing the input held opens a tag or closes an attribute: the only tags are the ones renderEmbed writes.
    const tags = [...html.replace(EARLY_SCRIPT, '').matchAll(/<\/?([a-z-]+)/g)].map((m) => m[1]);
    assert.deepEqual([...new Set(tags)].sort(), [
      'div',
      'iframe',
      'link',
      'script',
      'slot',
      'span',
      'style',
      'svc-embed',
      'template',
    ]);
    assert.equal(html.match(/<script/g).length, 1);
  });

  test('a TypeError for attributes that are not an object', () => {
    for (const input of [undefined, null, 'src', 42, true, [], ['src', SRC], () => {}]) {
      assert.throws(() => renderEmbed(input), TypeError, String(input));
      assert.throws(() => renderPreconnect(input), TypeError, String(input));
    }
  });

  test('a TypeError for an event handler (on…) or a name the HTML parser would not read as one attribute', () => {
    for (const name of [
      'onload',
      'onerror',
      'ONCLICK',
      'onFocus',
      'on',
      '',
      'a b',
      '1x',
      '-x',
      'x"y',
      "x'y",
      'x>y',
      'x=y',
      'x/y',
      '<x',
      'x\ny',
      'x\u00a0',
      // Upper case: the parser would read colorScheme as colorscheme, which the element ignores.
      'colorScheme',
      'Color-Scheme',
      'allowExport',
    ]) {
      assert.throws(() => renderEmbed({ src: SRC, [name]: 'x' }), TypeError, JSON.stringify(name));
      assert.throws(() => renderPreconnect({ src: SRC, [name]: 'x' }), TypeError, JSON.stringify(name));
    }
    // Names that start with "on" only as letters of a word are not handlers, yet the rule is the prefix: refused too.
    assert.throws(() => renderEmbed({ src: SRC, one: 'x' }), TypeError);
    // Names of lower-case letters, digits, "-", "_", ".", ":" pass.
    const { open } = parts(renderEmbed({ src: SRC, 'data-x.y:z_1': 'v', 'color-scheme': 'dark' }));
    assert.equal(open, `<svc-embed src="${SRC}" data-x.y:z_1="v" color-scheme="dark" aria-busy="true">`);
  });

  test('values: true writes the attribute empty, false, null and undefined leave it out, an object is JSON', () => {
    const { open, frame } = parts(
      renderEmbed({
        src: SRC,
        'allow-export': true,
        debug: false,
        hidden: null,
        title: undefined,
        theme: { primaryColor: '#0a7', font: 'Inter "UI"' },
        timeout: 20000,
        'data-empty': '',
      }),
    );
    assert.equal(
      open,
      `<svc-embed src="${SRC}" allow-export theme="{&#34;primaryColor&#34;:&#34;#0a7&#34;,&#34;font&#34;:&#34;Inter \\&#34;UI\\&#34;&#34;}" timeout="20000" data-empty aria-busy="true">`,
    );
    // allow-export reaches the frame's URL as the element's does; the default title stands in for the one left out.
    assert.match(
      frame,
      / src="https:\/\/acme\.example\.com\/embed\/dashboard\/sales-overview\?session=s1&#38;allowExport=true"/,
    );
    assert.match(frame, / title="Embedded analytics"/);
    // "false" as text is the element's "no" for allow-export: the URL has no allowExport.
    assert.doesNotMatch(parts(renderEmbed({ src: SRC, 'allow-export': 'false' })).frame, /allowExport/);
  });

  test('tenant-origin, public-id and session make the URL, with the session encoded', () => {
    const { frame, open } = parts(
      renderEmbed({ 'tenant-origin': TENANT, 'public-id': 'sales-overview', session: 'a b&c' }),
    );
    assert.match(frame, / src="https:\/\/acme\.example\.com\/embed\/dashboard\/sales-overview\?session=a%20b%26c"/);
    assert.equal(
      open,
      `<svc-embed tenant-origin="${TENANT}" public-id="sales-overview" session="a b&#38;c" aria-busy="true">`,
    );
  });

  test('a source the element would refuse, or none, renders the element alone: no frame, no script, no preconnect', () => {
    for (const attributes of [
      { src: 'http://acme.example.com/embed/dashboard/x?session=s' }, // insecure
      { src: 'javascript:alert(1)' },
      { src: '/embed/dashboard/x' }, // relative
      { src: 'https://user:pw@acme.example.com/embed/dashboard/x' },
      { src: 'https://' },
      { 'tenant-origin': `${TENANT}/path`, 'public-id': 'x' },
      { 'tenant-origin': TENANT }, // nothing to load yet
      {},
    ]) {
      const html = renderEmbed(attributes, { nonce: 'n' });
      assert.ok(html.startsWith('<svc-embed'), html);
      assert.doesNotMatch(html, /<iframe|<script|<link|<template|aria-busy/, html);
      assert.equal(renderPreconnect(attributes), '', JSON.stringify(attributes));
    }
    assert.equal(
      renderEmbed({ src: 'http://acme.example.com/x?session=s' }),
      '<svc-embed src="http://acme.example.com/x?session=s"></svc-embed>',
    );
    // http: is allowed on loopback, as the element allows it (the simulated tenant).
    assert.match(renderEmbed({ src: 'http://127.0.0.1:8001/embed/dashboard/x' }), /<iframe /);
  });

  test('nonce: on the script and the style, nowhere else', () => {
    const html = renderEmbed({ src: SRC }, { nonce: 'r4nd0m' });
    assert.equal(html.match(/ nonce="r4nd0m"/g).length, 2);
    assert.equal(parts(html).script, '<script nonce="r4nd0m">');
    assert.equal(parts(html).style, '<style nonce="r4nd0m">');
    assert.doesNotMatch(renderEmbed({ src: SRC }, { nonce: '' }), /nonce/);
  });

  test('early: false leaves the script out; preconnect: false leaves the link out; both: the element alone', () => {
    assert.equal(parts(renderEmbed({ src: SRC }, { early: false })).head, PRECONNECT);
    assert.equal(parts(renderEmbed({ src: SRC }, { preconnect: false })).head, SCRIPT);
    const bare = renderEmbed({ src: SRC }, { early: false, preconnect: false });
    assert.ok(bare.startsWith('<svc-embed '), bare);
    assert.match(bare, /<iframe /);
  });

  test('loading="lazy": the frame is lazy and no preconnect is written, unless asked for', () => {
    const lazy = parts(renderEmbed({ src: SRC, loading: 'lazy' }));
    assert.equal(lazy.head, SCRIPT);
    assert.match(lazy.frame, / loading="lazy"/);
    assert.equal(parts(renderEmbed({ src: SRC, loading: 'lazy' }, { preconnect: true })).head, PRECONNECT + SCRIPT);
    const eager = parts(renderEmbed({ src: SRC, loading: 'eager' }));
    assert.equal(eager.head, PRECONNECT + SCRIPT);
    assert.match(eager.frame, / loading="eager"/);
    // A value the element does not know gives the frame no loading attribute.
    assert.doesNotMatch(parts(renderEmbed({ src: SRC, loading: 'soon' })).frame, /loading=/);
  });

  test('path: the frame is held (covered until the embed has viewed it); a path the protocol refuses is not', () => {
    assert.match(parts(renderEmbed({ src: SRC, path: '/details/7' })).frame, / part="frame" held>$/);
    for (const path of ['details', 'https://evil.example/x', '/a/../b', ''])
      assert.doesNotMatch(parts(renderEmbed({ src: SRC, path })).frame, /held/, path);
  });

  test('aria-busy is written while the frame loads, unless the caller wrote one', () => {
    assert.match(parts(renderEmbed({ src: SRC })).open, / aria-busy="true">$/);
    const own = parts(renderEmbed({ src: SRC, 'aria-busy': 'false' })).open;
    assert.equal(own.match(/aria-busy/g).length, 1);
    assert.match(own, / aria-busy="false">$/);
  });

  test('renderPreconnect: the link alone, for the <head>', () => {
    assert.equal(renderPreconnect({ src: SRC }), PRECONNECT);
    assert.equal(renderPreconnect({ 'tenant-origin': TENANT, 'public-id': 'x' }), PRECONNECT);
    // The origin, never the path or the session.
    assert.doesNotMatch(renderPreconnect({ src: SRC }), /session|embed/);
  });
});

describe('svc-embed/ssr: no DOM needed', () => {
  test('dist/ssr.js runs in plain Node with no DOM globals, and loads nothing of the element or Lit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-embed-ssr-imports-'));
    try {
      const log = join(dir, 'log');
      const code = `
        const dom = ['window', 'document', 'HTMLElement', 'customElements', 'Node', 'Element', 'ShadowRoot'];
        const before = dom.filter((name) => name in globalThis);
        const m = await import('svc-embed/ssr');
        const html = m.renderEmbed({ src: 'https://acme.example.com/embed/dashboard/x?session=s' });
        console.log(JSON.stringify({ before, after: dom.filter((name) => name in globalThis), frame: html.includes('<iframe ') }));
      `;
      const r = await runToEnd(
        process.execPath,
        ['--import', join(root, 'test/support/import-log.mjs'), '--input-type=module', '-e', code],
        { cwd: root, env: { ...process.env, SVC_IMPORT_LOG: log }, timeout: 60_000 },
      );
      assert.equal(r.code, 0, r.stderr);
      assert.equal(r.stderr, '');
      assert.deepEqual(JSON.parse(r.stdout), { before: [], after: [], frame: true });
      const urls = readFileSync(log, 'utf8').trim().split('\n');
      const ours = urls.filter((u) => u.startsWith('file:') && !u.startsWith('file:///node:'));
      assert.ok(
        ours.some((u) => u.endsWith('/dist/ssr.js')),
        urls.join('\n'),
      );
      // The renderer, the URL rules and the frame's attributes, and the protocol's rules: nothing else of ours.
      const files = [...new Set(ours.map((u) => fileURLToPath(u).slice(root.length)))].sort();
      assert.deepEqual(
        files.filter((f) => !f.startsWith('packages/protocol/dist/')),
        ['dist/embed-url.js', 'dist/frame.js', 'dist/ssr.js'],
      );
      assert.deepEqual(
        urls.filter((u) => /\/node_modules\/(lit|@lit|lit-html|lit-element)\//.test(u)),
        [],
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('docs/ssr.md', () => {
  const page = read('docs/ssr.md');
  const blocks = codeBlocks(page).filter((b) => /^<!-- run by test\/node\/ssr\.test\.mjs\b/.test(b.mark));
  const [server, edge, markup] = blocks;

  /**
   * An example as a module file, imported: `svc-embed/ssr` mapped to dist/ssr.js, `./sessions.js` to a module whose
   * mintSession() answers `session-1`, `session-2`, … (a new one at each call, as the service's API does), and each
   * of `edits` ([from, to]) made exactly once.
   */
  let loads = 0;
  async function load(code, edits = []) {
    // A module of its own for each example (a data: URL is one module per text): each counts from 1.
    const sessions = `data:text/javascript,let n = 0; export const mintSession = async () => 'session-' + ++n; // ${++loads}`;
    for (const [from, to] of [
      ["from 'svc-embed/ssr';", `from ${JSON.stringify(pathToFileURL(built).href)};`],
      ["from './sessions.js';", `from ${JSON.stringify(sessions)};`],
      ...edits,
    ]) {
      assert.equal(code.split(from).length, 2, `the example has ${from} once`);
      code = code.replace(from, () => to);
    }
    const dir = mkdtempSync(join(tmpdir(), 'svc-embed-ssr-doc-'));
    try {
      const file = join(dir, 'example.mjs');
      writeFileSync(file, code);
      return await import(pathToFileURL(file).href);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The one `<svc-embed>` of a page, with what renderEmbed writes before it: from the preconnect to `</svc-embed>`. */
  const embedOf = (html) => {
    const from = html.indexOf('<link rel="preconnect"');
    const to = html.indexOf('</svc-embed>');
    assert.ok(from >= 0 && to > from, html);
    return html.slice(from, to + '</svc-embed>'.length);
  };

  const ATTRIBUTES = { title: 'Sales overview', 'color-scheme': 'dark' };
  const srcFor = (session) => `https://acme.example.com/embed/dashboard/sales-overview?session=${session}`;

  test('has the blocks this file runs: the Node server, the edge handler, the markup', () => {
    assert.deepEqual(
      blocks.map((b) => b.lang),
      ['js', 'js', 'html'],
    );
    assert.match(server.code, /^import \{ renderEmbed \} from 'svc-embed\/ssr';$/m);
  });

  test('the Node server answers each request with a new session in the frame, and Cache-Control: no-store', async () => {
    const { server: srv } = await load(server.code, [
      ['server.listen(8080);', "server.listen(0, '127.0.0.1');\nexport { server };"],
    ]);
    try {
      if (!srv.listening) await once(srv, 'listening');
      const origin = `http://127.0.0.1:${srv.address().port}`;
      for (const session of ['session-1', 'session-2']) {
        const res = await fetch(`${origin}/`);
        assert.equal(res.status, 200);
        assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
        assert.equal(res.headers.get('cache-control'), 'no-store');
        const html = await res.text();
        assert.ok(html.startsWith('<!doctype html>\n<html lang="en">'), html);
        // The page's module script is in the head; the element, with its frame, in the body's <main>.
        assert.ok(html.indexOf('<script type="module" src="/app.js">') < html.indexOf('<main>'));
        assert.equal(embedOf(html), renderEmbed({ src: srcFor(session), ...ATTRIBUTES }));
        assert.match(html, /<main><link rel="preconnect"[^]*<\/svc-embed><\/main>/);
        assert.equal(html.match(/<iframe /g).length, 1);
        assert.ok(html.includes(` src="${srcFor(session)}" part="frame"></iframe>`), html);
      }
    } finally {
      srv.close();
      srv.closeAllConnections();
    }
  });

  test('the edge handler answers a Response with the frame in its HTML, and Cache-Control: no-store', async () => {
    const handler = (await load(edge.code)).default;
    for (const session of ['session-1', 'session-2']) {
      const res = await handler.fetch(new Request('https://host.example/sales'));
      assert.ok(res instanceof Response);
      assert.equal(res.headers.get('cache-control'), 'no-store');
      assert.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
      const html = await res.text();
      assert.equal(embedOf(html), renderEmbed({ src: srcFor(session), title: 'Sales overview' }));
    }
  });

  test("the markup shown is renderEmbed()'s output for the server's attributes, one tag a line", () => {
    // Only the line breaks and indentation between tags are the page's; what is inside a tag, the script and the style
    // is as renderEmbed writes it, so that its hashes hold for a page that copies it.
    const joined = markup.code.trimEnd().replace(/>\n\s*</g, '><');
    assert.equal(joined, renderEmbed({ src: srcFor('SESSION'), ...ATTRIBUTES }));
    assert.ok(server.code.includes("title: 'Sales overview',\n    'color-scheme': 'dark',"), 'the same attributes');
  });

  test('the CSP hashes the page gives are the exported ones, and its policy lists both', () => {
    const hashes = [...new Set(page.match(/'sha256-[A-Za-z0-9+/]+=*'/g))].sort();
    assert.deepEqual(hashes, [EARLY_SCRIPT_HASH, STYLE_HASH].sort());
    const policy = codeBlocks(page).find((b) => b.lang === 'http' && b.code.startsWith('Content-Security-Policy:'));
    assert.ok(policy, 'a Content-Security-Policy block');
    assert.match(policy.code, new RegExp(`script-src [^;]*${EARLY_SCRIPT_HASH.replace(/[+/]/g, '\\$&')}`));
    assert.match(policy.code, new RegExp(`style-src [^;]*${STYLE_HASH.replace(/[+/]/g, '\\$&')}`));
    assert.match(policy.code, /frame-src https:\/\/acme\.example\.com/);
  });
});
