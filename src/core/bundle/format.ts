// The review bundle's compiled form (docs/architecture.md#compiled-formats): what the pinned reviewers
// check a bundle with. Its one definition is ./schema.ts. Pure.
import { BUNDLE } from '../format/compiled.js';
import { formatOf } from '../format/node.js';
import type { Bundle } from './schema.js';

export const BUNDLE_FORMAT = /* @__PURE__ */ formatOf<Bundle>(BUNDLE);
