// What @svc-embed/api (and so the CLI's --format json) yields for a seeded tenant recipient: the kind's own fields.
export function expectedRecipient(item) {
  switch (item.type) {
    case 'USER':
      return { type: 'USER', userId: item.userId, email: item.email, username: item.username };
    case 'EMBED_USER':
      return {
        type: 'EMBED_USER',
        embedUserId: item.embedUserId,
        embedTenantName: item.embedTenantName,
        externalId: item.externalId,
        email: item.email,
        username: item.username,
      };
    default:
      return { type: 'SLACK', channelId: item.channelId, channelName: item.channelName, username: item.username };
  }
}
