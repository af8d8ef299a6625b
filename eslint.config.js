// ESLint (npm run lint, part of npm test): the hand-written JavaScript — build and check scripts,
// the demo, the bench runner and tools, test fixtures — with ESLint's recommended rules plus a few
// that catch real defects (not style). TypeScript is not linted here: no TypeScript parser is
// installed, and tsc's strict options (tsconfig.json: noUnusedLocals, noUnusedParameters,
// noFallthroughCasesInSwitch, noImplicitReturns, strict) already refuse those defects in every .ts
// file. The pinned programs (attestors/*.mjs, runner/reviewers/*.mjs) are generated bundles, checked
// against their TypeScript sources by scripts/check-pinned.mjs; examples/ is a review fixture with
// its own config.
import js from '@eslint/js';

const node = Object.fromEntries(
  [
    'AbortController', 'AbortSignal', 'Buffer', 'URL', 'URLSearchParams', 'TextDecoder', 'TextEncoder', 'clearImmediate',
    'clearInterval', 'clearTimeout', 'console', 'fetch', 'global', 'globalThis', 'performance', 'process', 'queueMicrotask',
    'setImmediate', 'setInterval', 'setTimeout', 'structuredClone',
  ].map((n) => [n, 'readonly']),
);

export default [
  { ignores: ['node_modules/**', 'dist/**', 'attestors/*.mjs', 'runner/reviewers/*.mjs', 'examples/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: node },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      eqeqeq: ['error', 'always'],
      'no-unused-vars': ['error', { args: 'after-used', caughtErrors: 'none' }],
      'no-undef': 'error',
      'no-fallthrough': 'error',
      'no-empty': ['error', { allowEmptyCatch: true }],
      'no-implicit-coercion': ['error', { boolean: false }],
      'no-self-compare': 'error',
      'no-unmodified-loop-condition': 'error',
      'no-unreachable-loop': 'error',
      'no-constructor-return': 'error',
      'no-return-assign': 'error',
      'no-throw-literal': 'error',
      'array-callback-return': 'error',
      'no-shadow-restricted-names': 'error',
    },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { ...node, require: 'readonly', module: 'writable', __dirname: 'readonly', __filename: 'readonly', exports: 'writable' } } },
];
