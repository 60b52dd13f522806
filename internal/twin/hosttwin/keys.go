package hosttwin

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"fmt"
	"strings"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// keyPair is a generated ed25519 key in the forms OpenSSH reads.
type keyPair struct {
	private    []byte        // OpenSSH private key, PEM encoded
	public     ssh.PublicKey // the public half
	authorized string        // "ssh-ed25519 AAAA... comment\n"
}

// newKeyPair generates an ed25519 key pair labelled with comment.
func newKeyPair(comment string) (keyPair, error) {
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return keyPair{}, fmt.Errorf("generate ed25519 key: %w", err)
	}
	block, err := ssh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return keyPair{}, fmt.Errorf("marshal private key: %w", err)
	}
	sshPub, err := ssh.NewPublicKey(pub)
	if err != nil {
		return keyPair{}, fmt.Errorf("public key: %w", err)
	}
	line := strings.TrimSuffix(string(ssh.MarshalAuthorizedKey(sshPub)), "\n")
	return keyPair{
		private:    pem.EncodeToMemory(block),
		public:     sshPub,
		authorized: line + " " + comment + "\n",
	}, nil
}

// write stores the private key at path (mode 0600) and the public key at
// path.pub, as ssh-keygen does.
func (k keyPair) write(path string) error {
	if err := writeFileAtomic(path, k.private, 0o600); err != nil {
		return err
	}
	return writeFileAtomic(path+".pub", []byte(k.authorized), 0o644)
}

// knownHostsLine is the known_hosts entry for key at addr ("host:port"),
// in the "[127.0.0.1]:port" form OpenSSH writes for non-default ports.
func knownHostsLine(addr string, key ssh.PublicKey) string {
	return knownhosts.Line([]string{knownhosts.Normalize(addr)}, key) + "\n"
}
