// The iframe <svc-embed> makes, attribute for attribute (src/svc-embed.ts): what the bare and the Lit floors
// of the mount/unmount suite insert, so that they pay for the same frame as the element.
export function elementLikeFrame(doc, src) {
  const frame = doc.createElement('iframe');
  frame.setAttribute('part', 'frame');
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms allow-popups allow-downloads');
  frame.allow = 'fullscreen; clipboard-write';
  frame.referrerPolicy = 'strict-origin';
  frame.title = 'Embedded analytics';
  frame.src = src;
  return frame;
}
