// HTTP/1.1 over a bare socket, for requests that fetch() and http.request() would tidy up first:
// un-normalised paths, repeated or missing headers, a foreign Host, absolute-form targets.
import { connect } from 'node:net';

/** Decodes a chunked body; enough for the small responses of our servers. */
function unchunk(buf) {
  const out = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1'), 16);
    if (!size) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/**
 * Sends one request and resolves with {status, headers, body}. `headers` is a list of [name, value]
 * pairs sent as given; by default it is just the Host of `origin`. Header names in the result are
 * lower case; a repeated header is an array.
 */
export function rawRequest(origin, path, { method = 'GET', headers } = {}) {
  const url = new URL(origin);
  const lines = headers ?? [['Host', url.host]];
  const text = `${method} ${path} HTTP/1.1\r\n${lines.map(([k, v]) => `${k}: ${v}\r\n`).join('')}Connection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname.replace(/^\[|\]$/g, ''));
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('end', () => {
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      if (split < 0)
        return reject(new Error(`no response head: ${JSON.stringify(all.toString('latin1').slice(0, 200))}`));
      const [statusLine, ...rest] = all.subarray(0, split).toString('latin1').split('\r\n');
      const headersOut = {};
      for (const line of rest) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim().toLowerCase();
        const value = line.slice(i + 1).trim();
        headersOut[name] = name in headersOut ? [].concat(headersOut[name], value) : value;
      }
      let body = all.subarray(split + 4);
      if (/chunked/i.test(headersOut['transfer-encoding'] ?? '')) body = unchunk(body);
      resolve({ status: Number(statusLine.split(' ')[1]), headers: headersOut, body: body.toString('utf8') });
    });
    socket.write(text);
  });
}
