// The CDN bundles, built from the tsc output, each self-contained and minified with Lit inlined:
// an ES module for <script type="module">, and a classic script (an IIFE that sets the global `SvcEmbed`) for
// pages that cannot load modules: tag managers, some CMSes. scripts/size.mjs checks both against the budget.
// svc-embed/prerender and svc-embed/history have a bundle each, an ES module.
import { nodeResolve } from '@rollup/plugin-node-resolve';
import terser from '@rollup/plugin-terser';

const bundle = (file, format, extra = {}, input = 'dist/cdn.js') => ({
  input,
  output: { file, format, sourcemap: false, ...extra },
  plugins: [
    nodeResolve({ browser: true }),
    // Internal members are named with a leading `_` (Lit's practice): mangled here, across modules. Lit's own `_$`
    // names are left as they are.
    terser({
      ecma: 2022,
      module: format === 'es',
      compress: { passes: 2 },
      mangle: { properties: { regex: /^_(?!\$)/ } },
      format: { comments: false },
    }),
  ],
});

export default [
  bundle('cdn/svc-embed.min.js', 'es'),
  bundle('cdn/svc-embed.classic.min.js', 'iife', { name: 'SvcEmbed', esModule: false }),
  // svc-embed/prerender, a module of its own (outside the element's budget): it uses the <svc-embed> that the
  // element's bundle defines (the npm module, dist/prerender.js, defines it itself).
  bundle('cdn/svc-embed-prerender.min.js', 'es', {}, 'dist/prerender-core.js'),
  // svc-embed/history, a module of its own that imports nothing: the protocol's path rule is inlined.
  bundle('cdn/svc-embed-history.min.js', 'es', {}, 'dist/history.js'),
];
