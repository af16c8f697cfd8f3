/**
 * Requests through the user's proxy (docs/api.md, "Proxies and certificates"), on undici, the library that Node's own
 * `fetch` is built on: its `EnvHttpProxyAgent` picks the proxy by the target's scheme, honours `NO_PROXY`, and
 * reaches an `https:` target through a `CONNECT` tunnel, so the proxy sees the host and port, never the token. undici
 * is loaded at the first request, and only then: a client without a proxy never loads it.
 */

/** The variables a proxy is read from, in undici's order: the lower-case one first. */
export const PROXY_VARS = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const;

/** What `EnvHttpProxyAgent` is given: the environment's values, read once, so that it reads no variable itself. */
export interface ProxySettings {
  httpProxy: string | undefined;
  httpsProxy: string | undefined;
  noProxy: string;
}

type Env = Readonly<Record<string, string | undefined>>;

const first = (env: Env, a: string, b: string): string | undefined => {
  const value = env[a] ?? env[b];
  return value === '' ? undefined : value;
};

/** The proxy settings of `env`, or undefined when it names no proxy. */
export function proxySettings(env: Env): ProxySettings | undefined {
  const httpProxy = first(env, 'http_proxy', 'HTTP_PROXY');
  const httpsProxy = first(env, 'https_proxy', 'HTTPS_PROXY');
  if (httpProxy === undefined && httpsProxy === undefined) return undefined;
  return { httpProxy, httpsProxy, noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/** A failure no retry can mend: undici could not be loaded. */
export class ProxyUnavailable extends Error {
  readonly code = 'ERR_SVC_PROXY_UNAVAILABLE';
  constructor(cause: unknown) {
    super(
      `a proxy is set, but undici (a dependency of @svc-embed/api) could not be loaded: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
    this.name = 'ProxyUnavailable';
  }
}

interface Undici {
  fetch: (input: string, init: object) => Promise<unknown>;
  dispatcher: object;
}

/**
 * A `fetch` that goes through the proxy of `settings`: undici's own `fetch` with its `EnvHttpProxyAgent`. Not the
 * runtime's global `fetch` with that agent as its dispatcher: Node bundles an undici of its own version, and the two
 * need not agree on the dispatcher's interface.
 */
export function proxiedFetch(settings: ProxySettings): typeof globalThis.fetch {
  let loaded: Promise<Undici> | undefined;
  const load = async (): Promise<Undici> => {
    try {
      const undici = await import('undici');
      return {
        fetch: undici.fetch as unknown as Undici['fetch'],
        dispatcher: new undici.EnvHttpProxyAgent(settings),
      };
    } catch (err) {
      throw new ProxyUnavailable(err);
    }
  };
  return (async (input: string, init: RequestInit) => {
    loaded ??= load();
    const { fetch, dispatcher } = await loaded;
    return fetch(input, { ...init, dispatcher });
  }) as typeof globalThis.fetch;
}
