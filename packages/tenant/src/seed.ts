// Deterministic seed data for the simulated tenant. Everything is generated from a fixed PRNG seed,
// so every run (and every test) sees the same recipients, users and orders.

/** A small, fast PRNG; a fixed seed keeps the demo data stable between runs. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const FIRST = [
  'Ada',
  'Grace',
  'Alan',
  'Katherine',
  'Linus',
  'Margaret',
  'Dennis',
  'Barbara',
  'Ken',
  'Frances',
  'Edsger',
  'Radia',
  'Tim',
  'Hedy',
  'John',
  'Sophie',
  'Niklaus',
  'Joan',
  'Donald',
  'Shafi',
];
const LAST = [
  'Lovelace',
  'Hopper',
  'Turing',
  'Johnson',
  'Torvalds',
  'Hamilton',
  'Ritchie',
  'Liskov',
  'Thompson',
  'Allen',
  'Dijkstra',
  'Perlman',
  'Berners-Lee',
  'Lamarr',
  'McCarthy',
  'Wilson',
  'Wirth',
  'Clarke',
  'Knuth',
  'Goldwasser',
];
const EMBED_TENANTS = ['acme', 'globex', 'initech'];
const CHANNELS = ['sales-alerts', 'exec-weekly', 'ops-oncall', 'finance', 'growth', 'support-escalations'];

const pick = <T>(rand: () => number, list: readonly T[]): T => list[Math.floor(rand() * list.length)];
const hex = (rand: () => number, n: number): string =>
  Array.from({ length: n }, () => Math.floor(rand() * 16).toString(16)).join('');

/** A deployment and its notifications, each with the number of recipients it has. */
export interface Deployment {
  readonly id: number;
  readonly name: string;
  readonly notifications: readonly { readonly id: number; readonly recipients: number }[];
}

/** The deployments the tenant knows; notification ids are unique across deployments. */
export const DEPLOYMENTS: readonly Deployment[] = [
  {
    id: 1,
    name: 'Production',
    notifications: [
      { id: 1, recipients: 250 },
      { id: 2, recipients: 7 },
      { id: 3, recipients: 0 },
    ],
  },
  {
    id: 2,
    name: 'Staging',
    notifications: [
      { id: 20, recipients: 12 },
      { id: 21, recipients: 3 },
    ],
  },
];

const BASE_TIME = Date.UTC(2026, 0, 5, 9, 0, 0);

/** One recipient as the REST API sends it: the fields that do not apply to its type are null. */
export interface RecipientItem {
  readonly type: 'USER' | 'EMBED_USER' | 'SLACK';
  readonly userId: number | null;
  readonly email: string | null;
  readonly username: string | null;
  readonly embedUserId: number | null;
  readonly embedTenantName: string | null;
  readonly externalId: string | null;
  readonly channelId: string | null;
  readonly channelName: string | null;
}

/** A recipient with its paging key (`<notificationId>-<seq>`) and its internal creation time. */
export interface RecipientRow {
  readonly key: string;
  readonly seq: number;
  readonly createdAt: number;
  readonly item: RecipientItem;
}

/**
 * The recipients of one notification, in creation order (oldest first). `seq` is 1-based, so the
 * newest recipient of notification 1 is seq 250. `createdAt` is internal and never sent on the wire.
 */
