#!/usr/bin/env bash
# The provider at work through the real Terraform CLI on a local build: apply the quickstart,
# prove a second plan is empty, and show a bad threshold stopped at plan time.
# Run through `make demo`, which builds bin/terraform-provider-roce and bin/terraform first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
terraform="$root/bin/terraform"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "clusterbid/roce" = "$root/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
cp "$root"/examples/quickstart/*.tf "$work/"
cd "$work"

step() { printf '\n==> %s\n' "$*"; }

step "terraform apply (quickstart, local provider build)"
if ! "$terraform" apply -auto-approve -input=false -no-color >apply.txt 2>&1; then
	cat apply.txt
	echo "FAIL: apply" >&2
	exit 1
fi
grep -h "Apply complete" apply.txt

step "terraform output"
"$terraform" output -no-color

step "second plan must report no changes"
set +e
"$terraform" plan -detailed-exitcode -input=false -no-color >plan.txt 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
	cat plan.txt
	echo "FAIL: second plan exit code $rc (0 = no changes)" >&2
	exit 1
fi
grep -h "No changes" plan.txt

step "a PFC pause threshold at 5x ECN min is refused at plan time"
if "$terraform" plan -input=false -no-color -var pfc_pause_bytes=512000 >bad.txt 2>&1; then
	cat bad.txt
	echo "FAIL: the bad threshold was not refused" >&2
	exit 1
fi
sed -n '/precondition failed/,$p' bad.txt

printf '\ndemo: OK\n'
