package host

import (
	"os"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// MaxFileContent is how much of a file the file fact brings back; larger files
// are compared by their SHA-256 alone.
const MaxFileContent = 64 << 10

// FileType is the kind of a file system entry.
type FileType string

// The file types the file fact reports.
const (
	FileRegular   FileType = "regular file"
	FileDirectory FileType = "directory"
	FileSymlink   FileType = "symbolic link"
	FileOther     FileType = "other"
)

// FileInfo is what the file fact read of one path. A path that does not exist
// has Exists false and nothing else set but DirMissing. A symbolic link is
// not followed: it has its own mode, owner and size, and Target instead of a
// content. Only regular files have SHA256 and Content.
type FileInfo struct {
	// Path is the absolute path.
	Path string
	// Exists reports whether the path exists (a dangling symlink does).
	Exists bool
	// DirMissing reports, for a path that does not exist, that its
	// directory does not exist either (or is no directory): a write creates
	// the missing directories first.
	DirMissing bool
	// Type is the kind of entry; symlinks are not followed.
	Type FileType
	// Target is what a symbolic link points to, as readlink prints it.
	Target string
	// Mode holds the permission bits, setuid, setgid and sticky included.
	Mode os.FileMode
	// UID and GID are the numeric owner and group.
	UID, GID int
	// Owner and Group are their names ("UNKNOWN" when the host has none).
	Owner, Group string
	// Size is the size in bytes; for a symbolic link, the length of its
	// target.
	Size int64
	// SHA256 is the hex SHA-256 of the content (regular files only).
	SHA256 string
	// Content is the content, cut at MaxFileContent bytes (regular files
	// only).
	Content []byte
}

// Complete reports whether Content holds the whole file. It is false for a
// symbolic link, whose size is that of its target's name.
func (fi FileInfo) Complete() bool { return int64(len(fi.Content)) == fi.Size }

// fileProbe prints "absent" for a missing path whose directory exists and
// "absent nodir" for one whose directory does not. For a path that exists it
// prints a stat line of the entry itself, symlinks not followed ("<raw mode
// hex> <uid> <gid> <size> <user>:<group>": the names last, since they may hold
// blanks, as directory users such as "domain users" do, and never a colon,
// which separates the fields of passwd and group), then
//   - for a symbolic link, its target (readlink), never what it points to;
//   - for a regular file, the sha256sum line and the first MaxFileContent
//     bytes;
//   - for anything else (a directory, a FIFO that would block a reader, a
//     device), nothing.
//
// The path is its first argument ("$1"), so it is never part of the script
// text. It is a trusted constant.
var fileProbe = `if [ ! -e "$1" ] && [ ! -h "$1" ]; then d=${1%/*}; ` +
	`if [ -d "${d:-/}" ]; then echo absent; else echo absent nodir; fi; exit 0; fi; ` +
	`stat -c '%f %u %g %s %U:%G' -- "$1" || exit; ` +
	`if [ -h "$1" ]; then exec readlink -- "$1"; fi; ` +
	`if [ ! -f "$1" ]; then exit 0; fi; ` +
	`sha256sum <"$1" && exec head -c ` + strconv.Itoa(MaxFileContent) + ` -- "$1"`

// fileCommand is the command of the file fact for path: "sh -c <probe> sh
// <path>", every word quoted.
func fileCommand(path string) shell.Command {
	return shell.New("sh", "-c", fileProbe, "sh", path)
}

// ParseFileProbe reads the output of the file fact for path.
func ParseFileProbe(path, out string) (FileInfo, error) {
	label := fileLabel(path)
	switch out {
	case "absent\n":
		return FileInfo{Path: path}, nil
	case "absent nodir\n":
		return FileInfo{Path: path, DirMissing: true}, nil
	}
	statLine, rest, ok := strings.Cut(out, "\n")
	if !ok {
		return FileInfo{}, &facts.ParseError{Fact: label, Text: cut(out), Msg: "want a stat line"}
	}
	fi, err := parseStat(path, statLine)
	if err != nil {
		return FileInfo{}, &facts.ParseError{Fact: label, Line: 1, Text: cut(statLine), Msg: "want <mode> <uid> <gid> <size> <user>:<group>", Err: err}
	}
	switch fi.Type {
	case FileRegular:
	case FileSymlink:
		target, ok := strings.CutSuffix(rest, "\n")
		if !ok || target == "" {
			return FileInfo{}, &facts.ParseError{Fact: label, Line: 2, Text: cut(rest), Msg: "want the symbolic link's target"}
		}
		fi.Target = target
		return fi, nil
	default:
		if rest != "" {
			return FileInfo{}, &facts.ParseError{Fact: label, Line: 2, Text: cut(rest), Msg: "want nothing after the stat line of a " + string(fi.Type)}
		}
		return fi, nil
	}
	sumLine, content, ok := strings.Cut(rest, "\n")
	if !ok {
		return FileInfo{}, &facts.ParseError{Fact: label, Text: cut(out), Msg: "want a stat line and a sha256sum line"}
	}
	sum, _, _ := strings.Cut(sumLine, " ")
	if !isHex(sum, 64) {
		return FileInfo{}, &facts.ParseError{Fact: label, Line: 2, Text: cut(sumLine), Msg: "want a SHA-256"}
	}
	fi.SHA256 = sum
	if int64(len(content)) > fi.Size || len(content) > MaxFileContent {
		return FileInfo{}, &facts.ParseError{Fact: label, Msg: "more content than the file's size"}
	}
	fi.Content = []byte(content)
	return fi, nil
}

func parseStat(path, line string) (FileInfo, error) {
	f := strings.SplitN(line, " ", 5)
	if len(f) != 5 {
		return FileInfo{}, strconv.ErrSyntax
	}
	owner, group, ok := strings.Cut(f[4], ":")
	if !ok || owner == "" || group == "" {
		return FileInfo{}, strconv.ErrSyntax
	}
	raw, err := strconv.ParseUint(f[0], 16, 32)
	if err != nil {
		return FileInfo{}, err
	}
	uid, err := strconv.Atoi(f[1])
	if err != nil {
		return FileInfo{}, err
	}
	gid, err := strconv.Atoi(f[2])
	if err != nil {
		return FileInfo{}, err
	}
	size, err := strconv.ParseInt(f[3], 10, 64)
	if err != nil || size < 0 {
		return FileInfo{}, strconv.ErrSyntax
	}
	return FileInfo{
		Path: path, Exists: true, Type: fileType(raw), Mode: fileMode(raw),
		UID: uid, GID: gid, Owner: owner, Group: group, Size: size,
	}, nil
}

// fileType reads the S_IFMT bits of a raw st_mode.
func fileType(raw uint64) FileType {
	switch raw & 0o170000 {
	case 0o100000:
		return FileRegular
	case 0o040000:
		return FileDirectory
	case 0o120000:
		return FileSymlink
	}
	return FileOther
}

// fileMode converts the permission, setuid, setgid and sticky bits of a raw
// st_mode to an os.FileMode.
func fileMode(raw uint64) os.FileMode {
	m := os.FileMode(raw & 0o777)
	if raw&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	if raw&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if raw&0o1000 != 0 {
		m |= os.ModeSticky
	}
	return m
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
