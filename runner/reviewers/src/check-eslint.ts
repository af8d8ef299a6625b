// The `check-eslint` adapter (docs/reviewers.md#check-reviewers): a pinned, self-contained program the
// runner starts in the check sandbox like any reviewer; it runs the policy's command on the sealed
// snapshot at /snapshot and maps the result (./check/mappers.ts). scripts/build.mjs bundles it into
// runner/reviewers/check-eslint.mjs, which imports only Node built-ins. Exit statuses: ./check/run.ts.
import { mapEslint } from './check/map-eslint.js';
import { main } from './check/run.js';

process.exitCode = main({ name: 'check-eslint', map: mapEslint });
