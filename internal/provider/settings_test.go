package provider

import (
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
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
		SSH: ssh.Config{
			User: "root", Port: 22, ConnectTimeout: 30 * time.Second, KeepAlive: 30 * time.Second, MaxSessions: 8,
			Become: ssh.Become{Enabled: false}, // sudo's user: the transport's default, root
		},
		GNMI: gnmiSettings{Config: gnmi.Config{SetTimeout: 10 * time.Minute, Retries: 3}},
		NVUE: nvueSettings{Config: nvue.Config{ApplyTimeout: 5 * time.Minute}, Port: 8765},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestResolveSettingsEnvironment(t *testing.T) {
	env := envOf(map[string]string{
		envSSHUser:              "ubuntu",
		envSSHPrivateKeyFile:    "/keys/id_ed25519",
		envSSHKnownHostsFile:    "/keys/known_hosts",
		envSSHPort:              "2222",
		envSSHConnectTimeout:    "5s",
		envSSHKeepAliveInterval: "2s",
		envSSHMaxSessions:       "4",
		envSSHBastionHost:       "jump.example:2200",
		envSSHBecomePassword:    "s3cret",
		envAgentSocket:          "/run/agent.sock",
		envGNMIUsername:         "admin",
		envGNMIPassword:         "pw",
		envGNMICAFile:           "/pki/ca.pem",
		envGNMIPort:             "50051",
		envGNMISetTimeout:       "2m",
		envGNMIRetries:          "0",
		envNVUEUsername:         "nvapi",
		envNVUEPassword:         "nvpw",
		envNVUECAFile:           "/pki/cumulus-ca.pem",
		envNVUEPort:             "8443",
		envNVUEApplyTimeout:     "90s",
		envNVUEAssumeYes:        "true",
	})
	got, diags := resolveSettings(providerModel{}, env)
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	want := settings{
		SSH: ssh.Config{
			User: "ubuntu", PrivateKeyFile: "/keys/id_ed25519", UseAgent: true,
			KnownHostsFile: "/keys/known_hosts", Port: 2222, ConnectTimeout: 5 * time.Second, KeepAlive: 2 * time.Second, MaxSessions: 4,
			Jumps:  []ssh.Hop{{Address: "jump.example:2200"}},
			Become: ssh.Become{Enabled: true, Password: "s3cret"},
		},
		GNMI: gnmiSettings{
			Config: gnmi.Config{Username: "admin", Password: "pw", CAFile: "/pki/ca.pem", SetTimeout: 2 * time.Minute, Retries: 0},
			Port:   50051,
		},
		NVUE: nvueSettings{
			Config: nvue.Config{Username: "nvapi", Password: "nvpw", CAFile: "/pki/cumulus-ca.pem", ApplyTimeout: 90 * time.Second, AssumeYes: true},
			Port:   8443,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
}

func TestResolveSettingsConfigBeatsEnvironment(t *testing.T) {
	m := providerModel{
		SSH:  &sshModel{User: types.StringValue("admin"), Port: types.Int64Value(22), UseAgent: types.BoolValue(false), Password: types.StringValue("pw")},
		GNMI: &gnmiModel{gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(false)}},
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
			name: "half an NVUE login",
			env:  map[string]string{envNVUEUsername: "nvapi"},
			want: []string{"NVUE basic authentication needs both nvue.username and nvue.password (or ROCE_NVUE_USERNAME and ROCE_NVUE_PASSWORD); only nvue.username (from ROCE_NVUE_USERNAME) is set"},
		},
		{
			name:  "half an NVUE login in the configuration",
			model: providerModel{NVUE: &nvueModel{nvueLoginModel: nvueLoginModel{Password: types.StringValue("pw")}}},
			want:  []string{"only nvue.password is set. Set nvue.username too"},
		},
		{
			name:  "NVUE insecure with a CA",
			model: providerModel{NVUE: &nvueModel{nvueLoginModel: nvueLoginModel{Insecure: types.BoolValue(true), CAFile: types.StringValue("/ca.pem")}}},
			want:  []string{"nvue.insecure = true skips certificate verification, yet nvue.ca_file is set"},
		},
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
			want:  []string{"Both ssh.private_key and ssh.private_key_file", "ssh.private_key is not a private key SSH can use"},
		},
		{
			name:  "pinned key and insecure",
			model: providerModel{SSH: &sshModel{HostKey: types.StringValue(testHostKey), InsecureIgnoreHostKey: types.BoolValue(true)}},
			want:  []string{"ssh.host_key pins a host key"},
		},
		{
			name:  "certificate without key",
			model: providerModel{SSH: &sshModel{CertificateFile: types.StringValue("/k-cert.pub"), UseAgent: types.BoolValue(false), Password: types.StringValue("pw")}},
			want:  []string{"no private key to sign with"},
		},
		{
			name:  "empty user",
			model: providerModel{SSH: &sshModel{User: types.StringValue("")}},
			want:  []string{"ssh.user is empty"},
		},
		{
			name: "unreadable key from the environment",
			env:  map[string]string{envSSHPrivateKey: "not a key"},
			want: []string{"ssh.private_key (from ROCE_SSH_PRIVATE_KEY) is not a private key SSH can use: ssh: no key found"},
		},
		{
			name:  "unreadable host key",
			model: providerModel{SSH: &sshModel{HostKey: types.StringValue("ssh-ed25519 AAAA")}},
			want:  []string{"ssh.host_key is not a host key"},
		},
		{
			name:  "unreadable bastion key",
			model: providerModel{SSH: &sshModel{Bastion: &bastionModel{Host: types.StringValue("jump"), PrivateKey: types.StringValue("nope")}}},
			want:  []string{"ssh.bastion.private_key is not an unencrypted private key"},
		},
		{
			name:  "bastion with two keys",
			model: providerModel{SSH: &sshModel{Bastion: &bastionModel{Host: types.StringValue("jump"), PrivateKeyFile: types.StringValue("/k")}}},
			env:   map[string]string{envSSHBastionPrivateKey: "nope"},
			want: []string{"Both ssh.bastion.private_key (from ROCE_SSH_BASTION_PRIVATE_KEY) and ssh.bastion.private_key_file are set",
				"ssh.bastion.private_key (from ROCE_SSH_BASTION_PRIVATE_KEY) is not an unencrypted private key"},
		},
		{
			name:  "bastion port out of range in its host",
			model: providerModel{SSH: &sshModel{Bastion: &bastionModel{Host: types.StringValue("jump:70000")}}},
			want:  []string{`ssh.bastion.host is not an address SSH can dial: host address "jump:70000": invalid port or host`},
		},
		{
			name:  "known hosts and insecure",
			model: providerModel{SSH: &sshModel{KnownHostsFile: types.StringValue("/kh"), InsecureIgnoreHostKey: types.BoolValue(true)}},
			want:  []string{"ssh.insecure_ignore_host_key turns host key verification off while ssh.known_hosts_file"},
		},
		{
			name:  "sudo password with a line break",
			model: providerModel{SSH: &sshModel{Become: &becomeModel{Enabled: types.BoolValue(true), Password: types.StringValue("pw\n")}}},
			want:  []string{"contains a line break"},
		},
		{
			name:  "no way to log in",
			model: providerModel{SSH: &sshModel{Port: types.Int64Value(2222)}},
			env:   map[string]string{envAgentSocket: ""},
			want:  []string{"no way to log in"},
		},
		{
			name: "no way to log in, from the environment",
			env:  map[string]string{envAgentSocket: "", envSSHUser: "ubuntu"},
			want: []string{"no way to log in"},
		},
		{
			name:  "agent without a socket",
			model: providerModel{SSH: &sshModel{UseAgent: types.BoolValue(true)}},
			env:   map[string]string{envAgentSocket: ""},
			want:  []string{"SSH_AUTH_SOCK is not set"},
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
			model: providerModel{GNMI: &gnmiModel{gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(true), CAFile: types.StringValue("/ca.pem")}}},
			want:  []string{"gnmi.insecure = true turns TLS off"},
		},
		{
			name: "username without password",
			env:  map[string]string{envGNMIUsername: "admin"},
			want: []string{"needs both gnmi.username and gnmi.password"},
		},
		{
			name: "password without username, from the environment",
			env:  map[string]string{envGNMIPassword: "pw"},
			want: []string{"gnmi.password (from ROCE_GNMI_PASSWORD) is set, gnmi.username is not"},
		},
		{
			name:  "insecure with a key and a server name, one from the environment",
			model: providerModel{GNMI: &gnmiModel{gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(true), KeyFile: types.StringValue("/k.pem")}}},
			env:   map[string]string{envGNMICertFile: "/c.pem", envGNMIServerName: "leaf1"},
			want:  []string{"yet gnmi.cert_file (from ROCE_GNMI_CERT_FILE), gnmi.key_file, gnmi.server_name (from ROCE_GNMI_SERVER_NAME) is set"},
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
			// An agent runs unless the case says otherwise, so cases need no credentials.
			env := map[string]string{envAgentSocket: "/run/agent.sock"}
			maps.Copy(env, tt.env)
			_, diags := resolveSettings(tt.model, envOf(env))
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
		GNMI: &gnmiModel{gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(true)}},
		NVUE: &nvueModel{nvueLoginModel: nvueLoginModel{Insecure: types.BoolValue(true)}},
	}
	_, diags := resolveSettings(m, envOf(map[string]string{envAgentSocket: "/run/agent.sock"}))
	if diags.HasError() {
		t.Fatalf("unexpected errors: %v", diags)
	}
	var summaries []string
	for _, w := range diags.Warnings() {
		summaries = append(summaries, w.Summary())
	}
	want := []string{"SSH Host Keys Are Not Verified", "SSH Sessions Above sshd's Default", "gNMI Without TLS", "NVUE Certificates Are Not Verified"}
	if diff := cmp.Diff(want, summaries); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// testHostKey is a host key in authorized_keys format.
const testHostKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIIRE02SEmt3A/+CIM36fJQZxYcg+Y7uw9D91C3GaE8bD"

// TestResolveSettingsSSHOnlyWhenUsed keeps a provider without an ssh block or ROCE_SSH_*
// variables usable for switches alone, and leaves credentials not known yet to the apply.
func TestResolveSettingsSSHOnlyWhenUsed(t *testing.T) {
	for name, m := range map[string]providerModel{
		"no ssh block":                       {GNMI: &gnmiModel{gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(true)}}},
		"unknown key":                        {SSH: &sshModel{PrivateKey: types.StringUnknown()}},
		"unknown user":                       {SSH: &sshModel{User: types.StringUnknown(), PrivateKeyFile: types.StringValue("/k")}},
		"key file":                           {SSH: &sshModel{PrivateKeyFile: types.StringValue("/does/not/exist/yet")}},
		"unknown key file for a certificate": {SSH: &sshModel{CertificateFile: types.StringValue("/k-cert.pub"), PrivateKeyFile: types.StringUnknown()}},
		"unknown passphrase":                 {SSH: &sshModel{PrivateKey: types.StringValue("encrypted, perhaps"), PrivateKeyPassphrase: types.StringUnknown()}},
		"unknown bastion host": {SSH: &sshModel{PrivateKeyFile: types.StringValue("/k"),
			Bastion: &bastionModel{Host: types.StringUnknown(), User: types.StringValue("jump")}}},
		"unknown become": {SSH: &sshModel{PrivateKeyFile: types.StringValue("/k"),
			Become: &becomeModel{Enabled: types.BoolUnknown(), Password: types.StringValue("pw")}}},
		"unknown host key setting": {SSH: &sshModel{PrivateKeyFile: types.StringValue("/k"),
			HostKey: types.StringValue(testHostKey), KnownHostsFile: types.StringUnknown()}},
	} {
		if _, diags := resolveSettings(m, envOf(nil)); diags.HasError() {
			t.Errorf("%s: unexpected errors: %v", name, diags.Errors())
		}
	}
}

