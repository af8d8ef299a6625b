// The writer's uid must differ from every governed uid a separated receipt names, the probe
// attestor's included (docs/runnerd.md "Processes and users"); receipts made before the daemon had a
// probe attestor (no attestor_uids.probe) stay valid. Review and probe predicates share one rule.
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../src/core/canonical.js';
import { probeRuleViolation } from '../src/core/preservation/probe.js';
import { probePredicateSchema } from '../src/core/preservation/probe-schema.js';
import { predicateRuleViolation, separationGovernedUids } from '../src/core/receipt-predicate.js';
import { reviewReceiptPredicateSchema, separationSchema } from '../src/core/receipt-predicate-schema.js';
import { samplePredicate } from './helpers/receipts.js';

const separation = (probe: number | undefined, client: number) => ({
  boot_id: '01234567-89ab-cdef-0123-456789abcdef',
  daemon_pid: 4242,
  daemon_start_time: '123456',
  daemon_uid: 61000,
  attestor_uids: { reviewer: 61001, runner: 61002, ...(probe === undefined ? {} : { probe }) },
  client_uid: client,
  client_pid: 4343,
});

const probePredicate = (sep: ReturnType<typeof separation>) =>
  probePredicateSchema.parse({
    unit: `UNIT-${'a'.repeat(32)}`,
    phase: 'baseline',
    snapshot_digest: `sha256:${'1'.repeat(64)}`,
    dependency_digest: null,
    adapter_sha256: '2'.repeat(64),
    attestor_sha256: '3'.repeat(64),
    results: [{ surface: 'SURF-cli', evidence_id: 'EVD-cli-b', entry: 'bin:greet', exit_code: 0, capabilities: [], output_digest: `sha256:${'4'.repeat(64)}` }],
    probed_at: '2026-12-02T00:00:00Z',
    trust_mode: 'separated',
    separation: sep,
  });

const reviewPredicate = (sep: ReturnType<typeof separation>) => reviewReceiptPredicateSchema.parse({ ...samplePredicate(), trust_mode: 'separated', separation: sep });

describe('separation: the probe attestor uid is a governed uid', () => {
  it('the schema takes attestor_uids with or without probe, nothing else', () => {
    expect(separationSchema.safeParse(separation(61003, 1000)).success).toBe(true);
    expect(separationSchema.safeParse(separation(undefined, 1000)).success).toBe(true);
    expect(separationSchema.safeParse({ ...separation(61003, 1000), attestor_uids: { reviewer: 61001, runner: 61002, probe: 61003, gate: 61004 } }).success).toBe(false);
    expect(separationSchema.safeParse(separation(0, 1000)).success).toBe(false);
  });

  it('governed uids: root, the daemon, every attestor named', () => {
    expect(separationGovernedUids(separation(61003, 1000))).toEqual([0, 61000, 61001, 61002, 61003]);
    expect(separationGovernedUids(separation(undefined, 1000))).toEqual([0, 61000, 61001, 61002]);
  });

  it('a probe receipt whose client is the probe attestor uid is refused; another client passes (positive control), with or without the field', () => {
    expect(probeRuleViolation(probePredicate(separation(61003, 61003)))).toBe('separation.client_uid');
    expect(probeRuleViolation(probePredicate(separation(61003, 61002)))).toBe('separation.client_uid');
    expect(probeRuleViolation(probePredicate(separation(61003, 1000)))).toBeNull();
    expect(probeRuleViolation(probePredicate(separation(undefined, 1000)))).toBeNull();
  });

  it('a review receipt whose client is the probe attestor uid is refused; another client passes (positive control), with or without the field', () => {
    expect(predicateRuleViolation(reviewPredicate(separation(61003, 61003)), canonicalJson)).toBe('separation.client_uid');
    expect(predicateRuleViolation(reviewPredicate(separation(61003, 0)), canonicalJson)).toBe('separation.client_uid');
    expect(predicateRuleViolation(reviewPredicate(separation(61003, 1000)), canonicalJson)).toBeNull();
    expect(predicateRuleViolation(reviewPredicate(separation(undefined, 1000)), canonicalJson)).toBeNull();
  });
});
