package ssh

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

func TestHostKeyVerification(t *testing.T) {
	clientKey, clientPEM := newKey(t)
	hostCA, _ := newKey(t)
	otherCA, _ := newKey(t)
	stranger, _ := newKey(t)
	plain := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{clientKey.PublicKey()}})
	certified := startServer(t, serverOptions{authorizedKeys: []xssh.PublicKey{clientKey.PublicKey()}, hostCA: hostCA})

	caLine := func(pattern string, ca xssh.Signer) string {
		return "@cert-authority " + pattern + " " + strings.TrimSpace(string(xssh.MarshalAuthorizedKey(ca.PublicKey())))
	}
	authorized := func(k xssh.PublicKey) string { return strings.TrimSpace(string(xssh.MarshalAuthorizedKey(k))) }
	hashed := func(s *testServer) string {
		return knownhosts.HashHostname(knownhosts.Normalize(s.addr)) + " " + authorized(s.hostKey.PublicKey())
	}

	tests := []struct {
		name       string
		srv        *testServer
		known      []string // known_hosts lines; nil: no known_hosts
		pinned     string
		insecure   bool
		wantReason HostKeyReason // empty: success
	}{
		{name: "known_hosts entry", srv: plain, known: []string{plain.knownLine()}},
		{name: "hashed known_hosts entry", srv: plain, known: []string{"# comment", hashed(plain)}},
		{name: "wildcard pattern", srv: plain, known: []string{"[127.0.0.*]:" + port(plain) + " " + authorized(plain.hostKey.PublicKey())}},
		// package knownhosts compares ports literally (OpenSSH matches
		// "[host]:port" as a string): a port wildcard matches nothing and a
		// bare pattern only port 22. It fails closed.
		{name: "port wildcard is not supported", srv: plain, known: []string{"[127.0.0.1]:* " + authorized(plain.hostKey.PublicKey())}, wantReason: HostKeyUnknown},
		{name: "changed key", srv: plain, known: []string{knownhosts.Line([]string{plain.addr}, stranger.PublicKey())}, wantReason: HostKeyChanged},
		{name: "changed key, hashed entry", srv: plain, known: []string{knownhosts.HashHostname(knownhosts.Normalize(plain.addr)) + " " + authorized(stranger.PublicKey())}, wantReason: HostKeyChanged},
		{name: "unknown host", srv: plain, known: []string{knownhosts.Line([]string{"192.0.2.1:22"}, plain.hostKey.PublicKey())}, wantReason: HostKeyUnknown},
		{name: "revoked key", srv: plain, known: []string{plain.knownLine(), "@revoked * " + authorized(plain.hostKey.PublicKey())}, wantReason: HostKeyRevoked},
		{name: "pinned key", srv: plain, pinned: plain.authorizedKey()},
		{name: "pinned key mismatch", srv: plain, pinned: authorized(stranger.PublicKey()), wantReason: HostKeyMismatch},
		{name: "insecure", srv: plain, insecure: true},
		{name: "cert-authority host certificate", srv: certified, known: []string{caLine("[127.0.0.1]:"+port(certified), hostCA)}},
		{name: "cert-authority wildcard plus plain entries of other hosts", srv: certified, known: []string{
			knownhosts.Line([]string{"192.0.2.7:22"}, stranger.PublicKey()), caLine("[127.0.*]:"+port(certified), hostCA),
		}},
		{name: "cert-authority for port 22 only", srv: certified, known: []string{caLine("*", hostCA)}, wantReason: HostKeyUnknown},
		{name: "cert-authority of another host", srv: certified, known: []string{caLine("192.0.2.9", hostCA)}, wantReason: HostKeyUnknown},
		{name: "certificate from an untrusted CA", srv: certified, known: []string{caLine("[127.0.0.1]:"+port(certified), otherCA)}, wantReason: HostKeyUntrustedCertificate},
		{name: "certified host known by its plain key", srv: certified, known: []string{certified.knownLine()}},
		{name: "pinned CA", srv: certified, pinned: "cert-authority " + authorized(hostCA.PublicKey())},
		{name: "pinned CA, wrong CA", srv: certified, pinned: "cert-authority " + authorized(otherCA.PublicKey()), wantReason: HostKeyUntrustedCertificate},
		{name: "pinned CA, host without certificate", srv: plain, pinned: "cert-authority " + authorized(hostCA.PublicKey()), wantReason: HostKeyMismatch},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := Config{User: currentUser(t), PrivateKey: string(clientPEM), HostKey: tt.pinned, InsecureIgnoreHostKey: tt.insecure}
			if tt.known != nil {
				cfg.KnownHostsFile = knownHostsFile(t, tt.known...)
			}
			p := newTestPool(t, cfg)
			_, err := p.Client(tt.srv.addr).Run(testContext(t), "true", RunOptions{})
			if tt.wantReason == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				return
			}
			var hk *HostKeyError
			if !errors.As(err, &hk) {
				t.Fatalf("Run error = %v, want a *HostKeyError", err)
			}
			var ce *ConnectError
			if !errors.As(err, &ce) || ce.Host != tt.srv.addr {
				t.Errorf("Run error = %#v, want a *ConnectError for %s", err, tt.srv.addr)
			}
			if hk.Reason != tt.wantReason {
				t.Errorf("Reason = %q, want %q (%v)", hk.Reason, tt.wantReason, err)
			}
			msg := err.Error()
			for _, part := range []string{"host key", tt.srv.addr, xssh.FingerprintSHA256(tt.srv.hostKey.PublicKey())} {
				if !strings.Contains(msg, part) {
					t.Errorf("error %q does not mention %q", msg, part)
				}
			}
			if got := hostCount(p, tt.srv.addr).Dials; got != 1 {
				t.Errorf("Dials = %d, want 1: host key errors are never retried", got)
			}
		})
	}
}

