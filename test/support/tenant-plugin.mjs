// A web-test-runner plugin that starts two simulated tenants (@svc-embed/tenant, as built) on loopback ports, allowing
// the test page's origin, for the tests that must run against the real embed rather than the test peer (a pop-out's
// actions, in test/browser/lifecycle-review.test.ts; renewal ahead of expiry, in test/browser/renewal-ahead.test.ts).
// Two, so that two tenant origins can be told apart.
// `executeServerCommand('tenant-origins')` gives their origins; `executeServerCommand('tenant-session', { ttl })`
// mints a session of the first that ends `ttl` seconds from now, through its session API, as a customer's backend
// would. The tenants run in their default mode, as strict as the service: a minted session is single-use (a second
// frame, or a reload, that loads it is refused with SessionUsedError), so each frame needs a session of its own.
import { startTenant } from '@svc-embed/tenant';

export function tenantPlugin() {
  let tenants = [];
  return {
    name: 'svc-embed-tenant',
    async serverStart({ config }) {
      const allowOrigins = [`http://${config.hostname}:${config.port}`];
      // Never reusableSessions here: a test that loads one session twice must fail, as it would against the service.
      tenants = await Promise.all([startTenant({ port: 0, allowOrigins }), startTenant({ port: 0, allowOrigins })]);
    },
    async serverStop() {
      await Promise.all(tenants.map((t) => t.close()));
    },
    async executeCommand({ command, payload }) {
      if (command === 'tenant-origins') return tenants.map((t) => t.origin);
      if (command !== 'tenant-session') return undefined;
      const res = await fetch(`${tenants[0].origin}/api/v1/embed/sessions`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-admin-key', 'content-type': 'application/json' },
        body: JSON.stringify({ embedTenant: payload?.tenant ?? 'acme', ttlSeconds: payload?.ttl ?? 20 }),
      });
      if (res.status !== 201) throw new Error(`the tenant refused a session: HTTP ${res.status}`);
      return res.json();
    },
  };
}
