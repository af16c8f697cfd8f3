// The embed half of the message protocol, on the shared protocol module (served from dist/protocol):
// events are built and checked with buildEvent, actions checked with validateAction. Only the parent
// window, on an allowed host origin, is listened to and posted to, and never with a '*' target.
import { SOURCE, buildEvent, isPlainObject, validateAction } from '/dist/protocol/index.js';

/**
 * The parent's origin when the browser tells it (ancestorOrigins in Chromium and WebKit, the referrer
 * elsewhere), else undefined.
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
 * @param {{surface: string, hostOrigins: string[], onAction: (msg) => void, onLog: (entry) => void}} options
 */
export function createBridge({ surface, hostOrigins, onAction, onLog }) {
  const framed = window.parent !== window;
  const known = parentOrigin();
  // When the parent's origin is known, post to it alone (if it is allowed at all). When it is not,
  // target each allowed origin: the browser delivers only to the one the parent really has.
  const targets = !framed ? [] : known ? (hostOrigins.includes(known) ? [known] : []) : hostOrigins;

  function emit(type, payload) {
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
    if (!hostOrigins.includes(event.origin)) {
      // Other traffic from a foreign origin is ignored silently; protocol look-alikes are worth showing.
      if (ours) onLog({ dir: 'rejected', reason: 'origin: not an allowed host origin' });
      return;
    }
    if (!ours) return;
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
      onLog({ dir: 'rejected', type: result.message.type, reason: error instanceof Error ? error.message : 'could not apply' });
    }
  });

  return { emit, framed, targets };
}
