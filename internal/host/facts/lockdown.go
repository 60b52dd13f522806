package facts

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// LockdownMode is the kernel lockdown mode.
type LockdownMode string

// The kernel lockdown modes.
const (
	LockdownNone            LockdownMode = "none"
	LockdownIntegrity       LockdownMode = "integrity"
	LockdownConfidentiality LockdownMode = "confidentiality"
)

// BlocksDebugfsWrites reports whether the mode makes writable debugfs files
// (the mlx5 cc_params) unusable; integrity mode already does.
func (m LockdownMode) BlocksDebugfsWrites() bool { return m != LockdownNone && m != "" }

// LockdownPath is the lockdown LSM's state file; a kernel without the
// lockdown LSM has no such file, which means no lockdown.
const LockdownPath = "/sys/kernel/security/lockdown"

// LockdownCommand prints the lockdown state, or nothing when the kernel has
// no lockdown LSM.
var LockdownCommand = shell.Or(shell.New("cat", LockdownPath).With(shell.Discard(2)), shell.New("true"))

// LockdownProbe is the kernel lockdown probe.
var LockdownProbe = Probe[LockdownMode]{Name: "lockdown", Command: LockdownCommand, Parse: ParseLockdown}

// ParseLockdown reads "none [integrity] confidentiality" and returns the
// bracketed mode. Empty output (no lockdown LSM) is [LockdownNone].
func ParseLockdown(out string) (LockdownMode, error) {
	const fact = "lockdown"
	var selected LockdownMode
	n := 0
	for i, line := range lines(out) {
		for _, w := range strings.Fields(line) {
			inner, ok := strings.CutPrefix(w, "[")
			if !ok {
				continue
			}
			inner, ok = strings.CutSuffix(inner, "]")
			if !ok || inner == "" {
				return "", lineError(fact, i+1, line, "unbalanced brackets")
			}
			selected = LockdownMode(inner)
			n++
		}
		if strings.TrimSpace(line) != "" && n == 0 {
			return "", lineError(fact, i+1, line, "no [selected] mode")
		}
	}
	switch {
	case n == 0:
		return LockdownNone, nil
	case n > 1:
		return "", &ParseError{Fact: fact, Msg: "more than one [selected] mode"}
	}
	return selected, nil
}
