package provider

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestResolveSettingsDefaults(t *testing.T) {
	got, diags := resolveSettings(providerModel{}, envOf(nil))
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	want := settings{
		SSH: sshSettings{
			User: "root", Port: 22, ConnectTimeout: 30 * time.Second, MaxSessions: 8,
			Become: becomeSettings{Enabled: false, User: "root"},
		},
		GNMI: gnmiSettings{SetTimeout: 10 * time.Minute, Retries: 3},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestResolveSettingsEnvironment(t *testing.T) {
	env := envOf(map[string]string{
		envSSHUser:           "ubuntu",
		envSSHPrivateKeyFile: "/keys/id_ed25519",
		envSSHKnownHostsFile: "/keys/known_hosts",
		envSSHPort:           "2222",
		envSSHConnectTimeout: "5s",
		envSSHMaxSessions:    "4",
		envSSHBastionHost:    "jump.example:2200",
		envSSHBecomePassword: "s3cret",
		envAgentSocket:       "/run/agent.sock",
		envGNMIUsername:      "admin",
		envGNMIPassword:      "pw",
		envGNMICAFile:        "/pki/ca.pem",
		envGNMIPort:          "50051",
		envGNMISetTimeout:    "2m",
		envGNMIRetries:       "0",
	})
	got, diags := resolveSettings(providerModel{}, env)
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	want := settings{
		SSH: sshSettings{
			User: "ubuntu", PrivateKeyFile: "/keys/id_ed25519", UseAgent: true,
			KnownHostsFile: "/keys/known_hosts", Port: 2222, ConnectTimeout: 5 * time.Second, MaxSessions: 4,
			Bastion: &bastionSettings{Host: "jump.example:2200", Port: 22},
			Become:  becomeSettings{Enabled: true, User: "root", Password: "s3cret"},
		},
		GNMI: gnmiSettings{
			Username: "admin", Password: "pw", CAFile: "/pki/ca.pem", Port: 50051,
			SetTimeout: 2 * time.Minute, Retries: 0,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
}

func TestResolveSettingsConfigBeatsEnvironment(t *testing.T) {
	m := providerModel{
		SSH:  &sshModel{User: types.StringValue("admin"), Port: types.Int64Value(22), UseAgent: types.BoolValue(false)},
		GNMI: &gnmiModel{Insecure: types.BoolValue(false)},
	}
	env := envOf(map[string]string{envSSHUser: "ubuntu", envSSHPort: "2222", envGNMIInsecure: "true", envAgentSocket: "/a"})
	got, diags := resolveSettings(m, env)
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	if got.SSH.User != "admin" || got.SSH.Port != 22 || got.SSH.UseAgent || got.GNMI.Insecure {
		t.Errorf("configuration did not win over the environment: %+v", got)
	}
}

func TestResolveSettingsErrors(t *testing.T) {
	tests := []struct {
		name  string
		model providerModel
		env   map[string]string
		want  []string // substrings of the error details, in order
	}{
		{
			name: "bad boolean from environment",
			env:  map[string]string{envGNMIInsecure: "yes please"},
			want: []string{`ROCE_GNMI_INSECURE is "yes please"`},
		},
		{
			name: "port out of range from environment",
			env:  map[string]string{envSSHPort: "70000"},
			want: []string{"ssh.port is 70000 (from ROCE_SSH_PORT); it must be from 1 to 65535"},
		},
		{
			name:  "bad duration in configuration",
			model: providerModel{GNMI: &gnmiModel{SetTimeout: types.StringValue("ten minutes")}},
			want:  []string{`gnmi.set_timeout is "ten minutes"`},
		},
		{
			name:  "two keys",
			model: providerModel{SSH: &sshModel{PrivateKey: types.StringValue("PEM")}},
			env:   map[string]string{envSSHPrivateKeyFile: "/k"},
			want:  []string{"Both ssh.private_key and ssh.private_key_file"},
		},
		{
			name:  "pinned key and insecure",
			model: providerModel{SSH: &sshModel{HostKey: types.StringValue("ssh-ed25519 AAAA"), InsecureIgnoreHostKey: types.BoolValue(true)}},
			want:  []string{"ssh.host_key pins a host key"},
		},
		{
			name:  "certificate without key",
			model: providerModel{SSH: &sshModel{CertificateFile: types.StringValue("/k-cert.pub"), UseAgent: types.BoolValue(false)}},
			want:  []string{"no private key to sign with"},
		},
		{
			name:  "bastion without host",
			model: providerModel{SSH: &sshModel{Bastion: &bastionModel{User: types.StringValue("jump")}}},
			want:  []string{"ssh.bastion sets credentials but no host"},
		},
		{
			name:  "sudo password with become off",
			model: providerModel{SSH: &sshModel{Become: &becomeModel{Enabled: types.BoolValue(false), Password: types.StringValue("pw")}}},
			want:  []string{"ssh.become.password is set while ssh.become.enabled is false"},
		},
		{
			name: "client certificate without key",
			env:  map[string]string{envGNMICertFile: "/c.pem"},
			want: []string{"mTLS needs both gnmi.cert_file and gnmi.key_file"},
		},
		{
			name:  "insecure with TLS settings",
			model: providerModel{GNMI: &gnmiModel{Insecure: types.BoolValue(true), CAFile: types.StringValue("/ca.pem")}},
			want:  []string{"gnmi.insecure = true turns TLS off"},
		},
		{
			name: "username without password",
			env:  map[string]string{envGNMIUsername: "admin"},
			want: []string{"needs both gnmi.username and gnmi.password"},
		},
		{
			name:  "several problems reported together",
			model: providerModel{SSH: &sshModel{MaxSessions: types.Int64Value(0)}},
			env:   map[string]string{envGNMIRetries: "x"},
			want:  []string{"ssh.max_sessions is 0", `ROCE_GNMI_RETRIES is "x"`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, diags := resolveSettings(tt.model, envOf(tt.env))
			errs := diags.Errors()
			if len(errs) != len(tt.want) {
				t.Fatalf("got %d errors, want %d: %v", len(errs), len(tt.want), errs)
			}
			for i, w := range tt.want {
				if !strings.Contains(errs[i].Detail(), w) {
					t.Errorf("error %d detail %q does not contain %q", i, errs[i].Detail(), w)
				}
			}
		})
	}
}

func TestResolveSettingsWarnsOnInsecureTransports(t *testing.T) {
	m := providerModel{
		SSH:  &sshModel{InsecureIgnoreHostKey: types.BoolValue(true), MaxSessions: types.Int64Value(20)},
		GNMI: &gnmiModel{Insecure: types.BoolValue(true)},
	}
	_, diags := resolveSettings(m, envOf(nil))
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	var summaries []string
	for _, w := range diags.Warnings() {
		summaries = append(summaries, w.Summary())
	}
	want := []string{"SSH Host Keys Are Not Verified", "SSH Sessions Above sshd's Default", "gNMI Without TLS"}
	if diff := cmp.Diff(want, summaries); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}
