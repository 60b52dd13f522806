package host

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path"
	"strings"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// writeCleanupTimeout bounds the removal of a temporary file after a failed
// write.
const writeCleanupTimeout = 10 * time.Second

// writeWithDirs writes w in one remote command that first creates the
// missing directories of w.Path and then replaces the file atomically, the
// content on standard input; sudo runs it as root.
func writeWithDirs(ctx context.Context, r Runner, w WriteFile, sudo bool) error {
	tmp, err := writeTempName(w.Path)
	if err != nil {
		return err
	}
	script, err := w.dirsScript(tmp)
	if err != nil {
		return fmt.Errorf("write %s: %w", w.Path, err)
	}
	_, err = r.Run(ctx, script, ssh.RunOptions{Stdin: bytes.NewReader(w.Content), Sudo: sudo})
	if err == nil {
		return nil
	}
	// The script's EXIT trap removes the temporary file unless the shell
	// was killed; a ConnectError means nothing ran.
	var ce *ssh.ConnectError
	if !errors.As(err, &ce) {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeCleanupTimeout)
		if rm, rerr := shell.New("rm", "-f", "--", tmp).Render(); rerr == nil {
			_, _ = r.Run(cctx, rm, ssh.RunOptions{Sudo: sudo})
		}
		cancel()
	}
	return fmt.Errorf("write %s: %w", w.Path, err)
}

// dirsScript is the command of writeWithDirs, run in its own sh:
//
//	for d in /a /a/b; do if [ ! -d "$d" ]; then mkdir -m 755 -- "$d" && chown -- OWNER "$d" || exit; fi; done
//	set -C; umask 077; trap 'rm -f -- TMP' EXIT
//	cat > TMP && n=$(wc -c < TMP) && [ $n -eq SIZE ] && chmod MODE TMP [&& chown -- OWNER TMP] && mv -f -- TMP PATH
//
// Only the directories that do not exist are created and given the file's
// owner; existing ones are left alone. noclobber refuses a temporary file
// that exists, umask 077 keeps the data private until chmod, and the size
// check refuses a stream cut short, so a partial file is never renamed into
// place.
func (w WriteFile) dirsScript(tmp string) (string, error) {
	var dirs []string
	for d := path.Dir(w.Path); d != "/" && d != "."; d = path.Dir(d) {
		dirs = append([]string{shell.Quote(d)}, dirs...)
	}
	var b strings.Builder
	if len(dirs) > 0 {
		b.WriteString(`for d in ` + strings.Join(dirs, " ") + `; do if [ ! -d "$d" ]; then mkdir -m 755 -- "$d"`)
		if w.Owner != "" {
			b.WriteString(` && chown -- ` + shell.Quote(w.Owner) + ` "$d"`)
		}
		b.WriteString(` || exit; fi; done; `)
	}
	t := shell.Quote(tmp)
	fmt.Fprintf(&b, "set -C; umask 077; trap %s EXIT; ", shell.Quote("rm -f -- "+t))
	fmt.Fprintf(&b, "cat > %s && n=$(wc -c < %s) && [ $n -eq %d ] && chmod %s %s", t, t, len(w.Content), chmodMode(w.Mode), t)
	if w.Owner != "" {
		fmt.Fprintf(&b, " && chown -- %s %s", shell.Quote(w.Owner), t)
	}
	fmt.Fprintf(&b, " && mv -f -- %s %s", t, shell.Quote(w.Path))
	return shell.Sh(shell.Raw(b.String())).Render()
}

// writeTempName is a temporary name next to p: ".<name>.tmp-<random>".
func writeTempName(p string) (string, error) {
	var r [8]byte
	if _, err := rand.Read(r[:]); err != nil {
		return "", err
	}
	base := path.Base(p)
	if len(base) > 200 {
		base = base[:200]
	}
	return path.Join(path.Dir(p), "."+base+".tmp-"+hex.EncodeToString(r[:])), nil
}

// chmodMode renders mode for chmod(1), setuid, setgid and sticky included.
func chmodMode(mode os.FileMode) string {
	m := uint32(mode.Perm())
	if mode&os.ModeSetuid != 0 {
		m |= 0o4000
	}
	if mode&os.ModeSetgid != 0 {
		m |= 0o2000
	}
	if mode&os.ModeSticky != 0 {
		m |= 0o1000
	}
	return fmt.Sprintf("%04o", m)
}
