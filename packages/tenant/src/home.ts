// The tenant's root page: what a newcomer who opens the origin the banner printed needs on one page. The embed URLs
// to put in <svc-embed src>, the sessions the tenant accepts and how to mint one, the demo keys, and the REST and
// SCIM endpoints. It is made from the same tables the tenant serves from (dashboards, credentials, session limits),
// so it cannot list what is not there. Static HTML: no script; its stylesheet is /embed/static/home.css.
import { SURFACES } from '@svc-embed/protocol';
import { DASHBOARDS } from './datasets.js';
import { CREDENTIALS } from './seed.js';
import type { Credential } from './seed.js';
import { DEFAULT_EXCHANGE_SECONDS, MAX_EXCHANGE_SECONDS, MAX_TTL_SECONDS } from './sessions.js';

/** Text and attribute values for the page: the five characters HTML gives meaning, as character references. */
const esc = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const code = (text: string): string => `<code>${esc(text)}</code>`;

/** What a demo credential may do, in a few words. */
function may(c: Credential): string {
  if (c.kind === 'scim') return 'SCIM token: the SCIM endpoints only';
  const scope = c.deployments === null ? 'every deployment' : `deployment ${c.deployments.join(', ')} only`;
  return c.admin
    ? `API key, administrator, ${scope}: REST and session minting`
    : `API key, not an administrator: refused (403) by REST and session minting`;
}

/** The root page of the tenant at `origin` (as the browser named it), framed by `allowOrigins`. */
export function homePage(origin: string, allowOrigins: readonly string[], reusableSessions = false): string {
  const url = (path: string) => `${origin}${path}`;
  const link = (path: string) => `<a href="${esc(url(path))}">${esc(url(path))}</a>`;
  const surfaces = [
    ...Object.entries(DASHBOARDS).map(([id, d]) => ({
      what: `Dashboard \u201c${d.title}\u201d`,
      path: `/embed/dashboard/${id}?session=demo-acme`,
    })),
    { what: 'The analytics app: workbooks, dashboards, chat', path: '/embed/app?session=demo-acme' },
    { what: 'AI chat over the sales data', path: '/embed/chat?session=demo-acme' },
  ];
  const firstDashboard = Object.keys(DASHBOARDS)[0];
  const tag = `<svc-embed src="${url(`/embed/dashboard/${firstDashboard}?session=demo-acme`)}" style="height: 640px"></svc-embed>`;
  // Each row: the value (as HTML: literal values in code) and what the tenant makes of it.
  const sessions: readonly (readonly [string, string])[] = [
    ['none', 'Private mode: no embed tenant.'],
    [
      `${code('demo-acme')}, ${code('demo-globex')}`,
      'Signed for that embed tenant (demo-<tenant>, optionally followed by -<anything>).',
    ],
    [
      code('demo-acme-ttl20'),
      `Signed, and ends 20 seconds after the tenant first sees it (demo-<tenant>-ttl<N>, N from 1 to ${MAX_TTL_SECONDS}); refused for good after that.`,
    ],
    [
      'a minted session',
      reusableSessions
        ? 'Signed until the time it carries, and reusable (this tenant runs with reusable sessions): see \u201cMint a session\u201d below.'
        : 'Signed until the time it carries, and single-use: the first embed load exchanges it, and any other load is refused (SessionUsedError). See \u201cMint a session\u201d below.',
    ],
    [code('expired'), 'Refused as expired (SessionExpiredError).'],
    ['anything else, or given twice', 'Refused as invalid (InvalidSessionError).'],
  ];
  const curl = [
    `curl -H 'Authorization: Bearer demo-admin-key' -H 'Content-Type: application/json' \\`,
    `  -d '{"embedTenant": "acme", "ttlSeconds": 600}' ${url('/api/v1/embed/sessions')}`,
  ].join('\n');

  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="color-scheme" content="light dark">
  <title>Simulated svc-embed tenant</title>
  <link rel="icon" href="data:,">
  <link rel="stylesheet" href="/embed/static/home.css">
</head>
<body>
<main>
  <h1>Simulated svc-embed tenant</h1>
  <p>A stand-in for a cloud analytics tenant, on this machine: embed surfaces, their data, and the REST and SCIM
    endpoints, with made-up data and demo keys. Pages on ${allowOrigins.map(code).join(' and ')} may frame it.</p>

  <section aria-labelledby="surfaces">
    <h2 id="surfaces">Surfaces</h2>
    <p>Each is an embed URL: put it in the <code>src</code> of <code>&lt;svc-embed&gt;</code>, for example</p>
    <pre><code>${esc(tag)}</code></pre>
    <table>
      <thead><tr><th scope="col">Surface</th><th scope="col">Embed URL</th></tr></thead>
      <tbody>
${surfaces.map((s) => `        <tr><td>${esc(s.what)}</td><td>${link(s.path)}</td></tr>`).join('\n')}
      </tbody>
    </table>
    <p>The surfaces are ${SURFACES.map(code).join(', ')}. Opened here, outside a host page, they show their
      content, but nothing answers their messages.</p>
  </section>

  <section aria-labelledby="sessions">
    <h2 id="sessions">Sessions</h2>
    <p>The <code>session</code> query parameter of an embed URL says who is viewing:</p>
    <table>
      <thead><tr><th scope="col"><code>session</code></th><th scope="col">Result</th></tr></thead>
      <tbody>
${sessions.map(([value, result]) => `        <tr><td>${value}</td><td>${esc(result)}</td></tr>`).join('\n')}
      </tbody>
    </table>
    <h3 id="mint">Mint a session</h3>
    <p>As a customer\u2019s backend would, server to server with an administrator key:
      <code>POST /api/v1/embed/sessions</code> with <code>{"embedTenant": "acme", "ttlSeconds": 600}</code>
      (<code>ttlSeconds</code> from 1 to ${MAX_TTL_SECONDS}). It answers <code>201</code> with
      <code>session</code>, <code>embedTenant</code> and <code>expiresAt</code>; only this run of the tenant
      accepts the session. An embed must load it within <code>exchangeSeconds</code> of minting (optional, 1 to
      ${MAX_EXCHANGE_SECONDS}, default ${DEFAULT_EXCHANGE_SECONDS}), or it lapses.${
        reusableSessions ? '' : ' Mint one session per embed: each is single-use.'
      }</p>
    <pre><code>${esc(curl)}</code></pre>
  </section>

  <section aria-labelledby="keys">
    <h2 id="keys">Demo keys</h2>
    <p>Sent as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
    <table>
      <thead><tr><th scope="col">Key</th><th scope="col">What it may do</th></tr></thead>
      <tbody>
${[...CREDENTIALS].map(([key, c]) => `        <tr><td>${code(key)}</td><td>${esc(may(c))}</td></tr>`).join('\n')}
      </tbody>
    </table>
  </section>

  <section aria-labelledby="endpoints">
    <h2 id="endpoints">REST and SCIM</h2>
    <ul>
      <li>Recipients of a notification: ${code(`GET ${url('/api/v1/deployments/1/notifications/1/recipients')}`)}</li>
      <li>SCIM users: ${code(`GET ${url('/api/scim/v2/Users')}`)}</li>
      <li>Sessions: ${code(`POST ${url('/api/v1/embed/sessions')}`)}</li>
    </ul>
    <p>The base URL of the <code>svc-embed</code> command and of the REST client ends in <code>/api</code>:</p>
    <pre><code>${esc(`SVC_BASE_URL=${url('/api')}`)}</code></pre>
  </section>
</main>
</body>
</html>
`;
}
