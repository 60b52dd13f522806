#!/usr/bin/env bash
# The provider at work through the real Terraform CLI on a local build, against twins of the
# hardware: start a SONiC and a Cumulus leaf twin and 4 ConnectX-7 GPU host twins (8 NICs each; two Debian 12,
# two Rocky Linux 9.6, the package family left to the provider to find), apply
# examples/demo (which calls examples/modules/rail-optimized-pod; the SONiC leaf and the first
# host are its canary, whose fabric health gates the rest), print what was configured where,
# prove a second plan is empty, show bad thresholds refused at plan time, stage a threshold
# change that an unhealthy canary holds and a healthy one lets through, and stop the twins. Needs Linux and root (the host twins are sshd servers in mount namespaces).
# Run through `make demo`, which builds bin/terraform-provider-roce, bin/roce-twin and
# bin/terraform first. Everything else lives in a temporary directory removed on exit.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
terraform="$root/bin/terraform"
roce_twin="$root/bin/roce-twin"
command -v go >/dev/null || PATH="/usr/local/go/bin:$PATH"

start=$SECONDS
step() { printf '\n==> %s\n' "$*"; }
fail() {
	echo "FAIL: $*" >&2
	exit 1
}
# show prints the end of a log without the CONFIG_DB operation lists, which run to hundreds of
# lines per switch.
show() { grep -v 'CONFIG_DB/' "$1" | tail -n "${2:-60}"; }

[ "$(id -u)" -eq 0 ] || fail "run as root: the host twins are OpenSSH servers in their own mount namespaces"
[ -x /usr/sbin/sshd ] || fail "/usr/sbin/sshd is missing: make sshd installs openssh-server"
for f in "$terraform" "$root/bin/terraform-provider-roce"; do
	[ -x "$f" ] || fail "$f is missing: run make demo"
done
if [ ! -x "$roce_twin" ]; then
	go build -o "$roce_twin" "$root/tools/roce-twin"
fi

