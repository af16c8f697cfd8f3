// The CLI's floor: the raw loop, then the very bytes `svc-embed recipients --format json` prints, with
// no check of any kind. SVC_BASE_URL as for the CLI.
import { cliRecord, rawRecipients } from './common.mjs';

const items = await rawRecipients(process.env.SVC_BASE_URL);
process.stdout.write(`${JSON.stringify(items.map(cliRecord), null, 2)}\n`);
