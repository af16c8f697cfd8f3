// The renewal gap: how long, during one session renewal, the viewer has no ready dashboard on view. Against the
// simulated tenant, whose sessions are minted by the harness (window.mint, exposed over puppeteer), each sampled every
// animation frame:
//   ahead    the session's expiry is known (sessionExpiresAt, and the provider's { session, expiresAt }): the element
//            renews ahead of it, behind the visible frame
//   expiry   it is not: the embed shows its "session expired" page and reports the fatal error, then the element
//            renews (a loading overlay, a new frame)
// A sample has a ready dashboard on view when the element is `ready`, its visible frame has said ready, and that
// frame has not reported a fatal error.

/** Resolves with the gap in ms of one renewal of `mode` on `tenant`'s Sales overview. */
async function renewalGap(mode, tenant) {
  const first = await window.mint(mode === 'ahead' ? 8 : 3);
  const el = document.createElement('svc-embed');
  const saidReady = new Set();
  const expired = new Set();
  const onMessage = (e) => {
    if (e.data?.type === 'svc:event:ready') saidReady.add(e.source);
  };
  addEventListener('message', onMessage);
  el.sessionProvider = async () => {
    const next = await window.mint(60);
    return mode === 'ahead' ? next : next.session;
  };
  if (mode === 'ahead') el.sessionExpiresAt = first.expiresAt;
  el.addEventListener('svc-error', (e) => {
    if (e.detail.payload.fatal) expired.add(el.shadowRoot.querySelector('iframe')?.contentWindow);
  });
  el.src = `${tenant}/embed/dashboard/sales-overview?session=${encodeURIComponent(first.session)}`;
  document.body.append(el);
  await el.whenReady();
  const firstWin = el.shadowRoot.querySelector('iframe').contentWindow;
  const onView = () => {
    const win = el.shadowRoot.querySelector('iframe')?.contentWindow;
    return el.status === 'ready' && saidReady.has(win) && !expired.has(win) ? win : undefined;
  };
  try {
    return await new Promise((resolve, reject) => {
      let gap = 0;
      let last = performance.now();
      let missing = false;
      const deadline = last + 60_000;
      const sample = (now) => {
        if (missing) gap += now - last;
        last = now;
        const win = onView();
        missing = !win;
        if (win && win !== firstWin) return resolve(gap);
        if (now > deadline) return reject(new Error(`${mode}: no renewed session within 60 s`));
        requestAnimationFrame(sample);
      };
      requestAnimationFrame(sample);
    });
  } finally {
    el.remove();
    removeEventListener('message', onMessage);
  }
}

window.bench = { renewalGap };
