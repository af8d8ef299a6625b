import { setupFlow } from '../../flows/setup/setup.js';
import { resolveHome } from '../options.js';
import type { CommandResult } from '../output.js';
import type { SetupOutput } from '../../core/command-output-records.js';

export async function setupCommand(opts: { out: string; policyTemplate: string; init: boolean; waivePreservation?: string; bwrap?: string; reviewersDir?: string; home?: string }): Promise<CommandResult> {
  const home = resolveHome(opts.home);
  const r = await setupFlow({
    out: opts.out,
    home,
    template: opts.policyTemplate,
    init: opts.init,
    preservationWaiver: opts.waivePreservation,
    now: Math.floor(Date.now() / 1000),
    bwrapPath: opts.bwrap,
    reviewersDir: opts.reviewersDir,
  });
  const gateLine = `governed gate --home ${r.home} --unit <UNIT> --trust ${r.trustFile} --policy-digest ${r.policyDigest} --subject <COMMIT> --attest decision.vsa.json --attestor-config ${r.gateConfig}`;
  const reviewLine = `governed review-run --home ${r.home} --challenge <CHALLENGE> --attestors ${r.attestorsDir}`;
  const human = [
    r.changed ? `set up ${r.dir}` : `already set up: ${r.dir} (nothing changed)`,
    ...r.files.map((f) => `  ${f.action === 'created' ? 'made' : 'kept'} ${f.path}`),
    `  init ${r.init === 'created' ? `initialised ${r.home}` : r.init === 'kept' ? `kept ${r.home} (already pins this policy and trust root)` : 'skipped (--no-init)'}`,
    `  trust root valid until ${r.trustExpires}`,
    `policy digest ${r.policyDigest}`,
    '',
    'review (the writer side):',
    `  ${reviewLine}`,
    'gate (the deploy side):',
    `  ${gateLine}`,
  ].join('\n');
  return {
    exit: 0,
    json: {
      ok: true,
      command: 'setup',
      dir: r.dir,
      home: r.home,
      changed: r.changed,
      files: r.files,
      init: r.init,
      key_ids: r.keyIds,
      policy_digest: r.policyDigest,
      trust_digest: r.trustDigest,
      trust_expires: r.trustExpires,
      policy: r.policyFile,
      trust: r.trustFile,
      attestors: r.attestorsDir,
      gate_attestor_config: r.gateConfig,
      gate_line: gateLine,
      review_line: reviewLine,
    } satisfies SetupOutput,
    human,
  };
}
