package hosttwin

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestOptionsNormalize(t *testing.T) {
	tests := []struct {
		name    string
		opts    Options
		wantErr string
	}{
		{"no hosts", Options{}, "no hosts"},
		{"bad name", Options{Hosts: []HostSpec{{Name: "Node_1"}}}, `host "Node_1": name`},
		{"leading dash", Options{Hosts: []HostSpec{{Name: "-a"}}}, "name must be"},
		{"duplicate", Options{Hosts: []HostSpec{{Name: "a"}, {Name: "a"}}}, "duplicate"},
		{"unknown profile", Options{Hosts: []HostSpec{{Name: "a", Profile: "cx9"}}}, `unknown profile "cx9"`},
		{"ports past 65535", Options{BasePort: 65535, Hosts: []HostSpec{{Name: "a"}, {Name: "b"}}}, "out of range"},
		{"colon in state dir", Options{StateDir: "/tmp/a:b", Hosts: []HostSpec{{Name: "a"}}}, "must not contain"},
		{"ok", Options{Hosts: []HostSpec{{Name: "gpu-0"}}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.opts.normalize()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Hosts[0].Profile != defaultProfile || got.StartTimeout != defaultStartTimeout || got.Parallel != defaultParallel {
				t.Errorf("defaults not filled: %+v", got)
			}
		})
	}
}

func TestSSHDConfig(t *testing.T) {
	got := sshdConfig("gpu-0", "127.0.0.1", 40022)
	for _, want := range []string{
		"ListenAddress 127.0.0.1:40022\n",
		"HostKey /etc/ssh/twin/ssh_host_ed25519_key\n",
		"AuthorizedKeysFile /etc/ssh/twin/authorized_keys\n",
		"PermitRootLogin prohibit-password\n",
		"UsePAM no\n",
		"StrictModes no\n",
		"MaxSessions 10\n",
		"LogLevel VERBOSE\n",
		"Subsystem sftp internal-sftp\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("sshd_config lacks %q:\n%s", want, got)
		}
	}
}

func TestCountLines(t *testing.T) {
	log := []byte(`Server listening on 127.0.0.1 port 40022.
Connection from 127.0.0.1 port 37470 on 127.0.0.1 port 40022 rdomain ""
Accepted key ED25519 SHA256:x found at /etc/ssh/twin/authorized_keys:1
Postponed publickey for root from 127.0.0.1 port 37470 ssh2 [preauth]
Accepted publickey for root from 127.0.0.1 port 37470 ssh2: ED25519 SHA256:x
Starting session: command for root from 127.0.0.1 port 37470 id 0
Starting session: command on pts/0 for root from 127.0.0.1 port 37470 id 1
Starting session: subsystem 'sftp' for root from 127.0.0.1 port 37470 id 2
Starting session: shell on pts/0 for root from 127.0.0.1 port 37470 id 3
Received disconnect from 127.0.0.1 port 37470:11: disconnected by user`)
	got := map[string]int{
		"connections": countLines(log, acceptedMarker),
		"sessions":    countLines(log, sessionMarker),
		"commands":    countLines(log, commandMarker),
	}
	want := map[string]int{"connections": 1, "sessions": 4, "commands": 2}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counts (-want +got):\n%s", diff)
	}
}

func TestUnescapeMountinfo(t *testing.T) {
	for in, want := range map[string]string{
		`/tmp/a\040b`:   "/tmp/a b",
		`/plain`:        "/plain",
		`/tab\011x\134`: "/tab\tx\\",
		`/short\04`:     `/short\04`,
	} {
		if got := unescapeMountinfo(in); got != want {
			t.Errorf("unescapeMountinfo(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestKeysAndKnownHosts(t *testing.T) {
	k, err := newKeyPair("root@gpu-0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := k.write(filepath.Join(dir, "id")); err != nil {
		t.Fatal(err)
	}
	pem, _ := os.ReadFile(filepath.Join(dir, "id"))
	signer, err := ssh.ParsePrivateKey(pem)
	if err != nil {
		t.Fatalf("private key does not parse: %v", err)
	}
	if diff := cmp.Diff(k.public.Marshal(), signer.PublicKey().Marshal()); diff != "" {
		t.Error("private and public key do not match")
	}
	if fi, _ := os.Stat(filepath.Join(dir, "id")); fi.Mode().Perm() != 0o600 {
		t.Errorf("private key mode %v, want 0600", fi.Mode().Perm())
	}
	line := knownHostsLine("127.0.0.1:40022", k.public)
	if !strings.HasPrefix(line, "[127.0.0.1]:40022 ssh-ed25519 ") {
		t.Errorf("known_hosts line %q", line)
	}
	kh := filepath.Join(dir, "known_hosts")
	if err := os.WriteFile(kh, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	check, err := knownhosts.New(kh)
	if err != nil {
		t.Fatal(err)
	}
	addr := fakeAddr("127.0.0.1:40022")
	if err := check("127.0.0.1:40022", addr, k.public); err != nil {
		t.Errorf("known_hosts rejects its own key: %v", err)
	}
	other, _ := newKeyPair("other")
	if err := check("127.0.0.1:40022", addr, other.public); err == nil {
		t.Error("known_hosts accepts another key")
	}
}

func TestWriteEndpointsFields(t *testing.T) {
	f := &Fleet{stateDir: "/state", byName: map[string]*twin{}}
	f.twins = []*twin{{host: Host{Name: "gpu-0", Address: "127.0.0.1:40022", Port: 40022, User: "root",
		PrivateKeyFile: "/state/hosts/gpu-0/id_ed25519", KnownHostsFile: "/state/hosts/gpu-0/known_hosts",
		HostPublicKey: "ssh-ed25519 AAAA", Profile: "cx7"}}}
	path := filepath.Join(t.TempDir(), "endpoints.json")
	if err := f.WriteEndpoints(path); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Hosts          []map[string]any `json:"hosts"`
		KnownHostsFile string           `json:"known_hosts_file"`
	}
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"name": "gpu-0", "address": "127.0.0.1:40022", "port": float64(40022), "user": "root",
		"private_key_file": "/state/hosts/gpu-0/id_ed25519", "known_hosts_file": "/state/hosts/gpu-0/known_hosts",
		"profile": "cx7", "host_public_key": "ssh-ed25519 AAAA",
	}
	if len(got.Hosts) != 1 {
		t.Fatalf("hosts = %v", got.Hosts)
	}
	if diff := cmp.Diff(want, got.Hosts[0]); diff != "" {
		t.Errorf("endpoint (-want +got):\n%s", diff)
	}
	if got.KnownHostsFile != "/state/known_hosts" {
		t.Errorf("known_hosts_file = %q", got.KnownHostsFile)
	}
}

func TestUnmountUnderRefusesRoot(t *testing.T) {
	for _, dir := range []string{"", "/", "relative", "//"} {
		if err := unmountUnder(dir); err == nil {
			t.Errorf("unmountUnder(%q) succeeded, want refusal", dir)
		}
	}
}
