// The embed's calls to its tenant's JSON API. An expired session is fatal for the whole embed, not
// one widget's or one question's problem, so it is reported to one handler before the caller sees it.

let onSessionExpired = () => {};
let token;

/**
 * Sets the token that the bootstrap's exchange of a minted session gave. The session is single-use: this document's
 * later calls present the token instead, which lives only in this document, so no other frame and no reload has it.
 */
export function useToken(value) {
  token = value;
}

/** Sets what happens when any API call says the session has expired. */
export function whenSessionExpires(handler) {
  onSessionExpired = handler;
}

/** GETs `url` and returns its JSON body; a failure throws an Error named as the tenant named it. */
export async function getJson(url, fallbackName = 'Error') {
  const res = await fetch(url, token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } });
  const body = await res.json().catch(() => ({}));
  if (res.ok) return body;
  const error = new Error(body?.error?.message ?? `HTTP ${res.status}`);
  error.name = body?.error?.name ?? fallbackName;
  if (error.name === 'SessionExpiredError') onSessionExpired(error);
  throw error;
}
