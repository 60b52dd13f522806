package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// TestDebugLogNamesEveryCommand applies a profile on a twin host with TF_LOG=TRACE and reads
// the provider's log: the SSH connection and every remote command with its host, exit status
// and duration are there, so are the engine's gathers and plans, and the inline private key is
// not.
func TestDebugLogNamesEveryCommand(t *testing.T) {
	f, _ := hostTwins(t)
	key, err := os.ReadFile(f.UserKeyFile())
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_LOG", "TRACE")
	t.Setenv("TF_LOG_PATH", logPath)
	address := twinAddress(t, f, "logged")
	config := fmt.Sprintf(`
provider "roce" {
  ssh = {
    user             = "root"
    private_key      = <<-EOT
%s
EOT
    known_hosts_file = %q
  }
}

resource "roce_nccl_env_profile" "logged" {
  host = %q
}
`, strings.TrimSpace(string(key)), f.KnownHostsFile(), address)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps:                    []resource.TestStep{{Config: config}},
	})
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	// The provider's own lines ("[DEBUG] roce.ssh: ..."); the test harness also logs the
	// configuration it writes, key included, which Terraform itself does not.
	var own []string
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.Contains(line, "] roce.") || strings.Contains(line, "] roce:") {
			own = append(own, line)
		}
	}
	log := strings.Join(own, "\n")
	for _, want := range []string{
		"roce.ssh: ssh connection opened: ", "roce.ssh: remote command: ", "roce.ssh: remote file write: ", "roce.ssh: remote command output: ",
		"host=" + address, "exit_status=0", "duration_ms=", "path=/etc/nccl.conf", "stdout_bytes=",
		"roce.engine: facts gathered: ", "facts=\"file /etc/nccl.conf", "from=host", "roce.engine: tasks planned: ", "phase=apply", "phase=verify",
		"roce.engine: planned changes: ",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the provider's log lacks %q", want)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(key)), "\n") {
		if len(line) > 20 && !strings.HasPrefix(line, "-----") && strings.Contains(log, line) {
			t.Fatalf("the provider's log holds a line of the private key")
		}
	}
}

// TestDebugLogNamesEverySwitchRPC: per switch, each gNMI Get and Set with its operation
// count, duration and outcome.
func TestDebugLogNamesEverySwitchRPC(t *testing.T) {
	f := newSwitchFixture(t, switchtwin.Options{})
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_LOG", "DEBUG")
	t.Setenv("TF_LOG_PATH", logPath)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps:                    []resource.TestStep{{Config: f.config(leafConfig, f.addr, 102400, 256000)}},
	})
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"roce.gnmi: gnmi read of CONFIG_DB: ", "roce.gnmi: gnmi write of CONFIG_DB: ", "rpc=Get", "rpc=Set",
		"switch=" + f.addr, "operations=", "duration_ms=", `runs="SONiC 202411, Mellanox-SN5600-O128, traditional buffer model"`,
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"curl -fsSL https://bob:s3cret@repo.example/doca/": "curl -fsSL https://bob:***@repo.example/doca/",
		"deb [signed-by=/k.gpg] http://u:p@h/x jammy main": "deb [signed-by=/k.gpg] http://u:***@h/x jammy main",
		"https://repo.example/doca/ mlx5_0:1":              "https://repo.example/doca/ mlx5_0:1",
	} {
		if got := redact(in); got != want {
			t.Errorf("redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDebugLogNamesEveryCumulusRevision: per Cumulus switch, each read of the applied
// configuration and each revision, with duration and outcome, and never the NVUE password.
func TestDebugLogNamesEveryCumulusRevision(t *testing.T) {
	f := newCumulusFixture(t, "5.12")
	logPath := filepath.Join(t.TempDir(), "terraform.log")
	t.Setenv("TF_LOG", "DEBUG")
	t.Setenv("TF_LOG_PATH", logPath)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps:                    []resource.TestStep{{Config: f.provider + fmt.Sprintf(cumulusConfig, f.addr, 102400, 256000)}},
	})
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"roce.nvue: nvue read of the applied configuration: ", "roce.nvue: nvue revision applied: ", "rpc=GET", "rpc=revision",
		"switch=" + f.addr, `runs="Cumulus Linux 5.12"`, "duration_ms=",
	} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("the log lacks %q", want)
		}
	}
	if strings.Contains(string(raw), twinPassword) {
		t.Error("the log holds the NVUE password")
	}
}
