package shell

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path"
	"strings"
)

// AtomicWrite is the one way a file is replaced on a remote host by a shell: the content
// arrives on standard input, goes to a temporary file next to Path, and is renamed over Path
// only once it is complete, with its mode and owner set.
type AtomicWrite struct {
	Path  string
	Temp  string // from TempName(Path)
	Size  int    // bytes expected on standard input
	Mode  os.FileMode
	Owner string // chown argument, "" to keep the writer's
	// MakeDirs creates the missing directories of Path first (mode 755, given Owner).
	MakeDirs bool
}

// Script is the write as one shell list (run it with Sh):
//
//	[for d in /a /a/b; do if [ ! -d "$d" ]; then mkdir -m 755 -- "$d" [&& chown -- OWNER "$d"] || exit; fi; done;]
//	set -C; umask 077; trap 'rm -f -- TMP' EXIT;
//	cat > TMP && n=$(wc -c < TMP) && [ $n -eq SIZE ] && chmod MODE TMP [&& chown -- OWNER TMP] && mv -f -- TMP PATH
//
// noclobber refuses a temporary file that exists, umask 077 keeps the data private until
// chmod, the size check refuses a stream cut short (cat sees EOF when the session ends), so a
// partial file is never renamed into place, and the EXIT trap removes the temporary file on
// failure. Only missing directories are created; existing ones are left alone.
func (w AtomicWrite) Script() Script {
	var b strings.Builder
	if w.MakeDirs {
		var dirs []string
		for d := path.Dir(w.Path); d != "/" && d != "."; d = path.Dir(d) {
			dirs = append([]string{Quote(d)}, dirs...)
		}
		if len(dirs) > 0 {
			b.WriteString(`for d in ` + strings.Join(dirs, " ") + `; do if [ ! -d "$d" ]; then mkdir -m 755 -- "$d"`)
			if w.Owner != "" {
				b.WriteString(` && chown -- ` + Quote(w.Owner) + ` "$d"`)
			}
			b.WriteString(` || exit; fi; done; `)
		}
	}
	t := Quote(w.Temp)
	fmt.Fprintf(&b, "set -C; umask 077; trap %s EXIT; ", Quote("rm -f -- "+t))
	fmt.Fprintf(&b, "cat > %s && n=$(wc -c < %s) && [ $n -eq %d ] && chmod %s %s", t, t, w.Size, ChmodMode(w.Mode), t)
	if w.Owner != "" {
		fmt.Fprintf(&b, " && chown -- %s %s", Quote(w.Owner), t)
	}
	fmt.Fprintf(&b, " && mv -f -- %s %s", t, Quote(w.Path))
	return Raw(b.String()) // every interpolated word is quoted above
}

// TempName is a fresh temporary name next to p: ".<name>.tmp-<random>".
func TempName(p string) (string, error) {
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

// ChmodMode renders mode for chmod(1), setuid, setgid and sticky included: "0644".
func ChmodMode(mode os.FileMode) string {
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
