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
	// MakeDirs creates the missing directories of Path first (mode 755, given Owner once the
	// file is in place).
	MakeDirs bool
}

// UnsafeDirMessage refuses to write in a directory that someone other than root and the
// writer can change. Its %s verbs are the directory, its owner's uid and its mode in octal
// ("0777"). The shell script prints it with printf and Go code formats it with fmt, so both
// write paths say the same.
const UnsafeDirMessage = "refusing to write in %s (owner uid %s, mode %s): a directory that group " +
	"or others can write, or that a user other than root and the writer owns, lets that user swap " +
	"the temporary file for a symlink; make it owned by root or the writing user and not writable " +
	"by group or others (chmod go-w)"

// ExitUnsafeDir is the exit status of [AtomicWrite.Script] when it refuses the directory.
const ExitUnsafeDir = 45

// Script is the write as one shell list (run it with Sh):
//
//	[set --; p=/; for d in /a /a/b; do if [ ! -d "$d" ]; then mkdir -m 755 -- "$d" && sync -- "$p" || exit; set -- "$@" "$d"; fi; p=$d; done;]
//	dir=DIR; s=$(stat -Lc '%u %a' -- "$dir") || exit; u=${s% *}; m=${s#* };
//	if [ $((0$m & 022)) -ne 0 ] || { [ "$u" -ne 0 ] && [ "$u" -ne "$(id -u)" ]; }; then printf UnsafeDirMessage "$dir" "$u" "0$m" >&2; exit 45; fi;
//	set -C; umask 077; trap 'rm -f -- TMP' EXIT;
//	cat > TMP && n=$(wc -c < TMP) && [ $n -eq SIZE ] && chmod MODE TMP [&& chown -h -- OWNER TMP] && sync -- TMP && mv -f -- TMP PATH && sync -- DIR [&& { [ $# -eq 0 ] || chown -h -- OWNER "$@"; }]
//
// Every step works on paths, and chmod, sync and mv act on whatever the name holds by then:
// safe only in a directory no one else can change. So the script refuses a directory that
// group or others can write or that a user other than root and the writer owns, as OpenSSH's
// StrictModes does; sticky ones such as /tmp too, the provider's files never belong there.
// noclobber refuses a temporary file that exists, umask 077 makes it 0600 from its creation
// until chmod, the size check refuses a stream cut short (cat sees EOF when the session ends),
// so a partial file is never renamed into place, chown -h never follows a link, and the EXIT
// trap removes the temporary file on failure. The file is synced before the rename and the
// directory after it, so a power loss leaves the old file or the new one, never an empty one
// (sync(1) takes files since coreutils 8.24; older ones sync everything). Only missing
// directories are created, each synced into its parent, and given Owner once the file is in
// place, so that the directory check sees the writer's own directory.
func (w AtomicWrite) Script() Script {
	var b strings.Builder
	dir := path.Dir(w.Path)
	chownDirs := false
	if w.MakeDirs {
		var dirs []string
		for d := dir; d != "/" && d != "."; d = path.Dir(d) {
			dirs = append([]string{Quote(d)}, dirs...)
		}
		if len(dirs) > 0 {
			chownDirs = w.Owner != ""
			if chownDirs {
				b.WriteString("set --; ")
			}
			b.WriteString(`p=/; for d in ` + strings.Join(dirs, " ") + `; do if [ ! -d "$d" ]; then mkdir -m 755 -- "$d" && sync -- "$p" || exit; `)
			if chownDirs {
				b.WriteString(`set -- "$@" "$d"; `)
			}
			b.WriteString(`fi; p=$d; done; `)
		}
	}
	fmt.Fprintf(&b, `dir=%s; s=$(stat -Lc '%%u %%a' -- "$dir") || exit; u=${s%% *}; m=${s#* }; `, Quote(dir))
	fmt.Fprintf(&b, `if [ $((0$m & 022)) -ne 0 ] || { [ "$u" -ne 0 ] && [ "$u" -ne "$(id -u)" ]; }; then printf %s "$dir" "$u" "0$m" >&2; exit %d; fi; `,
		Quote(UnsafeDirMessage+`\n`), ExitUnsafeDir)
	t := Quote(w.Temp)
	fmt.Fprintf(&b, "set -C; umask 077; trap %s EXIT; ", Quote("rm -f -- "+t))
	fmt.Fprintf(&b, "cat > %s && n=$(wc -c < %s) && [ $n -eq %d ] && chmod %s %s", t, t, w.Size, ChmodMode(w.Mode), t)
	if w.Owner != "" {
		fmt.Fprintf(&b, " && chown -h -- %s %s", Quote(w.Owner), t)
	}
	fmt.Fprintf(&b, " && sync -- %s && mv -f -- %s %s && sync -- \"$dir\"", t, t, Quote(w.Path))
	if chownDirs {
		fmt.Fprintf(&b, ` && { [ $# -eq 0 ] || chown -h -- %s "$@"; }`, Quote(w.Owner))
	}
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
