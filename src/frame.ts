// What every embed frame gets, whoever makes it: the element (session.ts) or the server's markup (ssr.ts). One place,
// so that a frame rendered on the server is the frame the element would make.

// Each token has a reason. The embed runs scripts and keeps its own origin (its session and API calls), submits
// its forms, opens links in new tabs and downloads exports. Not allow-top-navigation: the embed must never
// navigate the host page away. Not allow-popups-to-escape-sandbox: an unsandboxed popup could navigate its
// opener's top (Firefox lets it), so popups keep the sandbox.
export const SANDBOX = 'allow-scripts allow-same-origin allow-forms allow-popups allow-downloads';
export const ALLOW = 'fullscreen; clipboard-write';
// The tenant learns the host's origin (it checks it), never the page's URL, whatever the page's own policy.
export const REFERRER = 'strict-origin';
export const TITLE = 'Embedded analytics';
/** The attributes above, as the frame has them: the element sets them, and adopts a server's frame that has them. */
export const FRAME: ReadonlyArray<[string, string]> = [
  ['sandbox', SANDBOX],
  ['allow', ALLOW],
  ['referrerpolicy', REFERRER],
];

// Kept terse: these bytes ship in every bundle. A renewal's frame (inert) is rendered under the visible one, at its
// size, within the element's own stacking context: a frame that is not rendered is not painted.
export const CSS = `:host{display:block;position:relative;isolation:isolate;height:600px}:host([hidden]),[hidden]{display:none!important}
iframe{display:block;box-sizing:border-box;width:100%;height:100%;border:0}
[part=loading],[part=error]{position:absolute;inset:0;display:flex;align-items:center;justify-content:center}
[part=error]{padding:1em;text-align:center;background:#f4f4f5;color:#3f3f46}
[held]~[part=loading]{background:Canvas}
[inert]{position:absolute;inset:0;z-index:-1}`;

/**
 * Where the early-message script keeps what the frames of server-rendered elements said before the element's code
 * ran: a global symbol, which the element reads once, at adoption.
 */
export const EARLY = 'svc-embed.early';
