package ssh

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// HostKeyReason says why a host key was refused.
type HostKeyReason string

// Reasons for a [HostKeyError].
const (
	// HostKeyUnknown means known_hosts has no entry for the host.
	HostKeyUnknown HostKeyReason = "unknown"
	// HostKeyChanged means known_hosts has other keys for the host.
	HostKeyChanged HostKeyReason = "changed"
	// HostKeyRevoked means the key is marked @revoked in known_hosts.
	HostKeyRevoked HostKeyReason = "revoked"
	// HostKeyMismatch means the key is not the pinned key, or is a plain key
	// where a CA is pinned.
	HostKeyMismatch HostKeyReason = "mismatch"
	// HostKeyUntrustedCertificate means the host certificate is not signed
	// by a trusted CA, or is expired, or names other principals.
	HostKeyUntrustedCertificate HostKeyReason = "untrusted certificate"
)

// HostKeyError is returned, wrapped in a [*ConnectError], when a host or jump
// host presents a key that cannot be verified. It is never retried.
type HostKeyError struct {
	// Host is the host:port that was dialled.
	Host string
	// Reason says why the key was refused.
	Reason HostKeyReason
	// KeyType is the type of the key the host presented.
	KeyType string
	// Fingerprint is the SHA256 fingerprint of the presented key (of the
	// certified key for a host certificate).
	Fingerprint string
	// Expected lists the keys that were expected, as "SHA256:... (where)".
	Expected []string
	// Err is the underlying error, if any.
	Err error
}

// Error implements error. It names the host and the fingerprint.
func (e *HostKeyError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "host key verification failed for %s: ", e.Host)
	presented := fmt.Sprintf("%s %s", e.KeyType, e.Fingerprint)
	switch e.Reason {
	case HostKeyUnknown:
		fmt.Fprintf(&b, "host key %s is not in known_hosts", presented)
		if len(e.Expected) > 0 {
			fmt.Fprintf(&b, " (only %s)", strings.Join(e.Expected, ", "))
		}
		b.WriteString("; check the fingerprint out of band and add it to known_hosts, or pin the host key")
	case HostKeyChanged:
		fmt.Fprintf(&b, "HOST KEY HAS CHANGED: the host presented %s but known_hosts has %s; "+
			"if the host was reinstalled remove the old entry (ssh-keygen -R), otherwise this may be a man-in-the-middle attack",
			presented, strings.Join(e.Expected, ", "))
	case HostKeyRevoked:
		fmt.Fprintf(&b, "host key %s is revoked in known_hosts", presented)
	case HostKeyMismatch:
		fmt.Fprintf(&b, "host key %s does not match the pinned host key %s", presented, strings.Join(e.Expected, ", "))
	default:
		fmt.Fprintf(&b, "host key %s: %s", presented, e.Reason)
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	return b.String()
}

// Unwrap returns the underlying error.
func (e *HostKeyError) Unwrap() error { return e.Err }

// hostKeyPolicy verifies the host key of one endpoint.
type hostKeyPolicy interface {
	// prepare returns the callback and the host key algorithms to offer
	// (nil for the library default) for a dial of addr (host:port).
	prepare(addr string) (xssh.HostKeyCallback, []string, error)
}

// newHostKeyPolicy returns the policy for a pinned key, a known_hosts file
// (empty: the default files), or no verification at all.
func newHostKeyPolicy(pinned, knownHostsFile string, insecure bool) (hostKeyPolicy, error) {
	switch {
	case pinned != "":
		pk, err := parsePinnedKey(pinned)
		if err != nil {
			return nil, fmt.Errorf("host key: %w", err)
		}
		return pk, nil
	case knownHostsFile != "":
		return knownHostsPolicy{files: []string{knownHostsFile}, explicit: true, parsed: &parsedKnownHosts{}}, nil
	case insecure:
		return insecurePolicy{}, nil
	}
	var files []string
	if home, err := os.UserHomeDir(); err == nil {
		files = append(files, filepath.Join(home, ".ssh", "known_hosts"))
	}
	files = append(files, "/etc/ssh/ssh_known_hosts")
	return knownHostsPolicy{files: files, parsed: &parsedKnownHosts{}}, nil
}

type insecurePolicy struct{}

func (insecurePolicy) prepare(string) (xssh.HostKeyCallback, []string, error) {
	return xssh.InsecureIgnoreHostKey(), nil, nil
}

