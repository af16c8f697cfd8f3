// What the REST bench's processes share: the credential, the listing, and the raw loop every
// measurement of the client and the CLI is compared with.
export const TOKEN = 'bench-token-0123456789';
export const LISTING = { deploymentId: 1, notificationId: 1, first: 200 };
export const TOTAL = 10_000;

/**
 * The raw loop's pages: `fetch` and `JSON.parse`, following `endCursor`; no checks at all. With
 * `abortable`, each request gets what any abortable request with a time limit needs: its own
 * AbortController, passed to fetch, and a timer, cleared once the body is read.
 */
export async function* rawPages(baseUrl, abortable = false) {
  const headers = { authorization: `Bearer ${TOKEN}`, accept: 'application/json' };
  const path = `${baseUrl}/v1/deployments/${LISTING.deploymentId}/notifications/${LISTING.notificationId}/recipients?first=${LISTING.first}`;
  let after = null;
  for (;;) {
    const url = after === null ? path : `${path}&after=${encodeURIComponent(after)}`;
    let page;
    if (abortable) {
      const ctrl = new AbortController();
      const timer = setTimeout(() => ctrl.abort(), 30_000);
      const res = await fetch(url, { headers, signal: ctrl.signal });
      page = JSON.parse(await res.text());
      clearTimeout(timer);
    } else {
      page = JSON.parse(await (await fetch(url, { headers })).text());
    }
    yield page.items;
    if (!page.pageInfo.hasNextPage) return;
    after = page.pageInfo.endCursor;
  }
}

/** The floor: the raw loop, every item as the server sent it, in one array. */
export async function rawRecipients(baseUrl) {
  const items = [];
  for await (const page of rawPages(baseUrl)) for (const item of page) items.push(item);
  return items;
}

/**
 * The floor of the API's shape: the raw loop's items, its requests abortable with a time limit, through
 * the barest async iterator (a resolved promise per item; no ordering of concurrent calls, no return()).
 */
export function rawItemIterator(baseUrl) {
  const pages = rawPages(baseUrl, true);
  let page = [];
  let at = 0;
  const refill = async () => {
    for (;;) {
      const step = await pages.next();
      if (step.done) return step;
      [page, at] = [step.value, 0];
      if (page.length) return { value: page[at++], done: false };
    }
  };
  return {
    next: () => (at < page.length ? Promise.resolve({ value: page[at++], done: false }) : refill()),
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * The columns of `svc-embed recipients --format csv`, written here and not imported: the floor stays
 * independent of the code it measures.
 */
export const CSV_COLUMNS = [
  'type',
  'userId',
  'email',
  'username',
  'embedUserId',
  'embedTenantName',
  'externalId',
  'channelId',
  'channelName',
];

/** A recipient as `svc-embed recipients --format json` prints it: the fields of its kind, in the CLI's order. */
export function cliRecord(item) {
  switch (item.type) {
    case 'USER':
      return { type: item.type, userId: item.userId, email: item.email, username: item.username };
    case 'EMBED_USER':
      return {
        type: item.type,
        embedUserId: item.embedUserId,
        embedTenantName: item.embedTenantName,
        externalId: item.externalId,
        email: item.email,
        username: item.username,
      };
    case 'SLACK':
      return { type: item.type, channelId: item.channelId, channelName: item.channelName, username: item.username };
    default:
      return item;
  }
}
