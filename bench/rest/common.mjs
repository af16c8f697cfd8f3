// What the REST bench's processes share: the credential, the listing, and the raw loop every
// measurement of the client and the CLI is compared with.
export const TOKEN = 'bench-token-0123456789';
export const LISTING = { deploymentId: 1, notificationId: 1, first: 200 };
export const TOTAL = 10_000;

/**
 * The floor: `fetch` and `JSON.parse`, page after page, following `endCursor`; no checks at all.
 * Resolves with every item as the server sent it.
 */
export async function rawRecipients(baseUrl) {
  const items = [];
  const headers = { authorization: `Bearer ${TOKEN}`, accept: 'application/json' };
  const path = `${baseUrl}/v1/deployments/${LISTING.deploymentId}/notifications/${LISTING.notificationId}/recipients?first=${LISTING.first}`;
  let after = null;
  for (;;) {
    const res = await fetch(after === null ? path : `${path}&after=${encodeURIComponent(after)}`, { headers });
    const page = JSON.parse(await res.text());
    for (const item of page.items) items.push(item);
    if (!page.pageInfo.hasNextPage) return items;
    after = page.pageInfo.endCursor;
  }
}

/** A recipient as `svc-embed recipients --format json` prints it: the fields of its kind, in the CLI's order. */
export function cliRecord(item) {
  switch (item.type) {
    case 'USER': return { type: item.type, userId: item.userId, email: item.email, username: item.username };
    case 'EMBED_USER': return {
      type: item.type, embedUserId: item.embedUserId, embedTenantName: item.embedTenantName, externalId: item.externalId,
      email: item.email, username: item.username,
    };
    case 'SLACK': return { type: item.type, channelId: item.channelId, channelName: item.channelName, username: item.username };
    default: return item;
  }
}
