// Regenerates the committed filter files (never run at governed run time):
//   npx esbuild runner/seccomp/generate.ts --bundle --platform=node --format=esm --outfile=/tmp/gen.mjs
//   node /tmp/gen.mjs bpf > runner/seccomp/filter-x86_64.bpf
//   node /tmp/gen.mjs txt > runner/seccomp/filter-x86_64.txt
//   node /tmp/gen.mjs sha256   # paste into pinned.ts
// The relay profile's filter (AF_INET/AF_INET6 stream sockets too): a second argument `loopback-tcp`,
// into filter-tcp-x86_64.bpf / .txt and SECCOMP_TCP_X86_64_SHA256.
import { createHash } from 'node:crypto';
import { encodeProgram, disassemble } from './bpf.js';
import { buildFilterX86_64, syscallNames } from './filter.js';

const what = process.argv[2];
const insns = buildFilterX86_64(process.argv[3] === 'loopback-tcp' ? 'loopback-tcp' : 'unix');
const bytes = encodeProgram(insns);
if (what === 'bpf') process.stdout.write(bytes);
else if (what === 'txt') process.stdout.write(`${disassemble(insns, syscallNames()).join('\n')}\n`);
else if (what === 'sha256') process.stdout.write(`${createHash('sha256').update(bytes).digest('hex')}\n`);
else {
  process.stderr.write('usage: generate (bpf|txt|sha256)\n');
  process.exitCode = 2;
}
