package ssh

import (
	"os"
	"os/user"
	"path/filepath"
	"strings"
)

// expandHome expands a leading ~ (the current user's home) or ~user (that user's) in a local
// file path, as OpenSSH does for its file options (misc.c tilde_expand_filename); a path
// without one, or whose user is unknown, is returned as it is, so the error that follows
// names the path the user wrote.
func expandHome(p string) string {
	if !strings.HasPrefix(p, "~") {
		return p
	}
	name, rest, _ := strings.Cut(p[1:], "/")
	var home string
	if name == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return p
		}
		home = h
	} else {
		u, err := user.Lookup(name)
		if err != nil {
			return p
		}
		home = u.HomeDir
	}
	return filepath.Join(home, rest)
}

// expandHomes expands ~ in the local file paths of c and of its jump hosts.
func (c Config) expandHomes() Config {
	for _, p := range []*string{&c.PrivateKeyFile, &c.KnownHostsFile, &c.CertificateFile} {
		*p = expandHome(*p)
	}
	jumps := make([]Hop, len(c.Jumps))
	for i, h := range c.Jumps {
		h.PrivateKeyFile, h.KnownHostsFile = expandHome(h.PrivateKeyFile), expandHome(h.KnownHostsFile)
		jumps[i] = h
	}
	if c.Jumps != nil {
		c.Jumps = jumps
	}
	return c
}