// TestCheckGNMILeavesUnknownAlone: a gNMI check that reads a value not known yet at plan
// time is left to the apply; one that does not is still made.
func TestCheckGNMILeavesUnknownAlone(t *testing.T) {
	for name, m := range map[string]*gnmiModel{
		"unknown password":     {gnmiLoginModel: gnmiLoginModel{Username: types.StringValue("admin"), Password: types.StringUnknown()}},
		"unknown key file":     {gnmiLoginModel: gnmiLoginModel{CertFile: types.StringValue("/c.pem"), KeyFile: types.StringUnknown()}},
		"unknown insecure":     {gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolUnknown(), CAFile: types.StringValue("/ca.pem")}},
		"unknown TLS settings": {gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(false), CAFile: types.StringUnknown()}},
	} {
		if _, diags := resolveSettings(providerModel{GNMI: m}, envOf(nil)); diags.HasError() {
			t.Errorf("%s: unexpected errors: %v", name, diags.Errors())
		}
	}
	m := &gnmiModel{gnmiLoginModel: gnmiLoginModel{Insecure: types.BoolValue(true), CAFile: types.StringValue("/ca.pem"), ServerName: types.StringUnknown()}}
	if _, diags := resolveSettings(providerModel{GNMI: m}, envOf(nil)); diags.ErrorsCount() != 1 {
		t.Errorf("insecure with a CA and an unknown server name: got %v, want the conflict", diags.Errors())
	}
}
