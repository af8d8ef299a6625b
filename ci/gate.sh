#!/usr/bin/env bash
# The deploy gate as a CI step (docs/ci.md): the one script behind action.yml and the GitLab
# template. Inputs come from the environment (never interpolated into the command line by the CI
# system); the decision object is printed; `decision` and `exit` are appended to $GITHUB_OUTPUT when
# it is set (GitHub Actions) and to ./governed-gate.env otherwise (a GitLab dotenv report).
# Exit status: the gate's own (0 only for ALLOW).
set -uo pipefail

: "${INPUT_UNIT:?unit is required}"
: "${INPUT_TRUST:?trust is required}"
: "${INPUT_POLICY_DIGEST:?policy-digest is required}"
: "${INPUT_SUBJECT:?subject is required}"
GOVERNED=${GOVERNED_COMMAND:-npx --no-install governed}

args=(gate --unit "$INPUT_UNIT" --trust "$INPUT_TRUST" --policy-digest "$INPUT_POLICY_DIGEST" --subject "$INPUT_SUBJECT" --json)
[ -n "${INPUT_HOME:-}" ] && args+=(--home "$INPUT_HOME")
[ -n "${INPUT_REPO:-}" ] && args+=(--repo "$INPUT_REPO")
[ -n "${INPUT_ATTEST:-}" ] && args+=(--attest "$INPUT_ATTEST")
[ -n "${INPUT_ATTESTOR_CONFIG:-}" ] && args+=(--attestor-config "$INPUT_ATTESTOR_CONFIG")

# shellcheck disable=SC2086 # GOVERNED is a command with its arguments
out=$($GOVERNED "${args[@]}")
code=$?
printf '%s\n' "$out"
decision=$(printf '%s' "$out" | node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>{try{const d=JSON.parse(s.trim().split("\n").pop());process.stdout.write(d.decision==="ALLOW"?"ALLOW":"DENY")}catch{process.stdout.write("DENY")}})')
target=${GITHUB_OUTPUT:-governed-gate.env}
{
  echo "decision=$decision"
  echo "exit=$code"
} >>"$target"
exit "$code"
