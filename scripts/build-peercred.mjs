// Builds native/peercred.c into build/peercred.node (docs/security.md "How the daemon knows who is
// calling"): the C compiler and Node's own N-API headers, nothing downloaded. Run by `npm install`
// and `npm run build`. Without a compiler the build says so and `governed runnerd` refuses to
// start (runnerd_peercred_unavailable); every other command works without it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const headers = [join(dirname(dirname(process.execPath)), 'include', 'node'), '/usr/include/node'].find((d) => existsSync(join(d, 'node_api.h')));
const out = join(root, 'build', 'peercred.node');
if (headers === undefined) {
  process.stderr.write('build-peercred: node_api.h not found; governed runnerd will not start\n');
  process.exit(0);
}
mkdirSync(dirname(out), { recursive: true });
const r = spawnSync(
  process.env.CC || 'cc',
  ['-O2', '-Wall', '-Werror', '-shared', '-fPIC', '-DNODE_GYP_MODULE_NAME=peercred', `-I${headers}`, '-o', out, join(root, 'native', 'peercred.c')],
  { stdio: 'inherit' },
);
if (r.status !== 0) {
  process.stderr.write('build-peercred: the C compiler failed; governed runnerd will not start\n');
  process.exit(0);
}
