package tasks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// KeptSuffix names the copy Kept makes of a file a resource replaces: /etc/nccl.conf keeps
// the file that was there before in /etc/nccl.conf.roce-orig, where an administrator finds
// it and Restored puts it back.
const KeptSuffix = ".roce-orig"

// Kept keeps the file at Path before a File task writes Content there: the first time it
// finds another file there, it copies it, content, mode and owner, to Path+KeptSuffix. It
// changes nothing when the copy exists already, when there is no file, or when the file is
// already Content (written by an earlier apply, which kept its own copy or found none).
type Kept struct {
	Path    string
	Content string
}

var _ host.Task = Kept{}

// Name implements host.Task: "keep <path>".
func (t Kept) Name() string { return "keep " + t.Path }

// Needs implements host.Task: the file and its copy.
func (t Kept) Needs() host.Want { return host.Want{}.WithFiles(t.Path, t.Path+KeptSuffix) }

// Plan implements host.Task.
func (t Kept) Plan(f host.Facts) ([]host.Change, error) {
	kept := t.Path + KeptSuffix
	fi, err := gatheredFile(f, t.Path)
	if err != nil {
		return nil, err
	}
	ki, err := gatheredFile(f, kept)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(t.Content))
	switch {
	case ki.Exists:
		return []host.Change{host.Unchanged(t.Path + " was kept in " + kept)}, nil
	case !fi.Exists:
		return []host.Change{host.Unchanged("no file at " + t.Path + " to keep")}, nil
	case fi.Type == host.FileRegular && fi.SHA256 == hex.EncodeToString(sum[:]):
		return []host.Change{host.Unchanged(t.Path + " is already the file to write")}, nil
	case fi.Type == host.FileDirectory:
		return nil, fmt.Errorf("%s is a directory, not a file: refusing to replace it", t.Path)
	}
	tmp, err := shell.TempName(kept)
	if err != nil {
		return nil, err
	}
	// cp -p keeps mode, owner and times; -P copies a symbolic link as a link. The copy is
	// renamed into place only once complete.
	return []host.Change{{
		Summary: "keep " + t.Path + " in " + kept,
		Before:  fmt.Sprintf("%s, %d bytes, %04o %s:%s", fi.Type, fi.Size, fi.Mode.Perm(), fi.Owner, fi.Group),
		After:   "kept",
		Apply: host.Commands{Run: []shell.Runnable{shell.And(
			shell.New("cp", "-P", "-p", "--", t.Path, tmp),
			shell.New("mv", "-f", "--", tmp, kept),
		)}, Sudo: true},
	}}, nil
}

// Restored puts back at Path what Kept kept, content, mode and owner, or removes the file at
// Path when there was none before: what destroy of a resource that wrote Path does. Without a
// kept copy, only a file the resource wrote is removed (its content is Written, or it holds
// Mark), so that a second destroy, or the check after the first, leaves the restored file.
type Restored struct {
	Path    string
	Written string
	Mark    string
}

var _ host.Task = Restored{}

// Name implements host.Task: "restore <path>".
func (t Restored) Name() string { return "restore " + t.Path }

// Needs implements host.Task: the file and its kept copy.
func (t Restored) Needs() host.Want { return host.Want{}.WithFiles(t.Path, t.Path+KeptSuffix) }

// Plan implements host.Task.
func (t Restored) Plan(f host.Facts) ([]host.Change, error) {
	kept := t.Path + KeptSuffix
	ki, err := gatheredFile(f, kept)
	if err != nil {
		return nil, err
	}
	if !ki.Exists {
		fi, err := gatheredFile(f, t.Path)
		if err != nil {
			return nil, err
		}
		written := t.Written != "" && string(fi.Content) == t.Written && fi.Complete() ||
			t.Mark != "" && bytes.Contains(fi.Content, []byte(t.Mark))
		if fi.Exists && !written {
			return []host.Change{host.Unchanged(t.Path + " was not written by this resource: left as it is")}, nil
		}
		return Absent{Path: t.Path}.Plan(f)
	}
	if ki.Type == host.FileDirectory {
		return nil, fmt.Errorf("%s is a directory, not the kept copy of %s: refusing to restore it", kept, t.Path)
	}
	return []host.Change{{
		Summary: "restore " + t.Path + " from " + kept,
		Before:  "written by the provider",
		After:   fmt.Sprintf("%s, %d bytes, %04o %s:%s, as before", ki.Type, ki.Size, ki.Mode.Perm(), ki.Owner, ki.Group),
		Apply:   host.Commands{Run: []shell.Runnable{shell.New("mv", "-f", "--", kept, t.Path)}, Sudo: true},
	}}, nil
}
