// YAML keys that are distinct YAML nodes but the same JS property (docs/contract.md#validation-rules "YAML is
// parsed with duplicate keys refused"; docs/threat-model.md#rules-that-hold-everywhere "no rejected value appears in output").
import { describe, expect, it, vi } from 'vitest';
import { parseYamlStrict } from '../src/core/strict-parse.js';
import { GovernedError } from '../src/core/errors.js';

function codeOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof GovernedError) return e.code;
    throw e;
  }
  return 'no_error';
}

describe('parseYamlStrict: keys that collide after conversion to JS', () => {
  it('refuses an int key and a string key with the same text (1 and "1")', () => {
    expect(codeOf(() => parseYamlStrict('1: a\n"1": b\n'))).toBe('yaml_duplicate_key');
  });
  it('refuses a bool key and a string key with the same text (true and "true")', () => {
    expect(codeOf(() => parseYamlStrict('true: a\n"true": b\n'))).toBe('yaml_duplicate_key');
  });
  it('refuses the collision inside a nested mapping too', () => {
    expect(codeOf(() => parseYamlStrict('outer:\n  7: a\n  "7": b\n'))).toBe('yaml_duplicate_key');
  });
  it('refuses a collection used as a key and prints nothing of it', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      expect(codeOf(() => parseYamlStrict('? [SECRET-KEY-TEXT, b]\n: x\n'))).toBe('yaml_invalid');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
  it('still accepts plain distinct keys', () => {
    expect(parseYamlStrict('a: 1\nb: "2"\n')).toEqual({ a: 1, b: '2' });
  });
});

// End to end: a policy whose reviewer allowlist names `true` twice — once as a YAML bool key, once as
// a string key. A human (or any first-wins reader) sees the first entry; governed would pin and run
// the second, and the pinned digest would not cover the first (the `__proto__` precedent).
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { afterEach } from 'vitest';
import { cleanupDirs, errorOf, gov, makeWorld, policyDoc } from './state-helpers.js';

describe('governed init: a policy with colliding YAML keys', () => {
  afterEach(cleanupDirs);
  it('refuses `true:` and `"true":` in the reviewer allowlist (exit 2), creating nothing and printing no value', () => {
    const w = makeWorld();
    const doc = policyDoc(w.keys) as { stages: Record<string, { slots: Record<string, string> } | undefined>; reviewers: Record<string, unknown> };
    const [name, reviewer] = Object.entries(doc.reviewers)[0] as [string, { sha256: string }];
    doc.reviewers = { true: reviewer };
    for (const s of Object.values(doc.stages)) if (s) for (const k of Object.keys(s.slots)) s.slots[k] = 'true';
    expect(name).not.toBe('true');
    let text = stringify(doc, { aliasDuplicateObjects: false });
    const quoted = /^( +)"true":\n/m.exec(text);
    expect(quoted).not.toBeNull();
    const indent = (quoted as RegExpExecArray)[1] as string;
    // A first, bool-keyed entry with another reviewer digest, right before the string-keyed one.
    const shadow = `${indent}true:\n${indent}  sha256: "${'c'.repeat(64)}"\n${indent}  interpreter: /usr/bin/node\n${indent}  env: {}\n`;
    text = text.replace(`${indent}"true":\n`, `${shadow}${indent}"true":\n`);
    const file = join(w.dir, 'colliding-policy.yaml');
    writeFileSync(file, text);
    const r = gov(w, ['init', '--policy', file, '--trust', w.trustFile, '--json']);
    expect([r.code, errorOf(r).code]).toEqual([2, 'yaml_duplicate_key']);
    expect(existsSync(w.home)).toBe(false);
    expect(r.stdout + r.stderr).not.toContain('c'.repeat(64));
  });
});

describe('parseYamlStrict: an alias used as a key keeps its own code', () => {
  it('is refused as an alias, not as a collection key', () => {
    expect(codeOf(() => parseYamlStrict('a: &x k\n*x : v\n'))).toBe('yaml_alias_refused');
  });
});
