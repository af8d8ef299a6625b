// A private npm cache holding exactly this checkout's installed production dependency tree, so that
// a test can install the packed tarball with `npm install --offline` the way a user's project would
// (npm resolves governed's pinned dependencies, checks each tarball's integrity, lays out
// node_modules and links the `governed` bin), with nothing downloaded.
//
// How: each installed production package (`npm ls --omit=dev --all`) is tarred from node_modules and
// served, with a packument made from its package.json, by a registry on loopback that lives only
// while `npm cache add` fills the private cache; then the registry is closed. Any install after that
// can be satisfied from the cache alone (`--offline`), and a package npm asks for that is not in the
// tree is a 404 the helper reports.
//
// A package with a native addon (binding.gyp: better-sqlite3) ships the addon this checkout already
// compiled (build/Release/*.node) instead of its C sources, like a prebuilt binary; the install runs
// with --ignore-scripts, because better-sqlite3's install script would try to download one.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface Manifest {
  readonly name: string;
  readonly version: string;
  readonly [k: string]: unknown;
}

export interface OfflineNpm {
  /** Environment for every npm call against the private cache (private configs and HOME). */
  readonly env: Record<string, string>;
  /** `name@version` of every package in the cache. */
  readonly specs: readonly string[];
  /** The closed registry's URL: the cache is keyed by it, so installs must name it. */
  readonly registry: string;
  /** Requests the registry could not answer (a dependency missing from the tree). */
  readonly missing: readonly string[];
}

/** The installed production dependency tree of `repoRoot`, one entry per name@version. */
function productionTree(paths: string): Map<string, { dir: string; manifest: Manifest }> {
  const tree = new Map<string, { dir: string; manifest: Manifest }>();
  for (const dir of paths.split('\n').slice(1)) {
    if (dir === '') continue;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Manifest;
    const key = `${manifest.name}@${manifest.version}`;
    if (!tree.has(key)) tree.set(key, { dir, manifest });
  }
  return tree;
}

async function tarPackage(dir: string, out: string): Promise<void> {
  const native = existsSync(join(dir, 'binding.gyp'));
  const entries = readdirSync(dir).filter((n) => n !== 'node_modules' && !(native && ['build', 'deps', 'src'].includes(n)));
  if (native) {
    const release = join(dir, 'build', 'Release');
    for (const n of readdirSync(release)) if (n.endsWith('.node')) entries.push(join('build', 'Release', n));
  }
  await run('tar', ['-czf', out, '--owner=0', '--group=0', '--numeric-owner', '--transform=s,^,package/,', '-C', dir, ...entries]);
}

/** Build the cache in `dir` (which the caller removes). */
export async function buildOfflineNpmCache(repoRoot: string, dir: string): Promise<OfflineNpm> {
  const { stdout } = await run('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: repoRoot, encoding: 'utf8', maxBuffer: 1 << 24 });
  const tree = productionTree(stdout);
  const tgz = join(dir, 'tarballs');
  mkdirSync(tgz, { recursive: true });
  const tarballs = new Map<string, { file: string; bytes: Buffer; manifest: Manifest }>();
  const queue = [...tree.entries()];
  await Promise.all(
    [0, 1, 2, 3].map(async () => {
      for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
        const [key, { dir: pkgDir, manifest }] = next;
        const file = `${manifest.name.replace('/', '-')}-${manifest.version}.tgz`;
        await tarPackage(pkgDir, join(tgz, file));
        tarballs.set(key, { file, bytes: readFileSync(join(tgz, file)), manifest });
      }
    }),
  );

  const missing: string[] = [];
  let base = '';
  const server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0] ?? '/');
    if (path.startsWith('/-/tarballs/')) {
      const t = [...tarballs.values()].find((x) => x.file === path.slice('/-/tarballs/'.length));
      if (t === undefined) {
        missing.push(path);
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(t.bytes);
      return;
    }
    const name = path.slice(1);
    const versions = [...tarballs.values()].filter((t) => t.manifest.name === name);
    if (versions.length === 0) {
      missing.push(path);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    const doc = {
      name,
      'dist-tags': { latest: versions[versions.length - 1]?.manifest.version },
      versions: Object.fromEntries(
        versions.map(({ manifest: m, file, bytes }) => [
          m.version,
          {
            ...Object.fromEntries(
              ['name', 'version', 'dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines', 'os', 'cpu', 'scripts']
                .filter((k) => m[k] !== undefined)
                .map((k) => [k, m[k]]),
            ),
            dist: {
              tarball: `${base}-/tarballs/${file}`,
              integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
              shasum: createHash('sha1').update(bytes).digest('hex'),
            },
          },
        ]),
      ),
    };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  // Private configuration: nothing from the machine's npmrc files, HOME inside `dir`.
  writeFileSync(join(dir, 'user.npmrc'), '');
  writeFileSync(join(dir, 'global.npmrc'), '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: dir,
    npm_config_userconfig: join(dir, 'user.npmrc'),
    npm_config_globalconfig: join(dir, 'global.npmrc'),
    npm_config_cache: join(dir, 'cache'),
    npm_config_registry: base,
    npm_config_update_notifier: 'false',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_loglevel: 'error',
  };
  const specs = [...tarballs.keys()].sort();
  try {
    await run('npm', ['cache', 'add', ...specs], { cwd: dir, env, encoding: 'utf8' });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
  return { env, specs, registry: base, missing };
}
