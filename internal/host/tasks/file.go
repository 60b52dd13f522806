package tasks

import (
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// DefaultFileMode is the mode of a File whose Mode is zero.
const DefaultFileMode os.FileMode = 0o644

// File makes the file at Path hold Content with Mode (and Owner, when set).
// It writes the whole file, atomically, when any of them differs.
type File struct {
	// Path is the absolute, clean path.
	Path string
	// Content is the wanted content.
	Content string
	// Mode is the wanted permission bits (0 to 0777); zero means
	// DefaultFileMode.
	Mode os.FileMode
	// Owner is "user" or "user:group" (names or numeric ids); empty leaves
	// the owner alone: an existing file keeps its owner and group, a new one
	// belongs to the writing user.
	Owner string
	// Secret marks content that holds credentials: the plan's lines name
	// neither the content, its hash nor its size, of the wanted file or of
	// the one on the host.
	Secret bool
	// Withheld marks Content as not at hand (a write-only secret during a
	// refresh, Secret too): the file is compared by its existence, mode and
	// owner only, and a missing one cannot be written until the content is.
	Withheld bool
}

var _ host.Task = File{}

// Name implements host.Task: "file <path>".
func (t File) Name() string { return "file " + t.Path }

// Needs implements host.Task: the file itself.
func (t File) Needs() host.Want { return host.Want{}.WithFiles(t.Path) }

// Plan implements host.Task.
func (t File) Plan(f host.Facts) ([]host.Change, error) {
	if t.Mode&^os.ModePerm != 0 {
		return nil, fmt.Errorf("file %s: mode %v: want permission bits only (0 to 0777)", t.Path, t.Mode)
	}
	fi, err := gatheredFile(f, t.Path)
	if err != nil {
		return nil, err
	}
	if fi.Exists && fi.Type != host.FileRegular {
		return nil, fmt.Errorf("%s is a %s, not a regular file: refusing to replace it", t.Path, fi.Type)
	}
	mode := t.mode()
	sum := sha256Hex([]byte(t.Content))
	want := t.describe(sum)
	if !fi.Exists && t.Withheld {
		return []host.Change{{
			Summary: "create " + t.Path + " (its content is write-only: written at the next apply that has it)",
			Before:  "absent",
			After:   want,
			Apply:   t.write(""),
		}}, nil
	}
	if !fi.Exists {
		summary := fmt.Sprintf("create %s (%d bytes)", t.Path, len(t.Content))
		if t.Secret {
			summary = "create " + t.Path
		}
		return []host.Change{{
			Summary: summary,
			Before:  "absent",
			After:   want,
			Apply:   t.write(""),
		}}, nil
	}
	var diffs []string
	if fi.SHA256 != sum && !t.Withheld {
		d := fmt.Sprintf("sha256 %s → %s", shortHash(fi.SHA256), shortHash(sum))
		switch {
		case t.Secret:
			d = "(secret) differs"
		case fi.Complete():
			d = diffSummary(string(fi.Content), t.Content)
		}
		diffs = append(diffs, "content "+d)
	}
	if fi.Mode != mode {
		diffs = append(diffs, fmt.Sprintf("mode %#o → %#o", uint32(fi.Mode), uint32(mode)))
	}
	if !ownerMatches(t.Owner, fi) {
		diffs = append(diffs, "owner "+fi.Owner+":"+fi.Group+" → "+t.Owner)
	}
	if len(diffs) == 0 {
		if t.Withheld {
			return []host.Change{host.Unchanged(t.Path + " has the wanted mode (its write-only content is not compared)")}, nil
		}
		if t.Secret {
			return []host.Change{host.Unchanged(t.Path + " has the wanted content and mode")}, nil
		}
		return []host.Change{host.Unchanged(t.Path + " has the wanted content (sha256 " + shortHash(sum) + ") and mode")}, nil
	}
	return []host.Change{{
		Summary: "update " + t.Path + ": " + strings.Join(diffs, ", "),
		Before:  t.describeFile(fi),
		After:   want,
		Apply:   t.write(strconv.Itoa(fi.UID) + ":" + strconv.Itoa(fi.GID)),
	}}, nil
}

func (t File) mode() os.FileMode {
	if t.Mode == 0 {
		return DefaultFileMode
	}
	return t.Mode
}

// write is the step; keep is the owner of the existing file ("uid:gid"),
// used when t.Owner is empty so that a rewrite does not change it.
func (t File) write(keep string) host.WriteFile {
	owner := t.Owner
	if owner == "" {
		owner = keep
	}
	if t.Withheld {
		return host.WriteFile{Path: t.Path, Mode: t.mode(), Owner: owner, Sudo: true, Withheld: true}
	}
	return host.WriteFile{Path: t.Path, Content: []byte(t.Content), Mode: t.mode(), Owner: owner, Sudo: true}
}

// describe is the wanted state as a line.
func (t File) describe(sum string) string {
	s := fmt.Sprintf("sha256 %s (%d bytes), mode %#o", shortHash(sum), len(t.Content), uint32(t.mode()))
	if t.Secret {
		s = fmt.Sprintf("secret content, mode %#o", uint32(t.mode()))
	}
	if t.Owner != "" {
		s += ", owner " + t.Owner
	}
	return s
}

// describeFile is the existing file's state as a line.
func (t File) describeFile(fi host.FileInfo) string {
	if t.Secret {
		return fmt.Sprintf("secret content, mode %#o, owner %s:%s", uint32(fi.Mode), fi.Owner, fi.Group)
	}
	return fmt.Sprintf("sha256 %s (%d bytes), mode %#o, owner %s:%s", shortHash(fi.SHA256), fi.Size, uint32(fi.Mode), fi.Owner, fi.Group)
}

// ownerMatches compares an owner spec ("user", "user:group", ":group"; names
// or numbers) with a file's owner and group; an empty spec matches anything.
func ownerMatches(spec string, fi host.FileInfo) bool {
	if spec == "" {
		return true
	}
	user, group, _ := strings.Cut(spec, ":")
	if user != "" && user != fi.Owner && user != strconv.Itoa(fi.UID) {
		return false
	}
	return group == "" || group == fi.Group || group == strconv.Itoa(fi.GID)
}

// checkPath requires an absolute, clean path without NUL bytes.
func checkPath(p string) error {
	if !path.IsAbs(p) || path.Clean(p) != p || p == "/" {
		return fmt.Errorf("file path %q: want an absolute, clean path", p)
	}
	if strings.IndexByte(p, 0) >= 0 {
		return fmt.Errorf("file path %q: contains a NUL byte", p)
	}
	return nil
}
