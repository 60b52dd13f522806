package facts

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// PeerMemVersionPath is where nvidia-peermem's peer-memory client registers
// with OFED's peer-memory API; NCCL checks that it exists.
const PeerMemVersionPath = "/sys/kernel/mm/memory_peers/nv_mem/version"

// peerMemMarker is the line PeerMemCommand prints when the file exists.
const peerMemMarker = "registered"

// PeerMemCommand prints "registered" and then the version file's content when
// the peer-memory client is registered, and nothing (exit status 0) when it
// is not.
var PeerMemCommand = shell.Or(
	shell.And(
		shell.New("test", "-e", PeerMemVersionPath),
		shell.New("printf", `%s\n`, peerMemMarker),
		shell.New("cat", PeerMemVersionPath).With(shell.Discard(2)),
	),
	shell.New("true"),
)

// PeerMemProbe is the peer-memory registration probe.
var PeerMemProbe = Probe[PeerMem]{Name: "memory_peers", Command: PeerMemCommand, Parse: ParsePeerMem}

// PeerMem is the state of nvidia-peermem's registration with OFED.
type PeerMem struct {
	// Registered reports that the nv_mem peer-memory client exists.
	Registered bool
	// Version is the first non-empty line of the version file as printed.
	// Its format is not documented; treat it as opaque.
	Version string
}

// ParsePeerMem reads the output of [PeerMemCommand].
func ParsePeerMem(out string) (PeerMem, error) {
	ls := lines(out)
	var pm PeerMem
	for i, line := range ls {
		v := strings.TrimSpace(line)
		switch {
		case v == "":
		case !pm.Registered && v == peerMemMarker:
			pm.Registered = true
		case !pm.Registered:
			return PeerMem{}, lineError("memory_peers", i+1, line, "want %q first", peerMemMarker)
		case pm.Version == "":
			pm.Version = v
		}
	}
	return pm, nil
}
