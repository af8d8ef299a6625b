// ESLint flat config of the sample. It imports nothing, so it loads inside the read-only review
// sandbox where the sample has no node_modules of its own. ESLint without a TypeScript parser reads
// JavaScript only: the .js files are linted, the .ts files are type-checked by tsc.
export default [
  {
    files: ['**/*.js'],
    languageOptions: { ecmaVersion: 2022, sourceType: 'module', globals: {} },
    rules: {
      eqeqeq: 'error',
      'no-undef': 'error',
      'no-unused-vars': 'error',
      'prefer-const': 'warn',
    },
  },
];
