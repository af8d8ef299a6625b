// governed's project and probe adapter for Node/TypeScript packages (docs/preservation.md#the-node-adapter).
// A single self-contained program (node builtins only), pinned by its sha256 in the policy
// (preservation_adapters.sha256) and run by governed in the check sandbox: the sealed snapshot is
// read-only at /snapshot, its dependency root at /snapshot/node_modules, no network, /tmp scratch.
// Input: the request at $GOVERNED_BUNDLE. Output: ONE closed JSON object on stdout (the protocol of
// src/core/preservation/probe.ts); nothing else is printed. Exit 0 when it produced that object.
// One run probes every requested entry (each in its own child process), in request order; an entry
// the package does not have is reported with exit 127.
//
//   inventory: package.json `bin` commands (cli_command), `exports` entry points (or `main`) as
//              library_export, and the lifecycle scripts that run on a consumer's install
//              (preinstall, install, postinstall) as package_target.
//   probe:     bin:NAME     runs `node <bin> --help` (the real entry); capabilities = the subcommands
//                           its help lists under a "Commands:" heading and every --option it names.
//              export:SUB   imports the entry point in a child node; capabilities = its export names.
//              script:NAME  NOT executed (an install hook has side effects): reports whether the
//                           script is still defined (exit 0, capability `defined`) or not (exit 1).
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { pathToFileURL } from 'node:url';

const ROOT = '/snapshot';
const SHIPPED_SCRIPTS = ['preinstall', 'install', 'postinstall'];
const CAP_RE = /^[A-Za-z0-9_$.:@/-]{1,128}$/;
const sha = (b) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const out = (v) => {
  process.stdout.write(JSON.stringify(v));
  process.exit(0);
};
const die = (code) => {
  process.stderr.write(`adapter:${code}\n`);
  process.exit(2);
};

let req;
let pkg;
try {
  req = JSON.parse(readFileSync(process.env.GOVERNED_BUNDLE, 'utf8'));
} catch {
  die('request');
}
try {
  pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8'));
} catch {
  pkg = null;
}
const isObj = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function bins(p) {
  if (!isObj(p)) return {};
  if (typeof p.bin === 'string' && typeof p.name === 'string') return { [p.name.replace(/^@[^/]+\//, '')]: p.bin };
  if (isObj(p.bin)) return Object.fromEntries(Object.entries(p.bin).filter(([, v]) => typeof v === 'string'));
  return {};
}

function target(v) {
  if (typeof v === 'string') return v;
  if (isObj(v)) for (const k of ['import', 'node', 'default', 'require']) if (k in v) { const t = target(v[k]); if (t !== null) return t; }
  return null;
}

function exportsMap(p) {
  if (!isObj(p)) return {};
  const e = p.exports;
  if (typeof e === 'string') return { '.': e };
  if (isObj(e)) {
    const keys = Object.keys(e);
    if (keys.length > 0 && keys.every((k) => k.startsWith('.'))) {
      const m = {};
      for (const k of keys) { const t = target(e[k]); if (t !== null && !k.includes('*')) m[k] = t; }
      return m;
    }
    const t = target(e);
    return t === null ? {} : { '.': t };
  }
  if (typeof p.main === 'string') return { '.': p.main };
  return {};
}

function shippedScripts(p) {
  if (!isObj(p) || !isObj(p.scripts)) return [];
  return SHIPPED_SCRIPTS.filter((s) => typeof p.scripts[s] === 'string');
}

const safePath = (rel) => typeof rel === 'string' && !rel.startsWith('/') && !rel.split('/').includes('..');
const caps = (xs) => [...new Set(xs.filter((x) => CAP_RE.test(x)))].sort();

if (req.mode === 'inventory') {
  const surfaces = [
    ...Object.keys(bins(pkg)).map((n) => ({ entry: `bin:${n}`, kind: 'cli_command' })),
    ...Object.keys(exportsMap(pkg)).map((k) => ({ entry: `export:${k}`, kind: 'library_export' })),
    ...shippedScripts(pkg).map((s) => ({ entry: `script:${s}`, kind: 'package_target' })),
  ].filter((s) => /^[a-z]+:[\x21-\x7e]{1,250}$/.test(s.entry));
  out({ kind: 'governed/surface-inventory', version: 1, surfaces });
}

if (req.mode !== 'probe' || !Array.isArray(req.entries) || !req.entries.every((e) => typeof e === 'string' && e.includes(':'))) die('request');
const env = { PATH: '/usr/bin:/bin', HOME: '/tmp', TMPDIR: '/tmp', LANG: 'C.UTF-8', NO_COLOR: '1' };
const status = (r) => (r.status !== null ? Math.min(r.status, 255) : 255);
out({ kind: 'governed/probe-results', version: 1, results: req.entries.map(probeOne) });

function probeOne(entry) {
const colon = entry.indexOf(':');
const type = entry.slice(0, colon);
const name = entry.slice(colon + 1);
const result = (exit, capabilities, bytes) => ({ kind: 'governed/probe-result', version: 1, entry, exit_code: exit, capabilities, output_digest: sha(bytes) });

if (type === 'bin') {
  const rel = bins(pkg)[name];
  if (!safePath(rel)) return result(127, [], Buffer.alloc(0));
  const r = spawnSync(process.execPath, [`${ROOT}/${rel}`, '--help'], { cwd: ROOT, env, timeout: 20_000, maxBuffer: 1 << 20 });
  const text = (r.stdout ?? Buffer.alloc(0)).toString('utf8');
  const found = [];
  let inCommands = false;
  for (const line of text.split('\n')) {
    if (/^\s*commands:\s*$/i.test(line)) { inCommands = true; continue; }
    if (inCommands) {
      const m = /^\s{2,}([a-z][a-z0-9-]*)\b/.exec(line);
      if (m) found.push(`command:${m[1]}`);
      else if (line.trim() === '' || !/^\s/.test(line)) inCommands = false;
    }
    for (const o of line.matchAll(/(?:^|\s)(--[a-z][a-z0-9-]*)/g)) found.push(`option:${o[1]}`);
  }
  return result(status(r), caps(found), r.stdout ?? Buffer.alloc(0));
}

if (type === 'export') {
  const rel = exportsMap(pkg)[name];
  if (!safePath(rel)) return result(127, [], Buffer.alloc(0));
  const url = pathToFileURL(`${ROOT}/${rel.replace(/^\.\//, '')}`).href;
  const code = `const m = await import(${JSON.stringify(url)}); process.stdout.write(JSON.stringify(Object.keys(m).sort()));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, env, timeout: 20_000, maxBuffer: 1 << 20 });
  let names = [];
  try {
    const v = JSON.parse((r.stdout ?? Buffer.alloc(0)).toString('utf8'));
    if (Array.isArray(v)) names = v.filter((x) => typeof x === 'string').map((x) => `export:${x}`);
  } catch {
    names = [];
  }
  return result(status(r), caps(names), r.stdout ?? Buffer.alloc(0));
}

if (type === 'script') {
  const defined = shippedScripts(pkg).includes(name);
  return result(defined ? 0 : 1, defined ? ['defined'] : [], Buffer.from(defined ? pkg.scripts[name] : ''));
}

return result(127, [], Buffer.alloc(0));
}
