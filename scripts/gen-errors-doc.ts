// Prints docs/errors.md, generated from the code lists in src/core/errors.ts (SPEC §4.2).
import { renderErrorsDoc } from '../src/core/errors-doc.js';

process.stdout.write(renderErrorsDoc());
