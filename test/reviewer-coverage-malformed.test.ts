// The coverage reviewer fails closed (docs/reviewers.md): a bundle it cannot trust — not canonical,
// not the closed shape of docs/schemas/bundle.schema.json, digests that do not match the bytes, an
// incoherent view — makes it exit non-zero with NO stdout (the runner then records ABORTED,
// docs/runner.md#the-run-step-by-step step 7), and its one stderr line never carries a path, a key or a value of the bundle. Each
// case changes one thing of a real bundle and re-canonicalises it with governed's own canonicalJson,
// so the defect under test is the only one.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import {
  assertNothingLeaked,
  buildReviewer,
  bundleOf,
  cleanScenario,
  cleanup,
  expectValidOutput,
  reviewerEnv,
  runReviewer,
  tempDir,
  type ReviewerRun,
} from './reviewer-coverage-helpers.js';

let reviewer: string;
beforeAll(async () => {
  reviewer = await buildReviewer();
}, 60_000);
afterAll(cleanup);

type Json = Record<string, any>;

function cleanBundle(): { bytes: Buffer; value: Json } {
  const built = bundleOf(cleanScenario(), 'development', 'coverage');
  return { bytes: built.bytes, value: JSON.parse(built.bytes.toString('utf8')) as Json };
}

function expectRefused(run: ReviewerRun, code: number, line: string): void {
  expect(run.code).toBe(code);
  expect(run.stdout).toBe('');
  expect(run.stderr).toBe(`coverage: ${line}\n`);
  assertNothingLeaked(run);
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
const hex = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

/** One defect each, applied to a parsed clean development bundle. */
const SHAPE_DEFECTS: Record<string, (b: Json) => void> = {
  'unknown top-level key': (b) => {
    b.extra = 1;
  },
  'missing top-level key': (b) => {
    delete b.unit;
  },
  'wrong schema id': (b) => {
    b.schema = 'governed.review-bundle/v2';
  },
  'bad challenge id': (b) => {
    b.challenge_id = 'CHL-XYZ';
  },
  'unknown stage': (b) => {
    b.stage = 'release';
  },
  'unknown key in a directive': (b) => {
    b.sections.contract.directives[0].note = 'CANARY-FILE-e41f';
  },
  'unknown directive state': (b) => {
    b.sections.contract.directives[0].state = 'finished';
  },
  'an ID outside the alphabet': (b) => {
    b.sections.contract.directives[0].id = 'dir-1';
  },
  'a number where a list belongs': (b) => {
    b.sections.contract.implementations[0].paths = 1;
  },
  'a span past the source bytes': (b) => {
    b.sections.sources[0].atoms[4].span = [b.sections.sources[0].atoms[4].span[0], 100_000];
  },
  'a reversed span': (b) => {
    b.sections.sources[0].atoms[0].span = [5, 1];
  },
  'coverage kind missing': (b) => {
    delete b.coverage.surfaces;
  },
  'coverage kind extra': (b) => {
    b.coverage.probes = [];
  },
  'coverage list unsorted': (b) => {
    b.coverage.atoms = [...b.coverage.atoms].reverse();
  },
  'coverage list duplicate': (b) => {
    b.coverage.atoms = [b.coverage.atoms[0], ...b.coverage.atoms];
  },
  'source digest not of its bytes': (b) => {
    b.sections.sources[0].bytes_b64 = b64('Add a CSV export of receipts CANARY-SRC-7c1d.');
  },
  'current file sha256 not of its bytes': (b) => {
    const f = b.sections.current_files.find((x: Json) => x.present);
    f.bytes_b64 = b64('export const x = 1; // CANARY-FILE-e41f\n');
  },
  'non-canonical base64 (padding bits set)': (b) => {
    const f = b.sections.current_files.find((x: Json) => x.present);
    f.bytes_b64 = 'QR==';
    f.sha256 = hex(Buffer.from('QR==', 'base64'));
  },
  'base64 outside the alphabet': (b) => {
    b.sections.current_files.find((x: Json) => x.present).bytes_b64 = '####';
  },
  'a present file without bytes': (b) => {
    delete b.sections.current_files.find((x: Json) => x.present).bytes_b64;
  },
  'an absent file with a digest': (b) => {
    b.sections.current_files.push({ path: 'zz/none.ts', present: false, sha256: 'a'.repeat(64) });
  },
  'a change id not derived from its path': (b) => {
    b.sections.changes[0].id = 'CHG-000000000000000000000000';
  },
  'a section missing from view.included': (b) => {
    b.view.included = b.view.included.filter((s: string) => s !== 'changes');
  },
  'an included section that is absent': (b) => {
    delete b.sections.changes;
  },
  'a section both included and withheld': (b) => {
    b.view.withheld = ['changes'];
  },
  'view.included out of order': (b) => {
    b.view.included = [...b.view.included].reverse();
  },
  'an empty preservation section (not the closed format)': (b) => {
    b.sections.preservation = {};
    b.view.included = [...b.view.included.slice(0, -1), 'preservation', ...b.view.included.slice(-1)];
  },
  'the planning contract form in a development bundle': (b) => {
    b.sections.contract.form = 'planning';
  },
  'a directive naming an implementation the contract lacks': (b) => {
    b.sections.contract.directives[0].implementations = ['IMP-404'];
  },
  'a directive naming evidence the contract lacks': (b) => {
    b.sections.contract.directives[0].evidence = ['EVD-404'];
  },
  // The one timestamp rule (src/core/iso-time.ts), not a shape regex: Feb 30 has the shape.
  'an impossible calendar date in the scope history': (b) => {
    b.sections.scope_history[0].bound_at = '2026-02-30T00:00:00Z';
  },
  'a disposed directive naming an implementation the contract lacks': (b) => {
    b.sections.contract.directives[0].state = 'abandoned';
    b.sections.contract.directives[0].implementations = ['IMP-404'];
  },
};

describe('malformed bundles: exit 65, no stdout, one fixed stderr line', () => {
  it('the unmodified bundle is accepted (the control for every case below)', () => {
    const built = bundleOf(cleanScenario(), 'development', 'coverage');
    expect(expectValidOutput(runReviewer(reviewer, built.bytes), built).verdict).toBe('CLEAN');
  });

  for (const [name, defect] of Object.entries(SHAPE_DEFECTS)) {
    it(name, () => {
      const { value } = cleanBundle();
      defect(value);
      expectRefused(runReviewer(reviewer, Buffer.from(canonicalJson(value))), 65, 'bundle malformed');
    });
  }

  it('bytes that are not exactly the RFC 8785 form: pretty-printed, trailing newline, duplicate key', () => {
    const { bytes, value } = cleanBundle();
    expectRefused(runReviewer(reviewer, Buffer.from(JSON.stringify(value, null, 2))), 65, 'bundle malformed');
    expectRefused(runReviewer(reviewer, Buffer.concat([bytes, Buffer.from('\n')])), 65, 'bundle malformed');
    // A duplicate key JSON.parse would silently collapse: the canonical re-serialisation differs.
    const dup = Buffer.from(bytes.toString('utf8').replace('{"challenge_id":', '{"challenge_id":"CHL-x","challenge_id":'));
    expectRefused(runReviewer(reviewer, dup), 65, 'bundle malformed');
    // Numbers outside the bundle's domain (governed's canonicalJson cannot even produce them).
    for (const n of ['0.5', '-1', '1e0', '9007199254740993']) {
      const text = bytes.toString('utf8').replace('"span":[0,', `"span":[${n},`);
      expect(text).not.toBe(bytes.toString('utf8'));
      expectRefused(runReviewer(reviewer, Buffer.from(text)), 65, 'bundle malformed');
    }
  });

  it('not JSON, not UTF-8, empty, truncated, or a value that is not an object', () => {
    const { bytes } = cleanBundle();
    for (const bad of [
      Buffer.alloc(0),
      Buffer.from('not json CANARY-FILE-e41f'),
      bytes.subarray(0, bytes.length - 1),
      Buffer.from([0x7b, 0xff, 0xfe, 0x7d]),
      Buffer.from('[]'),
      Buffer.from('"governed.review-bundle/v1"'),
      Buffer.from('null'),
    ]) {
      expectRefused(runReviewer(reviewer, bad), 65, 'bundle malformed');
    }
  });
});

describe('the bundle cannot be found or read', () => {
  it('GOVERNED_BUNDLE unset or empty: exit 64', () => {
    const { bytes } = cleanBundle();
    const env = reviewerEnv('/unused');
    delete (env as Record<string, string | undefined>).GOVERNED_BUNDLE;
    expectRefused(runReviewer(reviewer, bytes, env), 64, 'GOVERNED_BUNDLE is not set');
    expectRefused(runReviewer(reviewer, bytes, { ...env, GOVERNED_BUNDLE: '' }), 64, 'GOVERNED_BUNDLE is not set');
  });

  it('a missing file or a directory: exit 66, the path never printed', () => {
    const { bytes } = cleanBundle();
    const d = tempDir('unreadable');
    const sub = join(d, 'a-directory');
    mkdirSync(sub);
    for (const p of [join(d, 'CANARY-FILE-e41f.json'), sub]) {
      const run = runReviewer(reviewer, bytes, reviewerEnv(p));
      expectRefused(run, 66, 'bundle unreadable');
      expect(run.stderr).not.toContain(d);
    }
  });
});