func TestHostKeyAlgorithms(t *testing.T) {
	rsaKey, err := xssh.ParsePublicKey(mustDecodeAuthorized(t,
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAAAgQDBvOQ2s+ooDfmfAqY5IxAnPbeCn98iQzsaPL8p3PJcjhm6i6Bmdme0CuZjNWXrj0VPU/vt1B+jQ3NWw/4XnjMpT7s6KqEOHYkNo+2L7Ulc7EgnTo0hl3v7GAmBVBfBSZZ+yHIjzOkCFJV7OYkOOv7iKCVwrXUi7R0f7W6Y1aE5lQ=="))
	if err != nil {
		t.Fatal(err)
	}
	ed, _ := newKey(t)
	caFile, line := "/k", 3
	tests := []struct {
		name  string
		known []knownhosts.KnownKey
		cas   map[lineRef]bool
		want  []string
	}{
		{"nothing known: plain keys, to show the fingerprint", nil, nil, plainAlgorithms("")},
		{"ed25519", []knownhosts.KnownKey{{Key: ed.PublicKey(), Filename: "/k", Line: 1}}, nil, []string{xssh.KeyAlgoED25519}},
		{"rsa uses sha2", []knownhosts.KnownKey{{Key: rsaKey, Filename: "/k", Line: 1}}, nil, []string{xssh.KeyAlgoRSASHA512, xssh.KeyAlgoRSASHA256}},
		{
			"CA first, then plain keys",
			[]knownhosts.KnownKey{{Key: ed.PublicKey(), Filename: "/k", Line: 1}, {Key: ed.PublicKey(), Filename: caFile, Line: line}},
			map[lineRef]bool{{caFile, line}: true},
			append(certAlgorithms(), xssh.KeyAlgoED25519),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := knownAlgorithms(tt.known, tt.cas)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("knownAlgorithms mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func port(s *testServer) string { return strconv.Itoa(s.port) }

func mustDecodeAuthorized(t *testing.T, s string) []byte {
	t.Helper()
	k, _, _, _, err := xssh.ParseAuthorizedKey([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return k.Marshal()
}

func TestKnownHostsFileMissing(t *testing.T) {
	f := newFixture(t, serverOptions{})
	f.cfg.KnownHostsFile = "/nonexistent/known_hosts"
	p := newTestPool(t, f.cfg)
	_, err := p.Client(f.srv.addr).Run(testContext(t), "true", RunOptions{})
	if err == nil || !strings.Contains(err.Error(), "known_hosts") {
		t.Fatalf("Run = %v, want a known_hosts error", err)
	}
	if got := hostCount(p, f.srv.addr).Dials; got != 1 {
		t.Errorf("Dials = %d, want 1", got)
	}
}

// TestKnownHostsParsedOnceUntilChanged: dials share one parse of the files, and a changed
// file is read again, whether edited in place or replaced.
func TestKnownHostsParsedOnceUntilChanged(t *testing.T) {
	first, _ := newKey(t)
	second, _ := newKey(t)
	addr := &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 22}
	path := knownHostsFile(t, knownhosts.Line([]string{"192.0.2.1:22"}, first.PublicKey()))
	policy, err := newHostKeyPolicy("", path, false)
	if err != nil {
		t.Fatal(err)
	}
	accepts := func(key xssh.PublicKey) bool {
		t.Helper()
		cb, _, err := policy.prepare("192.0.2.1:22")
		if err != nil {
			t.Fatal(err)
		}
		return cb("192.0.2.1:22", addr, key) == nil
	}
	if !accepts(first.PublicKey()) || accepts(second.PublicKey()) {
		t.Fatal("the known key was refused or another accepted")
	}
	kh, ok := policy.(knownHostsPolicy)
	if !ok {
		t.Fatalf("policy is a %T, want knownHostsPolicy", policy)
	}
	parsed := kh.parsed
	was := &parsed.read[0]
	if !accepts(first.PublicKey()) || &parsed.read[0] != was {
		t.Error("a second dial with the file unchanged parsed it again or failed")
	}
	// Edited in place, at once and to the same length: the other key now.
	writeFile(t, path, []byte(knownhosts.Line([]string{"192.0.2.1:22"}, second.PublicKey())+"\n"), 0o600)
	if accepts(first.PublicKey()) || !accepts(second.PublicKey()) {
		t.Error("after the file was edited, the old key still passes or the new one does not")
	}
	// Replaced by a rename, with the first key back.
	tmp := path + ".new"
	writeFile(t, tmp, []byte(knownhosts.Line([]string{"192.0.2.1:22"}, first.PublicKey())+"\n"), 0o600)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	if !accepts(first.PublicKey()) || accepts(second.PublicKey()) {
		t.Error("after the file was replaced, the new key is refused or the old one still passes")
	}
}

// BenchmarkKnownHostsPrepare256: one dial's host key set-up with a known_hosts file of 256
// hosts, as each host of a 256-host walk does.
func BenchmarkKnownHostsPrepare256(b *testing.B) {
	lines := make([]string, 256)
	for i := range lines {
		_, priv, err := ed25519.GenerateKey(rand.Reader)
		if err != nil {
			b.Fatal(err)
		}
		pub, err := xssh.NewPublicKey(priv.Public())
		if err != nil {
			b.Fatal(err)
		}
		lines[i] = knownhosts.Line([]string{"10.0." + strconv.Itoa(i/200) + "." + strconv.Itoa(i%200+1) + ":22"}, pub)
	}
	path := filepath.Join(b.TempDir(), "known_hosts")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	policy, err := newHostKeyPolicy("", path, false)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, _, err := policy.prepare("10.0.0." + strconv.Itoa(i%200+1) + ":22"); err != nil {
			b.Fatal(err)
		}
	}
}
