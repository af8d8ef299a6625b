// Checks over the full contract (development, test and integration bundles; docs/bundle.md#views: the
// `complete` view and the `implementation_test` role). These are the facts issuance cannot judge:
// issuance proves the contract is well-formed and that every changed path is covered
// (`contract_change_uncovered`, docs/contract.md#validation-rules), but not that the work it claims is real. Each check
// needs the sections named beside it and is skipped in a view that lacks them:
//
//   trace_gap       contract + current_files  a test/benchmark evidence item of a live directive
//                                             whose present files neither name nor import (directly
//                                             or through other visible files) any implementation
//                                             file of that directive (references.ts)
//   scope_omission  contract + changes        a `done` directive's implementation none of whose
//                                             paths changed against the baseline
//   test_gap        contract + changes        a live directive's implementation changed while none
//                                             of its evidence paths changed
//   evidence_gap    contract [+ current_files] a `done` directive with no evidence of its own (none
//                                             mapped, or only paths that are its implementation);
//                                             a `done` directive's evidence item with a file absent
//                                             from the workspace; with criterion tagging in use by
//                                             the directive's evidence, a criterion no evidence
//                                             file names
//   scope_omission  contract + changes        an `active` directive every one of whose target paths
//                                             was deleted (existed at the baseline, absent now)
//
// "Live" = active or done; deferred/superseded/abandoned directives are disposed by tombstones
// (docs/contract.md#validation-rules) and have nothing left to prove. docs/reviewers.md documents every rule.
import type { Change, FileEntry, Sections } from '../bundle.js';
import { compareUtf8 } from '../canonical.js';
import { finding, type Finding } from '../findings.js';
import { ReferenceGraph } from '../references.js';
import { malformed } from '../shape.js';

/** Evidence kinds that run code, and so must reference the code they test. */
const EXECUTABLE_EVIDENCE: ReadonlySet<string> = new Set(['test', 'benchmark']);

interface Item {
  readonly id: string;
  readonly paths: readonly string[];
}

export function contractFindings(s: Sections): Finding[] {
  const c = s.contract;
  if (c === undefined || c.form !== 'full') return [];
  const out: Finding[] = [];
  const implPaths = new Map(c.implementations.map((i) => [i.id, i.paths]));
  const evidence = new Map(c.evidence.map((e) => [e.id, e]));
  const files: ReadonlyMap<string, FileEntry> | null = s.current_files ? new Map(s.current_files.map((f) => [f.path, f])) : null;
  const changes: ReadonlyMap<string, Change> | null = s.changes ? new Map(s.changes.map((ch) => [ch.path, ch])) : null;
  const graph = s.current_files ? graphOf(s.current_files) : null;
  const present = (p: string): boolean => files?.get(p)?.present === true;

  for (const d of c.directives) {
    if (d.state !== 'active' && d.state !== 'done') continue;
    const done = d.state === 'done';
    // bundle.ts checked that every ID a directive names is defined.
    const impls: Item[] = d.implementations.map((id) => ({ id, paths: implPaths.get(id) ?? malformed() }));
    const ownImpl = new Set(impls.flatMap((i) => i.paths));
    // A directive's evidence is only the paths that are not its own implementation: a file is not
    // evidence for itself.
    const evs = d.evidence.map((id) => {
      const e = evidence.get(id) ?? malformed();
      return { id, kind: e.kind, paths: e.paths.filter((p) => !ownImpl.has(p)) };
    });
    const evPaths = evs.flatMap((e) => e.paths);

    if (graph !== null && ownImpl.size > 0) {
      for (const e of evs) {
        if (!EXECUTABLE_EVIDENCE.has(e.kind)) continue;
        const here = e.paths.filter(present);
        if (here.length > 0 && !graph.references(here, [...ownImpl])) out.push(finding('trace_gap', 'correctness', 'HIGH', [d.id, e.id]));
      }
    }

    if (changes !== null) {
      if (done) {
        for (const i of impls) {
          if (!i.paths.some((p) => changes.has(p))) out.push(finding('scope_omission', 'scope', 'HIGH', [d.id, i.id]));
        }
      }
      if (evPaths.length > 0 && !evPaths.some((p) => changes.has(p))) {
        for (const i of impls) {
          const changed = i.paths.filter((p) => changes.has(p)).sort(compareUtf8);
          const first = changed[0];
          if (first !== undefined) out.push(finding('test_gap', 'correctness', 'MEDIUM', [d.id, i.id, (changes.get(first) as Change).id]));
        }
      }
      if (!done) {
        const targetPaths = d.targets.flatMap((t) => t.paths);
        const deleted = (p: string): boolean => {
          const ch = changes.get(p);
          return ch !== undefined && ch.baseline !== null && ch.current === null;
        };
        if (targetPaths.length > 0 && targetPaths.every(deleted)) {
          out.push(finding('scope_omission', 'scope', 'HIGH', [d.id, ...d.targets.slice(0, 3).map((t) => t.id)]));
        }
      }
    }

    if (done) {
      if (evPaths.length === 0) out.push(finding('evidence_gap', 'correctness', 'HIGH', [d.id, ...d.criteria.slice(0, 3).map((x) => x.id)]));
      if (files !== null) {
        for (const e of evs) if (e.paths.some((p) => !present(p))) out.push(finding('evidence_gap', 'correctness', 'HIGH', [d.id, e.id]));
      }
      if (graph !== null) {
        const here = evPaths.filter(present);
        // Criterion tagging is a convention, not a rule: it is enforced for a directive only once
        // its own evidence names one of its criteria (then every criterion must be named).
        if (d.criteria.some((x) => graph.namesId(here, x.id))) {
          for (const x of d.criteria) if (!graph.namesId(here, x.id)) out.push(finding('evidence_gap', 'correctness', 'MEDIUM', [d.id, x.id]));
        }
      }
    }
  }
  return out;
}

function graphOf(entries: readonly FileEntry[]): ReferenceGraph {
  const decoder = new TextDecoder('utf-8'); // lossy on purpose: a binary file simply references nothing
  return new ReferenceGraph(entries.flatMap((f) => (f.present ? [{ path: f.path, text: decoder.decode(f.bytes) }] : [])));
}

