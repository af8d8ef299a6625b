// review-run sets zod's `jitless` option before its schemas are built
// (src/cli/commands/review-run-jitless.ts: no per-schema code generation in a one-shot process).
// The option must not change what is accepted: with it on, the zod schemas the run path uses still
// agree with their lean twins (which agree with the JIT-compiled schemas in test/lean-attestor.test.ts)
// over valid values and hundreds of mutations.
import '../src/cli/commands/review-run-jitless.js';
import { config } from 'zod';
import { describe, expect, it } from 'vitest';
import { mutations, type Json } from './lean-helpers.js';

describe('zod jitless on the review-run path', () => {
  it('is on once the review-run entry loaded', () => {
    expect(config().jitless).toBe(true);
  });

  it('schemas built after it accept exactly what the lean checks accept', async () => {
    // Imported only now, so their schemas are constructed with the setting in force.
    const { reviewReceiptPredicateSchema } = await import('../src/core/receipt-predicate.js');
    const { receiptPredicateShape } = await import('../src/core/lean/receipt.js');
    const { attestorConfigSchema } = await import('../src/core/attestor-protocol.js');
    const { attestorConfigShape } = await import('../src/core/lean/attestor-protocol.js');
    const { samplePredicate } = await import('./helpers/receipts.js');
    const pairs: [string, { safeParse(v: unknown): { success: boolean } }, (v: unknown, p: string) => string | null, Json][] = [
      ['predicate', reviewReceiptPredicateSchema, receiptPredicateShape, samplePredicate({ slot: 'a-b' }) as unknown as Json],
      ['config', attestorConfigSchema, attestorConfigShape, { credential: 'runner', kind: 'review-receipt', key_id: 'a'.repeat(64), key_ref: '/k.pem' }],
    ];
    let n = 0;
    for (const [name, zod, lean, base] of pairs) {
      expect(zod.safeParse(base).success, name).toBe(true);
      for (const [label, m] of mutations(base)) {
        expect(lean(structuredClone(m), '$') === null, `${name}: ${label}`).toBe(zod.safeParse(structuredClone(m)).success);
        n++;
      }
    }
    expect(n).toBeGreaterThan(1000);
  });
});