work=$(mktemp -d /tmp/roce-demo.XXXXXX)
fabric="$work/fabric"
cleanup() {
	rc=$?
	if [ -e "$fabric" ]; then
		"$roce_twin" down --state-dir "$fabric" >/dev/null 2>&1 || {
			echo "WARN: roce-twin down failed; see $fabric/roce-twin.log" >&2
			exit "$((rc == 0 ? 1 : rc))"
		}
	fi
	rm -rf "$work"
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

cat >"$work/terraformrc" <<RC
provider_installation {
  dev_overrides {
    "clusterbid/roce" = "$root/bin"
  }
  direct {}
}
RC
export TF_CLI_CONFIG_FILE="$work/terraformrc" TF_IN_AUTOMATION=1 CHECKPOINT_DISABLE=1
# The configuration is copied with the module it calls (../modules/...), so the state, the
# .terraform directory and the variables stay in the temporary directory.
mkdir -p "$work/examples/modules"
cp -R "$root/examples/demo" "$work/examples/demo"
cp -R "$root/examples/modules/rail-optimized-pod" "$work/examples/modules/rail-optimized-pod"
rm -rf "$work"/examples/*/.terraform* "$work"/examples/*/terraform.tfstate* "$work"/examples/*/terraform.tfvars*
demo="$work/examples/demo"
tf() { "$terraform" -chdir="$demo" "$@" -no-color; }

step "roce-twin up: a SONiC leaf twin (gNMI) and a Cumulus leaf twin (NVUE), 16 RoCE downlinks each, 4 ConnectX-7 GPU host twins (Debian 12 and Rocky 9.6 in turn)"
if ! "$roce_twin" up --state-dir "$fabric" --switches 2 --switch-os sonic,cumulus --ports 16 --hosts 4 --profile cx7,rocky9 \
	--tfvars "$demo/terraform.tfvars.json" >"$work/up.txt" 2>&1; then
	cat "$work/up.txt"
	tail -n 40 "$fabric/roce-twin.log" 2>/dev/null || true
	fail "roce-twin up"
fi
cat "$work/up.txt"

# terraform init would ask the registry for clusterbid/roce, which dev_overrides replaces; the
# only thing to install is the local module, and terraform get does exactly that, offline.
step "terraform get (installs the local module; the provider comes from dev_overrides)"
tf get >"$work/get.txt" 2>&1 || {
	cat "$work/get.txt"
	fail "terraform get"
}
grep -h '^- ' "$work/get.txt" || true

step "terraform apply (examples/demo -> examples/modules/rail-optimized-pod; leaf1 and gpu1 are the canary, ungated on a first build)"
t=$SECONDS
if ! tf apply -auto-approve -input=false >"$work/apply.txt" 2>&1; then
	show "$work/apply.txt" 80
	fail "apply"
fi
grep -h "Apply complete" "$work/apply.txt"
echo "($((SECONDS - t)) s)"

step "what was configured where"
tf output -raw summary
echo
[ "$(tf output -raw preflight_ok)" = true ] || fail "GPUDirect pre-flight failed on some host (see above)"

step "second plan must report no changes"
t=$SECONDS
set +e
tf plan -detailed-exitcode -input=false >"$work/plan.txt" 2>&1
rc=$?
set -e
if [ "$rc" -ne 0 ]; then
	show "$work/plan.txt" 80
	fail "second plan exit code $rc (0 = no changes)"
fi
grep -h "No changes" "$work/plan.txt"
echo "($((SECONDS - t)) s)"

step "a PFC pause threshold at 5x ECN min is refused at plan time, before any switch is touched"
if tf plan -refresh=false -input=false -var pfc_pause_threshold_bytes=512000 >"$work/bad.txt" 2>&1; then
	show "$work/bad.txt"
	fail "the bad threshold was not refused"
fi
grep -q 'Resource precondition failed' "$work/bad.txt" || {
	show "$work/bad.txt"
	fail "the bad threshold was refused, but not by the module's precondition"
}
echo "Error: Resource precondition failed (module.pod.roce_switch_qos, provider::roce::ecn_pfc_findings):"
awk '/^error: /{p=1} p&&/^$/{exit} p' "$work/bad.txt"

# The twins carry RoCE traffic on priority 3 over the SONiC leaf's cables (roce-twin traffic
# lists them); the checks sample it.
checks='checks={fabric_health=true,interval_seconds=3,nccl_test=true,min_busbw_gbps=300,mpi_args=["--allow-run-as-root"]}'
step "fabric health and an NCCL all_reduce_perf across the 4 hosts (the module's checks, on the live traffic)"
t=$SECONDS
if ! tf apply -auto-approve -input=false -var "$checks" >"$work/checks.txt" 2>&1; then
	show "$work/checks.txt" 80
	fail "refresh with the checks"
fi
tf output -json fabric_health >"$work/health.json"
tf output -json nccl_test >"$work/nccl.json"
python3 - "$work/health.json" "$work/nccl.json" <<'PY'
import json, sys
h, n = (json.load(open(p)) for p in sys.argv[1:])
print(f"fabric health: ok={h['ok']} over {h['seconds']:.1f} s" + "".join("\n  " + f for f in h["failures"]))
print(f"NCCL test: ok={n['ok']} bus bandwidth {n['busbw_gbps']:.1f} GB/s over {n['network']}" + "".join("\n  " + f for f in n["failures"]))
PY
echo "($((SECONDS - t)) s)"
[ "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["ok"])' "$work/health.json")" = True ] || fail "the fabric is not healthy on a correct configuration"

step "break DCQCN's notification point on one NIC of gpu1: the check names it"
"$roce_twin" traffic --state-dir "$fabric" | head -n 4
read -r _ host rdma netdev < <("$roce_twin" traffic --state-dir "$fabric" | grep -m1 $'\tgpu1 ' | tr '\t' ' ')
netdev=${netdev#(}
netdev=${netdev%)}
python3 - "$fabric/endpoints.json" "$host" "$netdev" <<'PY' >"$work/ssh.txt"
import json, sys
ep = json.load(open(sys.argv[1]))
h = next(x for x in ep["hosts"] if x["name"] == sys.argv[2])
print(h["port"], h["private_key_file"], h["known_hosts_file"])
PY
read -r port key known <"$work/ssh.txt"
ssh -q -p "$port" -i "$key" -o UserKnownHostsFile="$known" -o BatchMode=yes root@127.0.0.1 \
	"echo 0 > /sys/class/net/$netdev/ecn/roce_np/enable/3"
echo "on $host: echo 0 > /sys/class/net/$netdev/ecn/roce_np/enable/3"
# -refresh=false: the plan still reads the data sources, but does not refresh roce_nic_dcqcn,
# whose drift would otherwise defer the health read (it depends on it) to the apply.
if ! tf plan -refresh=false -input=false -var "$checks" -out="$work/broken.plan" >"$work/broken.txt" 2>&1; then
	show "$work/broken.txt" 80
	fail "plan with the broken NIC"
fi
grep -h 'Warning: Check block assertion failed' "$work/broken.txt" | sort -u
"$terraform" -chdir="$demo" show -json "$work/broken.plan" >"$work/broken.json"
python3 - "$work/broken.json" "ecn_cnp 127.0.0.1:$port $rdma:1 ($netdev)" <<'PY' || fail "the fabric health check did not name $host $rdma"
import json, sys
plan = json.load(open(sys.argv[1]))
messages = [p["message"] for c in plan.get("checks", []) if c["address"]["name"] == "fabric_lossless"
            for i in c.get("instances", []) for p in i.get("problems", [])]
lines = [l for m in messages for l in m.split("\n")]
for l in lines:
    print("  " + l)
sys.exit(0 if any(l.startswith(sys.argv[2]) for l in lines) else 1)
PY

ssh -q -p "$port" -i "$key" -o UserKnownHostsFile="$known" -o BatchMode=yes root@127.0.0.1 \
	"echo 1 > /sys/class/net/$netdev/ecn/roce_np/enable/3"

# From here the module's rollout gate (roce_fabric_health on the canary leaf1 and gpu1) stands
# between the canary's resources and the rest's; see docs/guides/staged-rollout.md. A first
# build is not gated: until the rest is configured, the canary's traffic to it is not lossless.
staged='ecn_min_threshold_bytes=112640'
gated='rollout={canary_switches=["leaf1"],canary_hosts=["gpu1"],interval_seconds=3}'
drop=$("$roce_twin" traffic --state-dir "$fabric" | awk -F'\t' '$1 ~ /^leaf1\// && $2 ~ /^gpu1 / {print $1; exit}')
[ -n "$drop" ] || fail "no leaf1 port cabled to gpu1"
step "a staged change, ECN min 102400 -> 112640 B, while $drop (leaf1 to the canary gpu1) drops lossless packets: the canary changes, its health gate holds the rest"
"$roce_twin" traffic --state-dir "$fabric" --drop "$drop"
t=$SECONDS
if tf apply -auto-approve -input=false -var "$staged" -var "$gated" >"$work/staged.txt" 2>&1; then
	show "$work/staged.txt" 80
	fail "the apply went past an unhealthy canary"
fi
grep -q 'Staged rollout held at the health gate' "$work/staged.txt" || {
	show "$work/staged.txt" 80
	fail "the apply failed, but not at the rollout gate"
}
awk '/Staged rollout held/{p=1} p&&/^$/{n++} p&&n<2' "$work/staged.txt" | sed 's/^/  /'
echo "($((SECONDS - t)) s)"
"$terraform" -chdir="$demo" show -json >"$work/held.json"
python3 - "$work/held.json" <<'PY' || fail "the held rollout changed more than the canary"
import json, sys
state = json.load(open(sys.argv[1]))
def resources(m):
    yield from m.get("resources", [])
    for c in m.get("child_modules", []):
        yield from resources(c)
ecn = {r["address"]: r["values"]["ecn"]["min_threshold_bytes"]
       for r in resources(state["values"]["root_module"]) if r["type"] == "roce_switch_qos"}
for a, v in sorted(ecn.items()):
    print(f"  {a}: ECN min {v} B")
sys.exit(0 if ecn.get('module.pod.roce_switch_qos.canary["leaf1"]') == 112640 and ecn.get('module.pod.roce_switch_qos.leaf["leaf2"]') == 102400 else 1)
PY

step "the drop fixed, the same apply continues: the gate passes and the rest (leaf2; ECN is the switches' alone) changes"
"$roce_twin" traffic --state-dir "$fabric" --clear
t=$SECONDS
if ! tf apply -auto-approve -input=false -var "$staged" -var "$gated" >"$work/continued.txt" 2>&1; then
	show "$work/continued.txt" 80
	fail "the rollout did not continue once the canary was healthy"
fi
grep -h "Apply complete" "$work/continued.txt"
tf output -json rollout >"$work/rollout.json"
python3 - "$work/rollout.json" <<'PY' || fail "the gate is not open"
import json, sys
r = json.load(open(sys.argv[1]))
print("  canary:", ", ".join(r["canary_switches"] + r["canary_hosts"]), "- gate ok:", r["gate"]["ok"])
sys.exit(0 if r["gate"]["ok"] else 1)
PY
echo "($((SECONDS - t)) s)"
set +e
tf plan -detailed-exitcode -input=false -var "$staged" -var "$gated" >"$work/final.txt" 2>&1
rc=$?
set -e
[ "$rc" -eq 0 ] || {
	show "$work/final.txt" 80
	fail "the plan after the rollout is not empty (exit code $rc)"
}
grep -h "No changes" "$work/final.txt"

step "roce-twin down"
"$roce_twin" down --state-dir "$fabric"

printf '\ndemo: OK (%d s)\n' "$((SECONDS - start))"
