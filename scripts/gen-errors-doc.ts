// Prints docs/errors.md, generated from the code lists in src/core/errors.ts (docs/commands.md#exit-codes).
import { renderErrorsDoc } from '../src/core/errors-doc.js';

process.stdout.write(renderErrorsDoc());
