/**
 * The API client as the command line configures it: the token from SVC_API_TOKEN only, the base URL
 * from --base-url or SVC_BASE_URL, and the client's complaints in the user's words.
 */
import { SvcClient } from '../index.js';
import type { RetryInfo, ScimAuthScheme } from '../index.js';
import { UsageError, integerFlag } from './args.js';
import type { RunContext } from './command.js';
import { asUsageError } from './errors.js';

export interface ClientExtras {
  scimAuthScheme?: ScimAuthScheme;
  onRetry: (info: RetryInfo) => void;
}

/** The name the base URL was given by: --base-url when the flag is there, else SVC_BASE_URL. */
export function baseUrlName(flags: RunContext['flags']): '--base-url' | 'SVC_BASE_URL' {
  return typeof flags['base-url'] === 'string' ? '--base-url' : 'SVC_BASE_URL';
}

/** Builds the client from the flags and the environment; a bad value is a UsageError naming its source. */
export function makeClient({ flags, io }: RunContext, command: string, extra: ClientExtras): SvcClient {
  const token = io.env.SVC_API_TOKEN;
  if (token === undefined || token === '')
    throw new UsageError('SVC_API_TOKEN is not set: export the API token first', command);
  const flagUrl = flags['base-url'];
  const baseUrl = typeof flagUrl === 'string' ? flagUrl : io.env.SVC_BASE_URL;
  const maxRetries = integerFlag(flags, 'max-retries', false, command, 'an integer from 0 to 10');
  const timeoutMs = integerFlag(flags, 'timeout', false, command, 'a number of milliseconds');
  if (baseUrl === undefined || baseUrl === '')
    throw new UsageError('no base URL: pass --base-url or set SVC_BASE_URL', command);
  try {
    return new SvcClient({
      baseUrl,
      token,
      // The command goes through the user's proxy whenever the environment names one (docs/cli.md).
      proxyFromEnv: true,
      ...extra,
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    });
  } catch (err) {
    // The client's messages name the rule and never echo the token or the URL.
    throw asUsageError(err, { baseUrl: baseUrlName(flags) }, command);
  }
}