// prepare implements hostKeyPolicy for a pinned host key or CA.
func (pk pinnedKey) prepare(addr string) (xssh.HostKeyCallback, []string, error) {
	want := fingerprint(pk.key)
	if !pk.ca {
		cb := func(_ string, _ net.Addr, key xssh.PublicKey) error {
			if keysEqual(key, pk.key) {
				return nil
			}
			return refused(addr, HostKeyMismatch, key, []string{want}, nil)
		}
		return cb, plainAlgorithms(pk.key.Type()), nil
	}
	checker := &xssh.CertChecker{
		IsHostAuthority: func(auth xssh.PublicKey, _ string) bool { return keysEqual(auth, pk.key) },
		HostKeyFallback: func(_ string, _ net.Addr, key xssh.PublicKey) error {
			return refused(addr, HostKeyMismatch, key, []string{want + " (pinned CA: a host certificate is required)"}, nil)
		},
	}
	cb := func(hostname string, remote net.Addr, key xssh.PublicKey) error {
		err := checker.CheckHostKey(hostname, remote, key)
		if err == nil {
			return nil
		}
		var hk *HostKeyError
		if errors.As(err, &hk) {
			return err
		}
		return refused(addr, HostKeyUntrustedCertificate, key, []string{want + " (pinned CA)"}, err)
	}
	// Plain keys last, so that a host without a certificate is refused with
	// its fingerprint rather than with "no common algorithm".
	return cb, append(certAlgorithms(), plainAlgorithms("")...), nil
}

// knownHostsPolicy verifies keys against OpenSSH known_hosts files.
type knownHostsPolicy struct {
	files    []string
	explicit bool // files were configured: a missing one is an error
	parsed   *parsedKnownHosts
}

// parsedKnownHosts keeps the files parsed for every dial until one of them changes. Parsing
// them on each dial cost hosts × lines: at 256 hosts listed in one file, a plan parsed 65,536
// entries and kept them with the connections, 10.6 MB of its live heap (bench/results).
// Reading the files again on each dial is what tells a change (a timestamp can miss an edit
// in the same clock tick); reading is cheap next to parsing keys.
type parsedKnownHosts struct {
	mu    sync.Mutex
	read  []byte               // the files' names and contents when parsed
	check xssh.HostKeyCallback // knownhosts.New's: it only reads its database once built
	cas   map[lineRef]bool     // the @cert-authority lines
}

// load returns the callback and the @cert-authority lines of files, parsed again only when
// the files differ from those parsed before.
func (k *parsedKnownHosts) load(files []string) (xssh.HostKeyCallback, map[lineRef]bool, error) {
	var read []byte
	contents := make(map[string][]byte, len(files))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, fmt.Errorf("read known_hosts: %w", err)
		}
		contents[f] = data
		read = fmt.Appendf(read, "%s\x00%d\x00", f, len(data))
		read = append(read, data...)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.check != nil && bytes.Equal(k.read, read) {
		return k.check, k.cas, nil
	}
	check, err := knownhosts.New(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("read known_hosts: %w", err)
	}
	k.read, k.check, k.cas = read, check, certAuthorityLines(files, contents)
	return k.check, k.cas, nil
}

func (p knownHostsPolicy) prepare(addr string) (xssh.HostKeyCallback, []string, error) {
	files, err := p.existing()
	if err != nil {
		return nil, nil, err
	}
	inner, cas, err := p.parsed.load(files)
	if err != nil {
		return nil, nil, err
	}
	known := knownFor(inner, addr)
	cb := func(hostname string, remote net.Addr, key xssh.PublicKey) error {
		err := inner(hostname, remote, key)
		if err == nil {
			return nil
		}
		return classifyKnownHosts(addr, key, err, cas)
	}
	return cb, knownAlgorithms(known, cas), nil
}

// existing returns the files that exist, or an error when none does (or,
// for explicitly configured files, when one is missing).
func (p knownHostsPolicy) existing() ([]string, error) {
	var out []string
	for _, f := range p.files {
		_, err := os.Stat(f)
		switch {
		case err == nil:
			out = append(out, f)
		case p.explicit:
			return nil, fmt.Errorf("known_hosts file: %w", err)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no known_hosts file (looked for %s): add the host keys, set a known_hosts file or pin the host key",
			strings.Join(p.files, ", "))
	}
	return out, nil
}

// lineRef names one line of a known_hosts file.
type lineRef struct {
	file string
	line int
}

// certAuthorityLines returns the @cert-authority lines of files, numbered as package
// knownhosts numbers them, from their contents.
func certAuthorityLines(files []string, contents map[string][]byte) map[lineRef]bool {
	cas := make(map[lineRef]bool)
	for _, name := range files {
		sc := bufio.NewScanner(bytes.NewReader(contents[name]))
		for n := 1; sc.Scan(); n++ {
			if strings.HasPrefix(strings.TrimSpace(sc.Text()), "@cert-authority") {
				cas[lineRef{name, n}] = true
			}
		}
	}
	return cas
}

