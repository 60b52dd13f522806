package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

// Ansible configurations (bench/ansible/ansible-<name>.cfg).
const (
	ansibleDefault = "default"
	ansibleTuned   = "tuned"
	// ansibleMitogen is tuned with the mitogen strategy (Debian's ansible-mitogen), the
	// fastest way its users run Ansible today.
	ansibleMitogen = "mitogen"
)

// ansibleConfigs are the configurations the bench can compare with, in the report's order,
// each with the speed-up target of Terraform's full converge over it.
var ansibleConfigs = []struct {
	name   string
	target float64
}{{ansibleDefault, 6}, {ansibleTuned, 4}, {ansibleMitogen, 3}}

// ansibleStep names the converge of an Ansible configuration; ansibleSecondStep its second run
// on the converged hosts, the drift check Terraform's no-op plan stands against.
func ansibleStep(mode string) string { return ansibleStepPrefix + mode + ")" }

func ansibleSecondStep(mode string) string { return ansibleStepPrefix + mode + ", second run)" }

// ansibleRun runs bench/ansible/site.yml against a fleet.
type ansibleRun struct {
	root  string // the repository
	dir   string // inventory, variables and logs
	mode  string
	fleet *hosttwin.Fleet
	ofed  twinvars.OFED
}

func twinOFEDVars() twinvars.OFED {
	o, err := twinvars.TwinOFED(hostProfile)
	if err != nil {
		panic(err) // hostProfile is a built-in profile
	}
	return o
}

// prepare writes the inventory and the extra variables.
func (a ansibleRun) prepare() (inventory, vars string, err error) {
	if err := os.MkdirAll(a.dir, 0o755); err != nil {
		return "", "", err
	}
	var b strings.Builder
	b.WriteString("[roce_hosts]\n")
	for _, h := range a.fleet.Hosts() {
		host, port, _ := strings.Cut(h.Address, ":")
		fmt.Fprintf(&b, "%s ansible_host=%s ansible_port=%s\n", h.Name, host, port)
	}
	fmt.Fprintf(&b, "\n[roce_hosts:vars]\nansible_user=root\nansible_ssh_private_key_file=%s\n", a.fleet.UserKeyFile())
	fmt.Fprintf(&b, "ansible_ssh_common_args='-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes'\n", a.fleet.KnownHostsFile())
	inventory = filepath.Join(a.dir, "inventory.ini")
	if err := os.WriteFile(inventory, []byte(b.String()), 0o644); err != nil {
		return "", "", err
	}
	// The same OFED object the Terraform run gets in terraform.tfvars.json.
	raw, err := json.Marshal(map[string]any{"roce_ofed": a.ofed})
	if err != nil {
		return "", "", err
	}
	vars = filepath.Join(a.dir, "vars.json")
	return inventory, vars, os.WriteFile(vars, raw, 0o644)
}

// run runs the playbook once; its output goes to <name>.log.
func (a ansibleRun) run(ctx context.Context, name string) error {
	_, err := a.playbook(ctx, name)
	return err
}

func (a ansibleRun) playbook(ctx context.Context, name string) ([]byte, error) {
	inventory, vars, err := a.prepare()
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(a.root, "bench", "ansible")
	cmd := exec.CommandContext(ctx, "ansible-playbook", "-i", inventory, "-e", "@"+vars, filepath.Join(dir, "site.yml"))
	cmd.Dir = a.dir
	cmd.Env = append(os.Environ(),
		"ANSIBLE_CONFIG="+filepath.Join(dir, "ansible-"+a.mode+".cfg"),
		"ANSIBLE_NOCOLOR=1",
		// Ansible keeps its ControlPersist sockets and temporary files here.
		"ANSIBLE_LOCAL_TEMP="+filepath.Join(a.dir, "tmp"),
		"ANSIBLE_SSH_CONTROL_PATH_DIR="+filepath.Join(a.dir, "cp"),
	)
	if a.mode != ansibleDefault {
		cmd.Env = append(cmd.Env, "ANSIBLE_FORKS="+strconv.Itoa(len(a.fleet.Hosts())))
	}
	out, err := cmd.CombinedOutput()
	_ = os.WriteFile(filepath.Join(a.dir, name+".log"), out, 0o644)
	if err != nil {
		return out, fmt.Errorf("ansible-playbook: %w:\n%s", err, tailLines(string(out), 40))
	}
	return out, nil
}

var recapRE = regexp.MustCompile(`(?m)^\S+\s+:\s+ok=\d+\s+changed=(\d+)`)

// unchanged runs the playbook a second time and reports whether it changed nothing.
func (a ansibleRun) unchanged(ctx context.Context) (bool, error) {
	out, err := a.playbook(ctx, "second-run")
	if err != nil {
		return false, err
	}
	recaps := recapRE.FindAllSubmatch(out, -1)
	if len(recaps) != len(a.fleet.Hosts()) {
		return false, fmt.Errorf("second run: %d hosts in the recap, want %d", len(recaps), len(a.fleet.Hosts()))
	}
	for _, m := range recaps {
		if !bytes.Equal(m[1], []byte("0")) {
			return false, nil
		}
	}
	return true, nil
}

// compareHosts compares the first host of each fleet with bench/ansible/compare.sh: the
// files each tool wrote (the hosts' overlay upper directories).
func compareHosts(ctx context.Context, root string, tf, ansible *hosttwin.Fleet) (same bool, diff string, err error) {
	name := tf.Hosts()[0].Name
	upper := func(f *hosttwin.Fleet) string { return filepath.Join(f.StateDir(), "hosts", name, "upper") }
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "bench", "ansible", "compare.sh"), upper(tf), upper(ansible))
	out, err := cmd.CombinedOutput()
	if err == nil {
		return true, "", nil
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
		return false, string(out), nil
	}
	return false, "", fmt.Errorf("compare.sh: %w:\n%s", err, out)
}
