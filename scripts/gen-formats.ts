// Writes src/core/format/compiled.ts: the compiled form of each format, derived from its one
// zod/mini definition (docs/architecture.md#compiled-formats). `npm run formats:gen`;
// test/format-compiled.test.ts fails when the committed module is stale.
import { writeFileSync } from 'node:fs';
import { compileFormats, emitFormatsModule } from '../src/core/format/compile.js';
import { COMPILED_DEFINITIONS, COMPILED_HEADER } from '../src/core/format/definitions.js';

writeFileSync('src/core/format/compiled.ts', emitFormatsModule(compileFormats(COMPILED_DEFINITIONS), COMPILED_HEADER));
