// Imported by the review-run entries (./review-run-argv.ts, ../register/run.ts) BEFORE the command's
// modules load: zod v4 compiles (new Function) a fast path for each object schema on its first
// parse, which a one-shot process parsing each schema once or twice never recovers (bench/runner:
// ≈ 10 ms of CPU per run on the review-run path). `jitless` keeps zod's interpreted path — the same
// validation rules (zod's own option for environments without eval). It must run before any schema
// is built, since each object schema reads the setting when it is constructed.
import { config } from 'zod';

config({ jitless: true });
