// Imported by the review-run entries (./review-run-argv.ts, ../register/run.ts) BEFORE the command's
// modules load. zod's `jitless` option stops an object schema from compiling (new Function) a fast
// path on its first parse, which a one-shot process parsing each schema once or twice never
// recovers (bench/runner: ≈ 10 ms of CPU per run when the review-run path held such schemas).
// Every governed schema is now zod/mini (docs/architecture.md "One definition per format"), whose
// object schemas never compile a fast path, so the option changes nothing on today's path; it is
// kept so that no object schema that does compile can bring the cost back. The setting lives in
// zod's core (one `config` shared by zod and zod/mini, test/runner-perf-jitless) and must run
// before any schema is built, since an object schema reads it when it is constructed.
import { config } from 'zod/mini';

config({ jitless: true });
