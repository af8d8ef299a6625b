// review-run sets zod's `jitless` option before its schemas are built
// (src/cli/commands/review-run-jitless.ts: no per-schema code generation in a one-shot process).
// The option must not change what is accepted: the schemas the run path uses, built with it on,
// agree with the same schemas built with it off (JIT) over valid values and hundreds of mutations.
import '../src/cli/commands/review-run-jitless.js';
import { config } from 'zod/mini';
import { globalConfig } from 'zod/v4/core';
import { config as classicConfig } from 'zod';
import { describe, expect, it, vi } from 'vitest';
import { mutations, type Json } from './schema-mutations.js';

type Parser = { safeParse(v: unknown): { success: boolean } };

async function runPathSchemas(): Promise<{ predicate: Parser; config: Parser }> {
  const { reviewReceiptPredicateSchema } = await import('../src/core/receipt-predicate-schema.js');
  const { attestorConfigSchema } = await import('../src/core/attestor-protocol-schema.js');
  return { predicate: reviewReceiptPredicateSchema, config: attestorConfigSchema };
}

describe('zod jitless on the review-run path', () => {
  it('is on once the review-run entry loaded', () => {
    expect(config().jitless).toBe(true);
  });

  it("zod/mini's config is zod core's one setting, the one classic zod's object schemas read", () => {
    // The entry sets it through zod/mini (no product module imports classic zod); classic zod is
    // imported here only to show that the setting would reach its code-generating objects too.
    expect(config()).toBe(globalConfig);
    expect(classicConfig()).toBe(globalConfig);
    expect(classicConfig().jitless).toBe(true);
  });

  it('schemas built with it accept exactly what the same schemas built without it accept', async () => {
    // Imported only now, so their schemas are constructed with the setting in force.
    const jitless = await runPathSchemas();
    config({ jitless: false });
    vi.resetModules();
    const jit = await runPathSchemas();
    expect(jit.predicate).not.toBe(jitless.predicate); // really built twice
    const { samplePredicate } = await import('./helpers/receipts.js');
    const bases: [keyof typeof jit, Json][] = [
      ['predicate', samplePredicate({ slot: 'a-b' }) as unknown as Json],
      ['config', { credential: 'runner', kind: 'review-receipt', key_id: 'a'.repeat(64), key_ref: '/k.pem' }],
    ];
    let n = 0;
    let refused = 0;
    for (const [name, base] of bases) {
      expect(jitless[name].safeParse(base).success, name).toBe(true);
      for (const [label, m] of mutations(base)) {
        const a = jitless[name].safeParse(structuredClone(m)).success;
        expect(jit[name].safeParse(structuredClone(m)).success, `${name}: ${label}`).toBe(a);
        if (!a) refused++;
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(500);
    config({ jitless: true });
  });
});
