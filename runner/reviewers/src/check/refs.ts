// Where a check's failure points (docs/reviewers.md#check-reviewers, severity and refs rules):
// a repository path the tool named becomes the IDs of the view whose paths hold it — evidence
// first, then implementations, then targets (an exact path, or a directory path above it) — at
// most four. A failure that names no mapped path (a crash of one test with no location, a summary
// exit status) refers to the view's directives instead (the first four, in ID order): what the
// contract says the change is for. Only IDs leave the adapter; the path itself never does.
import { compareUtf8 } from '../coverage/canonical.js';
import type { Bundle, FullContract } from '../coverage/bundle.js';
import { REVIEW_MAX_REFS as MAX_REFS } from '../../../../src/core/limits.js';

const covers = (owned: string, p: string): boolean => p === owned || p.startsWith(owned.endsWith('/') ? owned : `${owned}/`) || owned === '.';

export class RefMap {
  private readonly evidence: { id: string; paths: readonly string[] }[] = [];
  private readonly implementations: { id: string; paths: readonly string[] }[] = [];
  private readonly targets: { id: string; paths: readonly string[] }[] = [];
  private readonly directives: string[] = [];

  constructor(bundle: Bundle, visible: ReadonlySet<string>) {
    const c = bundle.sections.contract;
    if (c !== undefined && c.form === 'full') {
      const full = c as FullContract;
      for (const e of full.evidence) if (visible.has(e.id)) this.evidence.push(e);
      for (const i of full.implementations) if (visible.has(i.id)) this.implementations.push(i);
      for (const d of full.directives) {
        if (visible.has(d.id)) this.directives.push(d.id);
        for (const t of d.targets) if (visible.has(t.id) && !this.targets.some((x) => x.id === t.id)) this.targets.push(t);
      }
    } else if (c !== undefined) {
      for (const d of c.directives) {
        if (visible.has(d.id)) this.directives.push(d.id);
        for (const t of d.targets) if (visible.has(t.id) && !this.targets.some((x) => x.id === t.id)) this.targets.push(t);
      }
    }
    this.directives.sort(compareUtf8);
  }

  /** The refs of a failure at repository path `p` (null: no path known). Never empty when the view has a directive. */
  refsFor(p: string | null): string[] {
    const out: string[] = [];
    if (p !== null) {
      for (const group of [this.evidence, this.implementations, this.targets]) {
        const hits = group.filter((g) => g.paths.some((owned) => covers(owned, p))).map((g) => g.id).sort(compareUtf8);
        for (const id of hits) if (!out.includes(id) && out.length < MAX_REFS) out.push(id);
      }
    }
    if (out.length === 0) out.push(...this.directives.slice(0, MAX_REFS));
    return out;
  }
}
