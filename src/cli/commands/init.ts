import { homeGitWarning, initFlow } from '../../flows/init.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { InitOutput } from '../../core/command-output-records.js';

export async function initCommand(opts: { policy: string; trust: string; home?: string }): Promise<CommandResult> {
  const r = initFlow({ home: resolveHome(opts.home), policyFile: opts.policy, trustFile: opts.trust, now: Math.floor(Date.now() / 1000) });
  const warning = await homeGitWarning(r.home);
  if (warning !== null) {
    process.stderr.write(
      `governed: warning ${warning}: the state directory is inside a git repository that does not ignore it; \`git add -A\` would commit the store, and gate refuses a subject that tracks it (add it to .gitignore)\n`,
    );
  }
  return {
    exit: 0,
    json: {
      ok: true,
      home: r.home,
      policy_digest: r.policyDigest,
      trust_digest: r.trustDigest,
      trust_mode: r.trustMode as InitOutput['trust_mode'],
      accept_co_located: r.acceptCoLocated,
      warnings: warning === null ? [] : [warning],
    } satisfies InitOutput,
    human: `initialised ${r.home}\n  policy ${r.policyDigest}\n  trust  ${r.trustDigest}\n  trust mode ${r.trustMode}${r.acceptCoLocated ? '' : ' (not accepted for release by this policy)'}`,
  };
}
