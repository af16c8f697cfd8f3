// Compiled by `tsc --noEmit` in test/node/package.test.mjs: the contract snippet of the issue that
// introduced the REST client (`svc-embed/api` then, `@svc-embed/api` now) type-checks as written, under `strict`, with no casts or `!`.
import { SvcClient, SvcApiError } from '@svc-embed/api';
import type { NotificationRecipient, ScimListResponse, SvcClientOptions } from '@svc-embed/api';

declare const cursor: string | null | undefined;

export async function contract(): Promise<void> {
  const client = new SvcClient({ baseUrl: 'https://acme.example.com/api', token: process.env.SVC_API_TOKEN });
  const page = await client.listRecipients({ deploymentId: 1, notificationId: 10, first: 50, after: cursor }); // one page: { items, pageInfo }
  for await (const r of client.recipients({ deploymentId: 1, notificationId: 10, first: 200 })) {
    /* every page */ void r;
  }
  const list = await client.scim.listUsers({ startIndex: 1, count: 100 }); // the SCIM ListResponse
  for await (const u of client.scim.users({ count: 100 })) {
    /* every user */ void u;
  }

  const items: readonly NotificationRecipient[] = page.items;
  const next: string | null | undefined = page.pageInfo?.endCursor;
  const users: ScimListResponse = list;
  void [items, next, users];
}

export async function options(): Promise<void> {
  const ctrl = new AbortController();
  const opts: SvcClientOptions = {
    baseUrl: new URL('https://acme.example.com/api'),
    token: 'sk_live_0123456789',
    scimAuthScheme: 'Api-Key',
    fetch: globalThis.fetch,
    timeoutMs: 5000,
    maxRetries: 3,
    onRetry: (info) => void info.delayMs,
  };
  const client = new SvcClient(opts);
  try {
    for await (const r of client.recipients({
      deploymentId: 1,
      notificationId: 10,
      maxPages: 50,
      signal: ctrl.signal,
    })) {
      switch (r.type) {
        case 'USER':
          void r.userId;
          break;
        case 'EMBED_USER':
          void r.embedTenantName;
          break;
        case 'SLACK':
          void r.channelName;
          break;
        case 'UNKNOWN':
          void [r.rawType, r.raw];
          break;
      }
    }
    for await (const u of client.scim.users({ count: 100, startIndex: 1, maxPages: 20, onPage: (p) => void p.total }))
      void u.userName;
  } catch (err) {
    if (err instanceof SvcApiError) void [err.status, err.code, err.requestId, err.field];
  }
  // @ts-expect-error the SCIM scheme is 'Bearer' or 'Api-Key'
  void new SvcClient({ baseUrl: 'https://acme.example.com/api', token: 'sk_live_0123456789', scimAuthScheme: 'Basic' });
  // @ts-expect-error the token option is required (undefined is accepted only when written out)
  void new SvcClient({ baseUrl: 'https://acme.example.com/api' });
}