function makeRecipients(notificationId: number, count: number): RecipientRow[] {
  const rand = prng(0x5eed + notificationId * 7919);
  const out: RecipientRow[] = [];
  for (let seq = 1; seq <= count; seq++) {
    const kind = (['USER', 'EMBED_USER', 'SLACK'] as const)[seq % 3];
    const first = pick(rand, FIRST);
    const last = pick(rand, LAST);
    const handle = `${first}.${last}`.toLowerCase().replace(/[^a-z.]/g, '');
    const blank = {
      userId: null,
      email: null,
      username: null,
      embedUserId: null,
      embedTenantName: null,
      externalId: null,
      channelId: null,
      channelName: null,
    };
    let item: RecipientItem;
    if (kind === 'USER') {
      item = {
        type: kind,
        ...blank,
        userId: 1000 + notificationId * 1000 + seq,
        email: `${handle}${seq}@example.com`,
        username: `${handle}${seq}`,
      };
    } else if (kind === 'EMBED_USER') {
      const tenant = pick(rand, EMBED_TENANTS);
      item = {
        type: kind,
        ...blank,
        embedUserId: 50000 + notificationId * 1000 + seq,
        embedTenantName: tenant,
        externalId: `${tenant}-${hex(rand, 10)}`,
        email: `${handle}${seq}@${tenant}.example`,
        username: `${handle}${seq}`,
      };
    } else {
      item = {
        type: kind,
        ...blank,
        channelId: `C${hex(rand, 10).toUpperCase()}`,
        channelName: `${pick(rand, CHANNELS)}-${seq}`,
      };
    }
    out.push({ key: `${notificationId}-${seq}`, seq, createdAt: BASE_TIME + seq * 37 * 60_000, item });
  }
  return out;
}

const recipientTable = new Map<number, { readonly deploymentId: number; readonly rows: readonly RecipientRow[] }>();
for (const d of DEPLOYMENTS) {
  for (const n of d.notifications)
    recipientTable.set(n.id, { deploymentId: d.id, rows: makeRecipients(n.id, n.recipients) });
}

/** The notification's recipients newest first, or undefined when the notification is not in this deployment. */
export function recipientsOf(deploymentId: number, notificationId: number): RecipientRow[] | undefined {
  const entry = recipientTable.get(notificationId);
  if (!entry || entry.deploymentId !== deploymentId) return undefined;
  return [...entry.rows].sort((a, b) => b.createdAt - a.createdAt || b.seq - a.seq);
}

/** A SCIM user as the tenant stores it; `created` is also its last modification time. */
export interface ScimUserRecord {
  readonly id: string;
  readonly userName: string;
  readonly externalId: string;
  readonly name: { readonly givenName: string; readonly familyName: string; readonly formatted: string };
  readonly displayName: string;
  readonly active: boolean;
  readonly created: string;
}

/** SCIM users: 137 of them, so that pages of 50 or 100 end in a partial page. */
export const SCIM_USERS: readonly ScimUserRecord[] = (() => {
  const rand = prng(0xc0ffee);
  const users: ScimUserRecord[] = [];
  for (let i = 1; i <= 137; i++) {
    const givenName = pick(rand, FIRST);
    const familyName = pick(rand, LAST);
    const id = `${hex(rand, 8)}-${hex(rand, 4)}-4${hex(rand, 3)}-a${hex(rand, 3)}-${hex(rand, 12)}`;
    const created = new Date(BASE_TIME - (200 - i) * 86_400_000).toISOString();
    users.push({
      id,
      userName: `${givenName}.${familyName}${i}@example.com`.toLowerCase(),
      externalId: `idp-${String(i).padStart(5, '0')}`,
      name: { givenName, familyName, formatted: `${givenName} ${familyName}` },
      displayName: `${givenName} ${familyName}`,
      active: i % 11 !== 0,
      created,
    });
  }
  return users;
})();

/** A credential: an API key (an administrator's or not, for some deployments or all) or a SCIM token. */
export interface Credential {
  readonly kind: 'api-key' | 'scim';
  readonly admin: boolean;
  /** The deployments it may read, or null for every deployment. */
  readonly deployments: readonly number[] | null;
}

/** The demo credentials (documented in docs/tenant.md, "Demo keys"). `deployments: null` means every deployment. */
export const CREDENTIALS: ReadonlyMap<string, Credential> = new Map<string, Credential>([
  ['demo-admin-key', { kind: 'api-key', admin: true, deployments: null }],
  ['demo-scoped-key', { kind: 'api-key', admin: true, deployments: [1] }],
  ['demo-viewer-key', { kind: 'api-key', admin: false, deployments: null }],
  ['demo-scim-token', { kind: 'scim', admin: false, deployments: null }],
]);
