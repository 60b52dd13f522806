package host

import (
	"errors"
	"fmt"
	"os"
	"path"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Task is one concern of a host resource: it reads facts and yields the
// changes that bring the host to the state it wants.
type Task interface {
	// Name identifies the task in reports and errors, e.g.
	// "module nvidia_peermem".
	Name() string
	// Needs returns what Plan reads: facts and files.
	Needs() Want
	// Plan compares f with the wanted state and returns the changes to make,
	// in order. It is pure: no I/O, the same facts give the same changes.
	// A change with a nil Apply is a note saying why something needs no
	// change; a task that returns only notes (or nothing) is unchanged.
	Plan(f Facts) ([]Change, error)
}

// Change is one difference between a host and the wanted state, and the step
// that removes it.
type Change struct {
	// Task is the name of the task that yielded the change; the engine sets
	// it.
	Task string
	// Summary is a readable line, e.g. "load kernel module nvidia_peermem".
	// For a note (nil Apply) it says why no change is needed.
	Summary string
	// Before and After describe the state before and after the change, e.g.
	// "not loaded" and "loaded".
	Before, After string
	// Subject is the device the change is on, spelled as Summary, Before and After spell it
	// (a netdev, or "mlx5_0 (ens1f0np0)"); empty when the change is on the host as a whole.
	// A plan shows the changes of a task that differ only in their subject as one line.
	Subject string
	// Apply is the step that makes the change; nil for a note.
	Apply Step
}

// Unchanged returns a note: a Change without a step that says why nothing
// needs doing.
func Unchanged(reason string) Change { return Change{Summary: reason} }

// Step is what applying a change does on the host: [Commands] or a
// [WriteFile].
type Step interface {
	// Lines renders the step as readable lines for a plan.
	Lines() []string
	// validate reports a step that cannot be applied.
	validate() error
}

// Commands runs commands in order, stopping at the first that fails.
// Consecutive Commands of one task that agree on Sudo run as one remote
// script, joined with &&.
type Commands struct {
	// Run are the commands.
	Run []shell.Runnable
	// Sudo marks commands that need root: with Engine.Sudo they run through
	// sudo.
	Sudo bool
	// Finish marks commands that must run to their end once started (package
	// transactions, firmware writes): an interrupt waits for them instead of
	// signalling them (ssh.RunOptions.Finish).
	Finish bool
	// Explain, when set, turns a failure of the commands into a clearer
	// error, e.g. one that names the cause and the remedy. It returns nil for
	// failures it does not recognise.
	Explain func(err error) error
}

// Lines returns the rendered commands, marked "(as root)" when Sudo is set.
func (c Commands) Lines() []string {
	out := make([]string, len(c.Run))
	for i, r := range c.Run {
		out[i] = "run: " + r.String()
		if c.Sudo {
			out[i] += " (as root)"
		}
	}
	return out
}

func (c Commands) validate() error {
	if len(c.Run) == 0 {
		return errors.New("no commands to run")
	}
	for _, r := range c.Run {
		if r == nil {
			return errors.New("nil command")
		}
		if _, err := r.Render(); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile replaces a file atomically (temporary file in the same directory,
// then rename) with Content, Mode and Owner. When the gather found the file
// absent and its directory missing too, or did not read the file at all, the
// write first creates the missing directories (mode 0755, owned by Owner), in
// the same round trip.
type WriteFile struct {
	// Path is the absolute path.
	Path string
	// Content is the whole new content.
	Content []byte
	// Mode is the file mode.
	Mode os.FileMode
	// Owner is "user", "user:group" or ":group" (names or numbers); empty
	// leaves the new file to the writing user.
	Owner string
	// Sudo marks a write that needs root: with Engine.Sudo it goes through
	// sudo.
	Sudo bool
	// Withheld marks a write whose content the provider does not have (a
	// write-only secret, planned during a refresh): applying it fails.
	Withheld bool

	// makeDirs is set by the engine when the write must create directories.
	makeDirs bool
}

// Lines returns one line naming the path, size, mode and owner.
func (w WriteFile) Lines() []string {
	s := fmt.Sprintf("write: %s (%d bytes, mode %#o", shell.Quote(w.Path), len(w.Content), w.Mode.Perm())
	if w.Owner != "" {
		s += ", owner " + w.Owner
	}
	if w.makeDirs {
		s += ", missing directories created"
	}
	s += ")"
	if w.Sudo {
		s += " (as root)"
	}
	return []string{s}
}

func (w WriteFile) validate() error {
	if !path.IsAbs(w.Path) || path.Clean(w.Path) != w.Path || w.Path == "/" {
		return fmt.Errorf("write %q: want an absolute, clean file path", w.Path)
	}
	for i := 0; i < len(w.Path); i++ {
		if w.Path[i] == 0 {
			return fmt.Errorf("write %q: %w", w.Path, shell.ErrNUL)
		}
	}
	return nil
}
