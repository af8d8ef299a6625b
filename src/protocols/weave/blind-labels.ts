// Blind Judging Protocol, "Step 1: Randomize Labels" (weave-review.txt Phase 4): "Assign random
// labels (Response A, Response B, Response C) to the model outputs. Use a random permutation — do
// not always assign Claude to A. Record the mapping". Randomness is a parameter (pure module): the
// caller passes at least 16 random bytes; the same bytes always give the same map, so a recorded
// seed reproduces the recorded label-map.json.
import { sha256 } from '@noble/hashes/sha2.js';
import { fail } from '../../core/errors.js';

export const MIN_SEED_BYTES = 16;
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** An endless, deterministic byte stream: SHA-256(seed ‖ counter_be32) blocks. */
function byteStream(seed: Uint8Array): () => number {
  let block = new Uint8Array(0);
  let pos = 0;
  let counter = 0;
  return () => {
    if (pos >= block.length) {
      const input = new Uint8Array(seed.length + 4);
      input.set(seed, 0);
      new DataView(input.buffer).setUint32(seed.length, counter++);
      block = sha256(input);
      pos = 0;
    }
    return block[pos++] as number;
  };
}

/** Uniform integer in [0, n) by rejection sampling over 32-bit draws (no modulo bias). */
function uniformBelow(n: number, next: () => number): number {
  const limit = Math.floor(0x1_0000_0000 / n) * n;
  for (;;) {
    const u = ((next() << 24) | (next() << 16) | (next() << 8) | next()) >>> 0;
    if (u < limit) return u % n;
  }
}

/** Label letter → participant, in label order (A, B, ...). */
export type LabelMap = Readonly<Record<string, string>>;

export function assignBlindLabels(participants: readonly string[], seed: Uint8Array): LabelMap {
  if (seed.length < MIN_SEED_BYTES) fail('weave_label_seed_too_short', ['label_seed']);
  if (participants.length > LETTERS.length) fail('weave_too_many_participants', ['lanes']);
  if (new Set(participants).size !== participants.length) fail('weave_participant_duplicate', ['lanes']);
  const perm = [...participants];
  const next = byteStream(seed);
  // Fisher–Yates: every permutation equally likely given uniform draws.
  for (let i = perm.length - 1; i > 0; i--) {
    const j = uniformBelow(i + 1, next);
    const t = perm[i] as string;
    perm[i] = perm[j] as string;
    perm[j] = t;
  }
  const map: Record<string, string> = {};
  perm.forEach((p, i) => {
    map[LETTERS[i] as string] = p;
  });
  return map;
}
