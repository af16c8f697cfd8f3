// ESLint (flat config): typescript-eslint's type-checked rules on every TypeScript source and test,
// eslint-plugin-wc's rules on the element, and ESLint's recommended rules on the JavaScript (scripts,
// Node tests, the bench, the demo and the simulated tenant's embed scripts). `npm run lint` runs it
// with --max-warnings 0, then Prettier's check.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import wc from 'eslint-plugin-wc';
import globals from 'globals';

export default tseslint.config(
  {
    ignores: [
      '**/dist/',
      'cdn/',
      'bench/.cache/',
      '**/node_modules/',
      'test/types/frameworks/',
      'custom-elements.json',
    ],
  },
  {
    files: ['**/*.{js,mjs}'],
    extends: [js.configs.recommended],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    // `for await (const _ of items)`: a loop that only counts or drains.
    rules: { 'no-unused-vars': ['error', { varsIgnorePattern: '^_$' }] },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A named interface that extends one type is how a public type gets its own name and docs.
      '@typescript-eslint/no-empty-object-type': ['error', { allowInterfaces: 'with-single-extends' }],
      // `declare global { namespace React.JSX {...} }` is the only way to add an element to JSX.
      '@typescript-eslint/no-namespace': ['error', { allowDeclarations: true }],
      // Passing on what a callee threw, whatever it is, is not inventing a non-Error reason.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
    },
  },
  {
    files: ['src/**/*.ts'],
    extends: [wc.configs['flat/recommended'], wc.configs['flat/best-practice']],
  },
  {
    // @open-wc/testing's DOM-diff plugin declares chai's `equal` as returning a promise (for its
    // `.dom.equal`); every other `.equal` of chai is synchronous.
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'file', name: 'Equal', path: 'node_modules/@open-wc/semantic-dom-diff/chai-dom-diff-plugin.d.ts' },
          ],
        },
      ],
    },
  },
);
