// The embed half of the message protocol, on the shared protocol module (served at /embed/protocol/):
// events are built and checked with buildEvent, actions checked with validateAction. Only the parent
// window, on an allowed host origin, is listened to and posted to, and never with a '*' target.
import {
  SOURCE,
  allowedOrigins,
  buildEvent,
  isPlainObject,
  postTargets,
  validateAction,
} from '/embed/protocol/index.js';

/**
 * The parent's origin when the browser tells it: ancestorOrigins (Chromium, WebKit), else the referrer
 * (Firefox; the host's <svc-embed> sends its origin only, with referrerpolicy="strict-origin").
 */
function parentOrigin() {
  let origin;
  try {
    if (location.ancestorOrigins?.length) origin = location.ancestorOrigins[0];
    else if (document.referrer) origin = new URL(document.referrer).origin;
  } catch {
    // An unparsable referrer says nothing.
  }
  // A no-referrer policy on the iframe masks the ancestor as "null": that is "unknown", not an origin.
  return origin && origin !== 'null' ? origin : undefined;
}

/**
 * @param {{surface: string, allowOrigins: string[], onAction: (msg) => void, onLog: (entry) => void}} options
 */
export function createBridge({ surface, allowOrigins, onAction, onLog }) {
  const framed = window.parent !== window;
  const allowed = allowedOrigins(allowOrigins);
  const targets = framed ? postTargets(parentOrigin(), allowed) : [];
  let closed = false;

  function emit(type, payload) {
    // After a fatal error the embed is dead: nothing more reaches the host.
    if (closed) return undefined;
    const envelope = buildEvent(type, surface, payload);
    for (const origin of targets) window.parent.postMessage(envelope, origin);
    onLog({ dir: 'out', type, payload: envelope.payload });
    return envelope;
  }

  window.addEventListener('message', (event) => {
    // Only our parent can drive us; traffic from other windows (our own children, siblings) is not ours.
    if (!framed || event.source !== window.parent) return;
    const data = event.data;
    const ours = isPlainObject(data) && Object.hasOwn(data, 'source') && data.source === SOURCE;
    if (!allowed.matches(event.origin)) {
      // Other traffic from a foreign origin is ignored silently; protocol look-alikes are worth showing.
      if (ours) onLog({ dir: 'rejected', reason: 'origin: not an allowed host origin' });
      return;
    }
    if (!ours) return;
    if (closed) {
      onLog({
        dir: 'rejected',
        type: typeof data.type === 'string' ? data.type : undefined,
        reason: 'the embed has stopped',
      });
      return;
    }
    const result = validateAction(data);
    if (!result.ok) {
      onLog({ dir: 'rejected', type: result.type, reason: result.reason });
      return;
    }
    onLog({ dir: 'in', type: result.message.type, payload: result.message.payload });
    try {
      onAction(result.message);
    } catch (error) {
      // A valid envelope can still carry something this embed cannot apply (say, a theme color that is not a color).
      onLog({
        dir: 'rejected',
        type: result.message.type,
        reason: error instanceof Error ? error.message : 'could not apply',
      });
    }
  });

  return {
    emit,
    framed,
    targets,
    close() {
      closed = true;
    },
  };
}
