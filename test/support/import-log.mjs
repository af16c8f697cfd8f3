// Records every module URL that a Node process resolves, one per line, into the file named by
// SVC_IMPORT_LOG: `node --import ./test/support/import-log.mjs -e "…"`. Loaded with --import it registers
// itself as the module hooks (which Node runs on a thread of their own), so one file does both.
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread) register(import.meta.url);

export async function resolve(specifier, context, nextResolve) {
  const result = await nextResolve(specifier, context);
  if (process.env.SVC_IMPORT_LOG) appendFileSync(process.env.SVC_IMPORT_LOG, `${result.url}\n`);
  return result;
}
