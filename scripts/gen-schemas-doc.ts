// Writes docs/schemas/*.schema.json, generated from the one definition of each format
// (src/core/json-schemas.ts). `npm run schemas:doc`; test/schemas-doc.test.ts fails when stale.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { publishedJsonSchemas } from '../src/core/json-schemas.js';

const dir = join('docs', 'schemas');
mkdirSync(dir, { recursive: true });
for (const [stem, schema] of Object.entries(publishedJsonSchemas())) {
  writeFileSync(join(dir, `${stem}.schema.json`), `${JSON.stringify(schema, null, 2)}\n`);
}