// knownFor returns every known_hosts entry (host keys and CAs) that matches
// addr. It asks the callback about a key that cannot be in any file: the
// refusal lists the entries for the host, hashed names and patterns included,
// matched exactly as the verification itself will match them.
func knownFor(cb xssh.HostKeyCallback, addr string) []knownhosts.KnownKey {
	remote := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 22}
	err := cb(addr, remote, probeKey{})
	var ke *knownhosts.KeyError
	if errors.As(err, &ke) {
		return ke.Want
	}
	return nil
}

// knownAlgorithms orders the host key algorithms the way OpenSSH does: host
// certificates first when a CA is trusted for the host, then the algorithms
// of the keys known for it. A server that has both a certificate and a plain
// key then presents the one we can verify. For a host with no entry at all
// only plain keys are offered, so that the refusal shows the fingerprint to
// check.
func knownAlgorithms(known []knownhosts.KnownKey, cas map[lineRef]bool) []string {
	if len(known) == 0 {
		return plainAlgorithms("")
	}
	var algos []string
	for _, k := range known {
		if cas[lineRef{k.Filename, k.Line}] {
			algos = append(certAlgorithms(), algos...)
			break
		}
	}
	for _, k := range known {
		if !cas[lineRef{k.Filename, k.Line}] {
			algos = append(algos, plainAlgorithms(k.Key.Type())...)
		}
	}
	return dedupe(algos)
}

func classifyKnownHosts(addr string, key xssh.PublicKey, err error, cas map[lineRef]bool) error {
	var ke *knownhosts.KeyError
	var re *knownhosts.RevokedError
	switch {
	case errors.As(err, &re):
		return refused(addr, HostKeyRevoked, key, nil, nil)
	case errors.As(err, &ke):
		var plain, authorities []string
		for _, k := range ke.Want {
			desc := fmt.Sprintf("%s (%s:%d)", fingerprint(k.Key), k.Filename, k.Line)
			if cas[lineRef{k.Filename, k.Line}] {
				authorities = append(authorities, "CA "+desc)
			} else {
				plain = append(plain, desc)
			}
		}
		if len(plain) == 0 {
			return refused(addr, HostKeyUnknown, key, authorities, nil)
		}
		return refused(addr, HostKeyChanged, key, append(plain, authorities...), nil)
	case isCertificate(key):
		return refused(addr, HostKeyUntrustedCertificate, key, nil, err)
	}
	return refused(addr, HostKeyReason("refused"), key, nil, err)
}

func refused(addr string, reason HostKeyReason, key xssh.PublicKey, expected []string, err error) *HostKeyError {
	return &HostKeyError{
		Host:        addr,
		Reason:      reason,
		KeyType:     key.Type(),
		Fingerprint: fingerprint(key),
		Expected:    expected,
		Err:         err,
	}
}

// fingerprint returns the SHA256 fingerprint of key, of the certified key
// for a certificate.
func fingerprint(key xssh.PublicKey) string {
	if cert, ok := key.(*xssh.Certificate); ok {
		return xssh.FingerprintSHA256(cert.Key) + " certified by " + xssh.FingerprintSHA256(cert.SignatureKey)
	}
	return xssh.FingerprintSHA256(key)
}

func isCertificate(key xssh.PublicKey) bool {
	_, ok := key.(*xssh.Certificate)
	return ok
}

func keysEqual(a, b xssh.PublicKey) bool {
	return bytes.Equal(a.Marshal(), b.Marshal())
}

// plainAlgorithms returns the host key algorithms that present a key of
// keyType (RSA keys sign with SHA-2 only), or all supported plain key
// algorithms when keyType is empty.
func plainAlgorithms(keyType string) []string {
	if keyType == "" {
		var out []string
		for _, a := range xssh.SupportedAlgorithms().HostKeys {
			if !strings.Contains(a, "-cert-v01@") {
				out = append(out, a)
			}
		}
		return out
	}
	if keyType == xssh.KeyAlgoRSA {
		return []string{xssh.KeyAlgoRSASHA512, xssh.KeyAlgoRSASHA256}
	}
	if !supportedHostKeyAlgorithm(keyType) {
		return nil
	}
	return []string{keyType}
}

// certAlgorithms returns the supported host certificate algorithms.
func certAlgorithms() []string {
	var out []string
	for _, a := range xssh.SupportedAlgorithms().HostKeys {
		if strings.Contains(a, "-cert-v01@") {
			out = append(out, a)
		}
	}
	return out
}

func supportedHostKeyAlgorithm(algo string) bool {
	for _, a := range xssh.SupportedAlgorithms().HostKeys {
		if a == algo {
			return true
		}
	}
	return false
}

func dedupe(in []string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// probeKey is a public key that matches no known_hosts entry (see knownFor).
type probeKey struct{}

func (probeKey) Type() string { return "probe@roce" }

func (probeKey) Marshal() []byte { return []byte("\x00\x00\x00\x0aprobe@roce") }

func (probeKey) Verify([]byte, *xssh.Signature) error {
	return errors.New("probe key cannot verify")
}
