import { isLoopbackHost, publicIdProblem, sessionProblem } from '@svc-embed/protocol';

/** Why a configuration was refused: the `reason` of `svc-config-error`. Codes are API; messages are not. */
export type ConfigErrorReason =
  | 'relative-url'
  | 'invalid-url'
  | 'unsupported-protocol'
  | 'insecure-protocol'
  | 'credentials-in-url'
  | 'opaque-origin'
  | 'invalid-tenant-origin'
  | 'invalid-public-id'
  | 'invalid-session';

/** The inputs of the embed URL, as the element's attributes give them. */
export interface EmbedUrlInput {
  src?: string | null;
  tenantOrigin?: string | null;
  publicId?: string | null;
  session?: string | null;
  allowExport?: boolean;
}

export type EmbedUrlResult = { url: string; origin: string } | { reason: ConfigErrorReason; message: string };

const refuse = (reason: ConfigErrorReason, message: string) => ({ reason, message: `<svc-embed>: ${message}` });

/** The session the host's input names: `src`'s `session` parameter, or `session`; null when there is none. */
export function hostSession(input: EmbedUrlInput): string | null {
  if (!input.src) return input.session || null;
  try {
    return new URL(input.src).searchParams.get('session');
  } catch {
    return null;
  }
}

/**
 * Resolves the embed URL and the tenant origin every check uses, or says why the configuration is
 * refused. Undefined while there is nothing to load yet (no `src`, no `tenant-origin` + `public-id`).
 * `renewed`, a session the element renewed, takes the place of every `session` the host's input gives.
 * Messages name the rule, never the URL: it may hold a session id.
 */
export function resolveEmbedUrl(input: EmbedUrlInput, renewed?: string): EmbedUrlResult | undefined {
  let src = input.src;
  if (!src) {
    const { tenantOrigin, publicId } = input;
    const session = renewed ?? input.session;
    if (!tenantOrigin || !publicId) return undefined;
    let origin: string;
    try {
      origin = new URL(tenantOrigin).origin;
    } catch {
      origin = '';
    }
    if (origin === 'null' || origin !== tenantOrigin.replace(/\/$/, '')) {
      return refuse('invalid-tenant-origin', 'tenant-origin must be a bare origin such as https://acme.example.com');
    }
    const idProblem = publicIdProblem(publicId);
    if (idProblem) return refuse('invalid-public-id', `public-id ${idProblem}`);
    const problem = session && sessionProblem(session);
    if (problem) return refuse('invalid-session', `session ${problem}`);
    src = `${origin}/embed/dashboard/${publicId}${session ? `?session=${encodeURIComponent(session)}` : ''}`;
  }
  let url: URL;
  try {
    url = new URL(src);
  } catch {
    return /^[a-z][a-z\d+.-]*:/i.test(src)
      ? refuse('invalid-url', 'src is not a valid URL')
      : refuse('relative-url', 'src must be an absolute https: URL');
  }
  const { protocol, hostname } = url;
  if (protocol === 'http:' && !isLoopbackHost(hostname)) {
    return refuse('insecure-protocol', 'src must use https: (http: only on localhost, 127.0.0.0/8, [::1])');
  }
  if (protocol !== 'https:' && protocol !== 'http:') {
    return refuse('unsupported-protocol', 'src must be an https: URL, not javascript:, data:, blob: or another scheme');
  }
  if (url.username || url.password) return refuse('credentials-in-url', 'src must not hold a user name or password');
  if (url.origin === 'null') return refuse('opaque-origin', 'src has an opaque origin');
  if (renewed) url.searchParams.set('session', renewed);
  if (input.allowExport) url.searchParams.set('allowExport', 'true');
  return { url: url.href, origin: url.origin };
}
