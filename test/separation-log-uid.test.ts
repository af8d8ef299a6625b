// The writer's uid must differ from every governed uid a separated receipt names, the log
// attestor's included (docs/runnerd.md#processes-and-users); receipts made before the daemon had a
// log attestor (no attestor_uids.log) stay valid.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { predicateRuleViolation, separationGovernedUids } from '../src/core/receipt-predicate.js';
import { reviewReceiptPredicateSchema, separationSchema } from '../src/core/receipt-predicate-schema.js';
import { runnerdHelloOutputSchema } from '../src/core/command-output-areas.js';
import { samplePredicate } from './helpers/receipts.js';

const separation = (log: number | undefined, client: number) => ({
  boot_id: '01234567-89ab-cdef-0123-456789abcdef',
  daemon_pid: 4242,
  daemon_start_time: '123456',
  daemon_uid: 61000,
  attestor_uids: { reviewer: 61001, runner: 61002, probe: 61003, ...(log === undefined ? {} : { log }) },
  client_uid: client,
  client_pid: 4343,
});

const reviewPredicate = (sep: ReturnType<typeof separation>) => reviewReceiptPredicateSchema.parse({ ...samplePredicate(), trust_mode: 'separated', separation: sep });

describe('separation: the log attestor uid is a governed uid', () => {
  it('the schema takes attestor_uids with or without log; a log uid of 0 is refused', () => {
    expect(separationSchema.safeParse(separation(61004, 1000)).success).toBe(true);
    expect(separationSchema.safeParse(separation(undefined, 1000)).success).toBe(true);
    expect(separationSchema.safeParse(separation(0, 1000)).success).toBe(false);
  });

  it('governed uids: root, the daemon, every attestor named, the log attestor last', () => {
    expect(separationGovernedUids(separation(61004, 1000))).toEqual([0, 61000, 61001, 61002, 61003, 61004]);
    expect(separationGovernedUids(separation(undefined, 1000))).toEqual([0, 61000, 61001, 61002, 61003]);
  });

  it('a review receipt whose client is the log attestor uid is refused; another client passes (positive control), with or without the field', () => {
    expect(predicateRuleViolation(reviewPredicate(separation(61004, 61004)), canonicalJson)).toBe('separation.client_uid');
    expect(predicateRuleViolation(reviewPredicate(separation(61004, 1000)), canonicalJson)).toBeNull();
    expect(predicateRuleViolation(reviewPredicate(separation(undefined, 61004)), canonicalJson)).toBeNull();
  });

  it('runnerd hello of this version names the log attestor uid (required there)', () => {
    const hello = (uids: Record<string, number>) => ({ ok: true, trust_mode: 'separated', daemon: { boot_id: 'b', daemon_pid: 1, daemon_start_time: '1', daemon_uid: 61000, attestor_uids: uids }, client: { uid: 1000, pid: 2 } });
    expect(runnerdHelloOutputSchema.safeParse(hello({ reviewer: 61001, runner: 61002, probe: 61003, log: 61004 })).success).toBe(true);
    expect(runnerdHelloOutputSchema.safeParse(hello({ reviewer: 61001, runner: 61002, probe: 61003 })).success).toBe(false);
  });
});
