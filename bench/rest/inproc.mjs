// One variant of the in-process REST figure, in a process of its own: `client` (SvcClient.recipients()),
// `raw` (the raw loop) or `raw-api` (the raw loop with the API's shape: abortable requests with a time
// limit, and the items through the barest async iterator). Each process warms up, then measures its own CPU (process.cpuUsage(), every
// thread) over several listings and prints them as JSON. A process per variant, because in a shared
// one each variant's garbage would be collected on the other's time, and forcing a full GC between
// runs throws optimized code away, which would measure the JIT instead of the client.
import { SvcClient } from '@svc-embed/api';
import { LISTING, TOKEN, TOTAL, rawItemIterator, rawRecipients } from './common.mjs';

// With a fifth argument, the measured listings also run under V8's sampling profiler (bench/profile.mjs),
// sampling every sixth argument µs (default 50), and the profile is written to that file.
const [baseUrl, variant, warmupArg, runsArg, profileOut, intervalArg = '50'] = process.argv.slice(2);

const variants = {
  async client() {
    const client = new SvcClient({ baseUrl, token: TOKEN });
    const items = [];
    for await (const r of client.recipients(LISTING)) items.push(r);
    return items;
  },
  raw: () => rawRecipients(baseUrl),
  async 'raw-api'() {
    const items = [];
    for await (const item of rawItemIterator(baseUrl)) items.push(item);
    return items;
  },
};
const listing = variants[variant];
if (!listing) throw new Error(`unknown variant ${variant}`);

const runs = [];
let profiler;
for (let i = -Number(warmupArg); i < Number(runsArg); i++) {
  if (i === 0 && profileOut) profiler = await startProfiler();
  const c0 = process.cpuUsage();
  const items = await listing();
  const cpu = process.cpuUsage(c0);
  if (items.length !== TOTAL) throw new Error(`${variant}: ${items.length} recipients instead of ${TOTAL}`);
  if (i >= 0) runs.push((cpu.user + cpu.system) / 1000);
}
if (profiler) await profiler.stop();
process.stdout.write(JSON.stringify(runs));

async function startProfiler() {
  const { Session } = await import('node:inspector/promises');
  const { writeFile } = await import('node:fs/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: Number(intervalArg) });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      await writeFile(profileOut, JSON.stringify(profile));
    },
  };
}
