// `governed preservation correct --unit U --file F` (docs/preservation.md#incident-history): the writer
// appends a correction to the unit's incident history. The correction's exact bytes are logged
// (`incident_correction`) and the bound preservation contract is re-bound with the history assembled
// after it, in one transaction; the planning state changes with it.
import { sha256Digest } from '../../core/canonical.js';
import { fail } from '../../core/errors.js';
import { closeStore, getUnit, mutate, openStore } from '../../store/index.js';
import { bindPreservationIn, getPreservation, recordCorrectionIn } from '../../store/preservation.js';
import { utf8OrNull } from '../../core/utf8.js';
import { readInputFile } from '../read-input.js';
import { PRESERVATION_CORRECTION_MAX_BYTES } from '../../core/limits.js';

export const MAX_CORRECTION_BYTES = PRESERVATION_CORRECTION_MAX_BYTES;

export function correctIncidentFlow(args: { home: string; unit: string; file: string; now: number }): {
  unit: string;
  correctionDigest: string;
  version: number;
  incidentHistory: string;
} {
  const store = openStore(args.home);
  try {
    const unit = getUnit(store.db, args.unit);
    const bytes = readInputFile(args.file, MAX_CORRECTION_BYTES);
    if (utf8OrNull(bytes) === null) fail('incident_correction_invalid', []);
    if (bytes.length === 0) fail('incident_correction_invalid', []);
    const digest = sha256Digest(bytes);
    return mutate(store, args.now, (tx) => {
      const bound = getPreservation(tx.db, unit.unitId);
      if (bound === null) fail('preservation_not_bound', [unit.unitId]);
      recordCorrectionIn(tx, unit.unitId, bytes, digest);
      const b = bindPreservationIn(tx, {
        unit: unit.unitId,
        contractBytes: bound.contractBytes,
        contractDigest: bound.contractDigest,
        authorities: [],
        noIncidentHistory: false,
      });
      return { unit: unit.unitId, correctionDigest: digest, version: b.version, incidentHistory: b.incidentHistory };
    });
  } finally {
    closeStore(store);
  }
}
