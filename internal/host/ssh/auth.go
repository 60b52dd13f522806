package ssh

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"

	xssh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"
)

// auth holds the credentials of one endpoint, loaded once by [NewPool].
type auth struct {
	signers  []xssh.Signer     // private keys, certificate signers first
	cert     *xssh.Certificate // user certificate, paired with agent keys too
	agent    string            // agent socket; empty: no agent
	password string
}

// loadAuth reads the key and certificate files of c and parses the keys.
func loadAuth(c Config) (*auth, error) {
	a := &auth{password: c.Password}
	key, err := loadSigner(c.PrivateKey, c.PrivateKeyFile, c.Passphrase)
	if err != nil {
		return nil, err
	}
	if c.UseAgent {
		a.agent = c.AgentSocket
		if a.agent == "" {
			a.agent = os.Getenv("SSH_AUTH_SOCK")
		}
		if a.agent == "" {
			return nil, errors.New("agent: SSH_AUTH_SOCK is not set and no agent socket is configured")
		}
	}
	if c.CertificateFile != "" {
		a.cert, err = loadCertificate(c.CertificateFile)
		if err != nil {
			return nil, err
		}
	}
	if key != nil {
		if a.cert != nil && keysEqual(a.cert.Key, key.PublicKey()) {
			cs, err := xssh.NewCertSigner(a.cert, key)
			if err != nil {
				return nil, fmt.Errorf("certificate %s: %w", c.CertificateFile, err)
			}
			a.signers = append(a.signers, cs)
		} else if a.cert != nil && a.agent == "" {
			return nil, fmt.Errorf("certificate %s does not certify the private key", c.CertificateFile)
		}
		a.signers = append(a.signers, key)
	}
	return a, nil
}

// loadHopAuth returns the credentials of a jump host: its own key and, with
// UseAgent, the agent's keys, as ssh -J offers them. Never the hosts' key or
// password: a bastion is often shared, password authentication hands it the
// password itself, and a key offer tells it which keys the user holds.
func loadHopAuth(h Hop, c Config, hosts *auth) (*auth, error) {
	key, err := loadSigner(h.PrivateKey, h.PrivateKeyFile, "")
	if err != nil {
		return nil, err
	}
	a := &auth{}
	if key != nil {
		a.signers = []xssh.Signer{key}
	}
	if c.UseAgent {
		a.agent = hosts.agent
	}
	if len(a.signers) == 0 && a.agent == "" {
		return nil, errors.New("no credentials of its own: set its private key or private key file, or use the agent (the hosts' key and password are not offered to a jump host)")
	}
	return a, nil
}

func loadSigner(inline, file, passphrase string) (xssh.Signer, error) {
	switch {
	case inline != "":
		s, err := parseSigner([]byte(inline), passphrase)
		if err != nil {
			return nil, fmt.Errorf("private key: %w", err)
		}
		return s, nil
	case file != "":
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("private key file: %w", err)
		}
		s, err := parseSigner(data, passphrase)
		if err != nil {
			return nil, fmt.Errorf("private key file %s: %w", file, err)
		}
		return s, nil
	}
	return nil, nil
}

// parseSigner parses a PEM or OpenSSH private key, decrypting it with
// passphrase when it is encrypted.
func parseSigner(pem []byte, passphrase string) (xssh.Signer, error) {
	s, err := xssh.ParsePrivateKey(pem)
	var missing *xssh.PassphraseMissingError
	switch {
	case err == nil:
		return s, nil
	case errors.As(err, &missing) && passphrase == "":
		return nil, errors.New("the key is encrypted and no passphrase is set")
	case errors.As(err, &missing):
		s, err = xssh.ParsePrivateKeyWithPassphrase(pem, []byte(passphrase))
		if err != nil {
			return nil, fmt.Errorf("decrypt with the passphrase: %w", err)
		}
		return s, nil
	}
	return nil, err
}

func loadCertificate(file string) (*xssh.Certificate, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("certificate file: %w", err)
	}
	pub, _, _, _, err := xssh.ParseAuthorizedKey(bytes.TrimSpace(data))
	if err != nil {
		return nil, fmt.Errorf("certificate file %s: %w", file, err)
	}
	cert, ok := pub.(*xssh.Certificate)
	if !ok || cert.CertType != xssh.UserCert {
		return nil, fmt.Errorf("certificate file %s: not an OpenSSH user certificate", file)
	}
	return cert, nil
}

// methods returns the authentication methods for one handshake, in the order
// OpenSSH tries them: public keys (certificates first, then keys, then agent
// keys), password, keyboard-interactive. done releases the agent connection;
// call it when the handshake is over.
func (a *auth) methods(timeout time.Duration) (methods []xssh.AuthMethod, done func(), err error) {
	signers := append([]xssh.Signer(nil), a.signers...)
	done = func() {}
	if a.agent != "" {
		conn, err := net.DialTimeout("unix", a.agent, timeout)
		if err != nil {
			return nil, nil, fmt.Errorf("connect to ssh agent: %w", err)
		}
		done = func() { conn.Close() }
		agentSigners, err := agent.NewClient(conn).Signers()
		if err != nil {
			conn.Close()
			return nil, nil, fmt.Errorf("list ssh agent keys: %w", err)
		}
		signers = append(signers, a.pairWithCert(agentSigners)...)
	}
	if len(signers) > 0 {
		methods = append(methods, xssh.PublicKeys(signers...))
	}
	if a.password != "" {
		methods = append(methods, xssh.Password(a.password), xssh.KeyboardInteractive(answerPassword(a.password)))
	}
	return methods, done, nil
}

// answerPassword answers the keyboard-interactive prompts that ask for a
// password (not echoed, "password" in the text) with pw, and fails the
// authentication on any other: a one-time code or a question must not be
// answered with the password, which would hand it to whatever asked.
// A round without prompts (PAM's informational messages) gets no answers.
func answerPassword(pw string) xssh.KeyboardInteractiveChallenge {
	return func(_, _ string, questions []string, echos []bool) ([]string, error) {
		answers := make([]string, len(questions))
		for i, q := range questions {
			if i >= len(echos) || echos[i] || !strings.Contains(strings.ToLower(q), "password") {
				return nil, fmt.Errorf("keyboard-interactive prompt %q does not ask for the password, the only answer configured", shorten(q, 80))
			}
			answers[i] = pw
		}
		return answers, nil
	}
}

// pairWithCert puts a certificate signer before the agent key the user
// certificate certifies.
func (a *auth) pairWithCert(agentSigners []xssh.Signer) []xssh.Signer {
	if a.cert == nil {
		return agentSigners
	}
	var out []xssh.Signer
	for _, s := range agentSigners {
		if keysEqual(a.cert.Key, s.PublicKey()) {
			if cs, err := xssh.NewCertSigner(a.cert, s); err == nil {
				out = append(out, cs)
			}
		}
	}
	return append(out, agentSigners...)
}
