// The CDN bundle: one self-contained, minified ES module (Lit inlined) built from the tsc output.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';

export default {
  input: 'dist/cdn.js',
  output: { file: 'cdn/svc-embed.min.js', format: 'es', sourcemap: false },
  plugins: [
    nodeResolve({ browser: true }),
    terser({ ecma: 2022, module: true, compress: { passes: 2 }, format: { comments: false } }),
  ],
};
