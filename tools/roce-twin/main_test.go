package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	hostssh "github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/twinvars"
)

// TestUpServesRealGNMIAndDownStops runs the built command as users do and talks to the switch
// twins with the stock gnmi_cli of github.com/openconfig/gnmi: Capabilities, and a Get with
// origin sonic-db, over TLS with a password.
func TestUpServesRealGNMIAndDownStops(t *testing.T) {
	gnmiCLI, err := filepath.Abs(filepath.Join("..", "..", "bin", "gnmi_cli"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(gnmiCLI); err != nil {
		t.Fatalf("%s is missing: run make tools", gnmiCLI)
	}
	if _, err := exec.LookPath("script"); err != nil {
		t.Fatalf("script (util-linux) is needed to give gnmi_cli the terminal it reads passwords from: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "roce-twin")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	state := t.TempDir()
	if out, err := exec.Command(bin, "up", "--state-dir", state, "--switches", "2").CombinedOutput(); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(bin, "down", "--state-dir", state).Run() })

	var ep twinvars.Endpoints
	raw, err := os.ReadFile(filepath.Join(state, endpointsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ep); err != nil {
		t.Fatal(err)
	}
	if len(ep.Switches) != 2 || ep.Switches[1].Name != "leaf2" || ep.Switches[0].CAFile == "" {
		t.Fatalf("endpoints = %+v, want two switches with a CA file", ep)
	}
	sw := ep.Switches[0]
	caps := gnmiCLIRun(t, gnmiCLI, sw, "-capabilities")
	if !strings.Contains(caps, `name: "sonic-db"`) || !strings.Contains(caps, "JSON_IETF") {
		t.Errorf("Capabilities answer lacks the sonic-db model or JSON_IETF:\n%s", caps)
	}
	get := gnmiCLIRun(t, gnmiCLI, sw, "-get", "-proto",
		`encoding: JSON_IETF path: <origin: "sonic-db" elem: <name: "CONFIG_DB"> elem: <name: "localhost"> elem: <name: "DEVICE_METADATA"> elem: <name: "localhost">>`)
	if !strings.Contains(get, "Mellanox-SN5600-O128") {
		t.Errorf("Get of DEVICE_METADATA|localhost lacks the HWSKU:\n%s", get)
	}

	pid, ok := runningPID(state)
	if !ok {
		t.Fatal("no running pid after up")
	}
	if out, err := exec.Command(bin, "down", "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("down: %v\n%s", err, out)
	}
	if alive(pid) {
		t.Errorf("pid %d still runs after down", pid)
	}
}

// gnmiCLIRun runs gnmi_cli against sw under script(1), which gives it the terminal its
// password prompt needs, and returns what it printed.
func gnmiCLIRun(t *testing.T, gnmiCLI string, sw twinvars.SwitchEndpoint, args ...string) string {
	t.Helper()
	line := gnmiCLI + " -address " + sw.Address + " -ca_crt " + sw.CAFile + " -with_user_pass"
	for _, a := range args {
		line += " '" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	cmd := exec.Command("script", "-qec", line, "/dev/null")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Answer each prompt once it is on the terminal: gnmi_cli reads the password in raw mode,
	// so typing ahead would lose it.
	for _, answer := range [][2]string{{"username:", sw.Username}, {"password:", sw.Password}} {
		for end := time.Now().Add(20 * time.Second); !strings.Contains(out.String(), answer[0]); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(end) {
				_ = cmd.Process.Kill()
				t.Fatalf("gnmi_cli never asked %q:\n%s", answer[0], out.String())
			}
		}
		_, _ = stdin.Write([]byte(answer[1] + "\n"))
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("gnmi_cli %v: %v\n%s", args, err, out.String())
		}
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("gnmi_cli %v did not finish:\n%s", args, out.String())
	}
	_ = stdin.Close()
	return out.String()
}

// syncBuffer is a strings.Builder safe for a writer and a reader in two goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUpStartsHostTwins starts host twins with the command, reaches one over SSH with the
// written key and known_hosts (host key verified), reboots it, and stops everything.
func TestUpStartsHostTwins(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "roce-twin")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	state := t.TempDir()
	if out, err := exec.Command(bin, "up", "--state-dir", state, "--switches", "0", "--hosts", "2", "--profile", "gid-index-5").CombinedOutput(); err != nil {
		t.Fatalf("up: %v\n%s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command(bin, "down", "--state-dir", state).Run() })
	var ep twinvars.Endpoints
	raw, err := os.ReadFile(filepath.Join(state, endpointsFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ep); err != nil {
		t.Fatal(err)
	}
	if len(ep.Hosts) != 2 || ep.Hosts[1].Name != "gpu2" || ep.Hosts[1].Profile != "gid-index-5" {
		t.Fatalf("endpoints hosts = %+v", ep.Hosts)
	}
	h := ep.Hosts[1]
	if ep.SSH == nil {
		t.Fatal("endpoints have no fleet-wide ssh login")
	}
	pool, err := hostssh.NewPool(hostssh.Config{User: ep.SSH.User, PrivateKeyFile: ep.SSH.PrivateKeyFile, KnownHostsFile: ep.SSH.KnownHostsFile})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	res, err := pool.Client(h.Address).Run(context.Background(), "hostname; cat /sys/class/infiniband/mlx5_0/ports/1/gid_attrs/types/5", hostssh.RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(res.Stdout); got != "gpu2\nRoCE v2\n" {
		t.Errorf("gpu2 says %q, want its name and a RoCE v2 GID at index 5", got)
	}
	if out, err := exec.Command(bin, "reboot", "--state-dir", state, "gpu2").CombinedOutput(); err != nil {
		t.Fatalf("reboot: %v\n%s", err, out)
	}
	pool.Close()
	if out, err := exec.Command(bin, "down", "--state-dir", state).CombinedOutput(); err != nil {
		t.Fatalf("down: %v\n%s", err, out)
	}
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(mounts), state) {
		t.Errorf("mounts under %s left after down", state)
	}
}
