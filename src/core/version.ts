// governed's version: package.json's, injected at build time (scripts/build.mjs and vitest.config.ts
// `define`), so there is one source. It is signed into every VSA (the verifier's version) and printed
// by `governed --version`.
declare const __GOVERNED_VERSION__: string;

export const GOVERNED_VERSION: string = __GOVERNED_VERSION__;
