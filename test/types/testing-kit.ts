// Compiled by `tsc --noEmit` in test/node/package.test.mjs (and, from the installed tarball, in
// test/node/cli-tenant-packaged.test.mjs): the testing helpers are typed by event type.
import type { DownloadFormat, SvcActionDetail, SvcEmbedElement } from '../../src/index.js';
import { emitEvent, emitReady, mountTestEmbed, recordActions } from '../../src/testing/index.js';
import type { ActionRecord } from '../../src/testing/index.js';

export async function typed(el: SvcEmbedElement): Promise<void> {
  const event = await emitEvent(el, 'svc:event:download', { format: 'csv', target: 'widget', rowCount: 3 });
  const format: DownloadFormat = event.detail.payload.format;
  const wire: 'svc:event:download' = event.detail.type;
  void [format, wire];
  // @ts-expect-error a download payload needs its target
  void emitEvent(el, 'svc:event:download', { format: 'csv' });
  // @ts-expect-error docx is not a download format
  void emitEvent(el, 'svc:event:download', { format: 'docx', target: 'widget' });
  // @ts-expect-error not a surface
  void emitEvent(el, 'svc:event:navigate', { path: '/' }, { surface: 'admin' });

  const ready = await emitReady(el, { mode: 'private' });
  const mode: 'signed' | 'private' = ready.detail.payload.mode;
  void mode;
  // @ts-expect-error not an authentication mode
  void emitReady(el, { mode: 'public' });

  const actions: ActionRecord = recordActions(el);
  const first: SvcActionDetail | undefined = actions[0];
  if (first?.type === 'svc:action:navigate') void first.payload.path.toUpperCase();
  actions.stop();

  const mounted: SvcEmbedElement = await mountTestEmbed({
    attributes: { 'ready-timeout': '0' },
    container: document.body,
  });
  void mounted;
}
