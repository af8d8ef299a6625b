// The "Examples:" section of every command's --help (docs/commands.md#common-behaviour), in one
// table keyed by the command path, so that the command groups (./register/*.ts) stay wiring only
// and a new command is caught by test/cli-help-examples.test.ts until it has its line here. A
// command whose register module already adds its own "Example:" section (preservation *, unit
// dismiss*) is not repeated here. Placeholders are written as UNIT-…, CHL-…, REC-…, sha256:…
// (what the earlier command printed), never as real values.
import type { Command } from 'commander';

export const HELP_EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  keygen: ['governed keygen --credential reviewer --out keys/reviewer    # prints the key id for the trust root'],
  verify: [
    'governed verify receipts/*.json --trust trust.json --policy policy.yaml --json',
    'governed verify --vsa decision.vsa.json --trust trust.json --subject "$(git rev-parse HEAD)"',
    'governed verify receipt.json --trust trust.json --inclusion-proof receipt.proof.json --checkpoint cp.note',
    'governed verify record/probes/*.json --trust record/trust.json --contract preservation.yaml --policy policy.yaml',
  ],
  init: ['governed init --policy policies/default.yaml --trust keys.example/trust.yaml --home ./.governed'],
  'unit create': ['governed unit create --contract contract.yaml --baseline HEAD --json    # prints UNIT-…'],
  'unit bind': [
    'governed unit bind --unit UNIT-… --contract contract.v2.yaml --dry-run    # the diff and the state digests',
    'governed unit bind --unit UNIT-… --contract contract.v2.yaml --authority REC-…',
  ],
  'writer register': ['governed writer register --unit UNIT-… --writer-session agent-1    # host process: this shell'],
  'lease acquire': ['governed lease acquire --unit UNIT-… --writer-session agent-1 --ttl 30m    # prints LSE-…'],
  'lease release': ['governed lease release --lease LSE-… --writer-session agent-1'],
  'lease list': ['governed lease list --unit UNIT-… --json'],
  'authority request': [
    'governed authority request --operation authorize --unit UNIT-… --ids DIR-1 --contract contract.yaml --out request.json',
    'governed authority request --operation policy_update --document policy.v2.yaml --out request.json',
    'governed authority request --runner /run/governed/runnerd.sock --operation dismiss --unit UNIT-… --ids sha256:… --state-before sha256:… --out request.json',
  ],
  'authority sign': ['governed authority sign --request request.json --key authority.key --out record.json    # on the authority machine'],
  'authority record': [
    'governed authority record --record record.json    # prints REC-…',
    'governed authority record --runner /run/governed/runnerd.sock --record record.json    # the daemon verifies and records it',
  ],
  'policy update': [
    'governed policy update --policy policy.v2.yaml --authority REC-…',
    'governed policy update --runner /run/governed/runnerd.sock --policy policy.v2.yaml --authority REC-…',
  ],
  'trust update': [
    'governed trust update --trust trust.v2.yaml --authority REC-…',
    'governed trust update --runner /run/governed/runnerd.sock --trust trust.v2.yaml --authority REC-…',
  ],
  'review-challenge': ['governed review-challenge --unit UNIT-… --writer-session agent-1 --stage development --slot coverage --json'],
  'review-run': ['governed review-run --challenge CHL-… --attestors ./governed-setup/attestors --json'],
  'run reap': ['governed run reap --unit UNIT-…'],
  'receipt show': ['governed receipt show --receipt sha256:… --out receipt.json', 'governed receipt show --receipt sha256:… --json'],
  'sandbox profile': ['governed sandbox profile --bwrap /usr/bin/bwrap --json    # digests to paste into the policy'],
  status: ['governed status --unit UNIT-… --json'],
  gate: [
    'governed gate --unit UNIT-… --trust trust.json --policy-digest sha256:… --subject "$(git rev-parse HEAD)" \\',
    '  --attest decision.vsa.json --export deploy-record --json',
    'governed gate --runner /run/governed/runnerd.sock --unit UNIT-… --trust trust.json --policy-digest sha256:… --subject "$(git rev-parse HEAD)"',
    'governed gate --runner /run/governed/runnerd.sock --runner-checkpoint last.note --runner-checkpoint-out next.note --unit UNIT-… --trust trust.json --policy-digest sha256:… --subject "$(git rev-parse HEAD)"',
  ],
  'audit verify': [
    'governed audit verify --json',
    'governed audit verify --trust auditor-trust.json --checkpoint cp-monday.note cp-friday.note',
    'governed audit verify --export ./audit-export --json    # no store needed',
    'governed audit verify --trust T.json --checkpoint cp-mon1.note cp-mon2.note --inclusion-proof r.proof.json --receipt sha256:… \\',
    '    --consistency-proof week.proof.json    # proofs only, no log',
    'governed audit verify --state ~/.audit-state --state-key auditor.pem --json    # only the entries since the last clean audit',
  ],
  'audit checkpoint': ['governed audit checkpoint --out cp-$(date +%F).note    # then copy it off this machine'],
  'audit prove': [
    'governed audit prove --receipt sha256:… --checkpoint cp.note --out receipt.proof.json',
    'governed audit prove --from cp-monday.note --to cp-friday.note --out week.proof.json',
  ],
  'audit cosign': [
    'governed audit cosign --checkpoint cp.note --log-key "$LOG_VKEY" --key witness.pem --name witness.example \\',
    '  --state witness.state --proof week.proof.json --out cp.cosigned.note',
  ],
  'audit export': ['governed audit export --out ./audit-export    # then: governed audit verify --export ./audit-export'],
  'review-pass': [
    'governed review-pass --stage development --light --json    # advisory, non-governed',
    'governed review-pass --stage development --unit UNIT-… --writer-session agent-1 --attestors ./governed-setup/attestors',
  ],
  'runnerd setup': [
    'sudo governed runnerd setup --writers agents --policy policy.yaml --trust trust.json --json',
    'sudo governed runnerd setup --writers agents --key log=log.pem --log-origin ci.example.com/governed    # the daemon\'s checkpoint key',
  ],
  'runnerd serve': ['sudo governed runnerd serve --writers agents --max-runs 2'],
  'runnerd doctor': ['governed runnerd doctor --writers agents --json'],
  'runnerd hello': ['governed runnerd hello --runner /run/governed/runnerd.sock --json'],
  'runnerd sandbox-host': ['governed runnerd sandbox-host < jobs.jsonl   # what runnerd serve starts under the sandbox uid; not run by hand'],
  setup: ['governed setup --out ./governed-setup --home ./.governed', 'governed setup --out ./governed-setup --policy-template strict --json'],
  doctor: ['governed doctor --dir ./governed-setup --home ./.governed --json', 'sudo governed doctor --runnerd /var/lib/governed --writers agents'],
  'contract init': ['governed contract init --source requests/export.md --atoms line --out contract.yaml'],
  'completion bash': ['source <(governed completion bash)', 'governed completion bash > /etc/bash_completion.d/governed'],
  'completion zsh': ['governed completion zsh > "${fpath[1]}/_governed"', 'source <(governed completion zsh)'],
};

interface HelpNode {
  readonly commands: readonly HelpNode[];
  name(): string;
  addHelpText(position: 'after', text: string): unknown;
}

/** The command paths of every leaf under `program` ("unit create", "gate", …), in declaration order. */
export function leafPaths(program: HelpNode): string[] {
  const out: string[] = [];
  const walk = (c: HelpNode, path: readonly string[]): void => {
    if (c.commands.length === 0 && path.length > 0) out.push(path.join(' '));
    for (const s of c.commands) walk(s, [...path, s.name()]);
  };
  walk(program, []);
  return out;
}

/** Add each table entry as the "Examples:" section after its command's help. */
export function addHelpExamples(program: Command): void {
  const walk = (c: HelpNode, path: readonly string[]): void => {
    const lines = HELP_EXAMPLES[path.join(' ')];
    if (lines !== undefined && c.commands.length === 0) c.addHelpText('after', `\nExamples:\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
    for (const s of c.commands) walk(s, [...path, s.name()]);
  };
  walk(program as unknown as HelpNode, []);
}
