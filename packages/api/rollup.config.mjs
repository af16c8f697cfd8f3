// The `svc-embed` command (package.json "bin"): dist/cli/bin.js and every module of cli/ and the client it
// imports, bundled by rollup into one file, dist/cli.js. A command runs in a process of its own, and
// Node's ES module loader costs about half a millisecond of CPU per module (resolve, read, compile,
// link): some 20 modules were a good part of `svc-embed recipients`' cost over a raw fetch loop. Not
// minified, so that stack traces stay readable. The tsc output stays in dist/cli/ as it is.
//
// The bundle must be ASCII (non-ASCII text is written as \u escapes in the sources): Node decodes an
// ASCII source on a fast path, and a single character above U+00FF (there were three ellipses) makes V8
// hold the whole source as UTF-16, decoded from UTF-8 and scanned as such: about 1% of the command's
// instructions.
//
// Left outside: Node's builtins. Every bundled module keeps its own import.meta.url, so that paths
// relative to it (main.js reads ../../package.json) still hold.
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const file = 'dist/cli.js';
const dist = resolve('dist');
const protocolDist = dirname(fileURLToPath(import.meta.resolve('@svc-embed/protocol')));
const here = dirname(resolve(file));
const relativeUrl = (path) => {
  const rel = relative(here, path).split('\\').join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
};

export default {
  input: 'dist/cli/bin.js',
  output: { file, format: 'es', sourcemap: false },
  plugins: [
    {
      name: 'cli-bundle',
      resolveId(source, importer) {
        if (!importer) return null;
        // The protocol package is bundled too: its rules are the client's, and one file loads fastest.
        if (source === '@svc-embed/protocol') return fileURLToPath(import.meta.resolve(source));
        if (!source.startsWith('.')) return { id: source, external: true };
        const path = resolve(dirname(importer), source);
        if (path.startsWith(`${dist}/`) || path.startsWith(`${protocolDist}/`)) return null;
        throw new Error(`${importer} imports ${source}, outside the package`);
      },
      renderChunk(code) {
        // eslint-disable-next-line no-control-regex -- finds any character outside ASCII, whose range starts at NUL
        const at = code.search(/[^\x00-\x7f]/);
        if (at >= 0) {
          const line = code.slice(0, at).split('\n').length;
          throw new Error(`${file}:${line}: a non-ASCII character; write it as a \\u escape in the source`);
        }
        return null;
      },
      resolveImportMeta(property, { moduleId }) {
        if (property !== 'url') return null;
        return `new URL(${JSON.stringify(relativeUrl(moduleId))}, import.meta.url).href`;
      },
    },
  ],
  onwarn(warning) {
    throw new Error(`rollup (CLI bundle): ${warning.message}`);
  },
};
