// Plain test output: what `npm test` writes to a file, a pipe, a CI log, or a terminal with NO_COLOR set has no
// colour codes and no progress redraws. Some tools decide by themselves and get it wrong: @web/test-runner's
// summary reporter always colours its marks, and its terminal erases lines even off a terminal.

/** Whether the output going to `stream` should be plain: it is not a terminal, NO_COLOR is set, or TERM is dumb. */
export const wantsPlain = (stream, env = process.env) =>
  stream.isTTY !== true || (env.NO_COLOR ?? '') !== '' || env.TERM === 'dumb';

// An escape sequence: CSI (colours, cursor moves, erasing), OSC (titles, links) ended by BEL or ST, or a
// two-character one. Anchored at an ESC, `PARTIAL` matches a sequence that a chunk boundary cut short.
// eslint-disable-next-line no-control-regex -- the control characters are what they match
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
// eslint-disable-next-line no-control-regex -- as above
const PARTIAL = /\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?)?$/;

/** `text` without its escape sequences. */
export const stripEscapes = (text) => text.replace(ESCAPES, '');

/**
 * A @web/test-runner reporter whose logged lines lose their escape sequences: for the summary reporter, which
 * colours its marks whatever the output.
 */
export function plainReporter(reporter) {
  const plainLogger = (logger) =>
    new Proxy(logger, {
      get: (target, key) =>
        typeof target[key] === 'function'
          ? (...args) => target[key](...args.map((a) => (typeof a === 'string' ? stripEscapes(a) : a)))
          : target[key],
    });
  return {
    ...reporter,
    reportTestFileResults: (args) => reporter.reportTestFileResults?.({ ...args, logger: plainLogger(args.logger) }),
  };
}

/**
 * A writer to `out` that drops escape sequences, even one split across two writes, and turns a carriage return
 * that redraws a line (one not followed by a line feed) into a line feed. `end()` writes what it held back.
 */
export function plainWriter(out) {
  let held = '';
  const clean = (text) => stripEscapes(text).replace(/\r(?!\n)/g, '\n');
  return {
    write(chunk) {
      const text = held + chunk;
      const cut = PARTIAL.exec(text)?.index ?? text.length;
      // A trailing CR might be the first half of a CRLF: hold it too.
      const end = text.endsWith('\r') && cut === text.length ? text.length - 1 : cut;
      held = text.slice(end);
      if (end > 0) out.write(clean(text.slice(0, end)));
    },
    end() {
      if (held) out.write(clean(held).replaceAll('\x1b', ''));
      held = '';
    },
  };
}
