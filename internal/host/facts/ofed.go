package facts

import (
	"regexp"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// OFEDFlavor names the RDMA stack on a host.
type OFEDFlavor string

// The RDMA stacks ofed_info can reveal.
const (
	// OFEDMLNX is the standalone MLNX_OFED (last line 24.10 LTS).
	OFEDMLNX OFEDFlavor = "mlnx"
	// OFEDDOCA is DOCA-OFED, which reports itself as "OFED-internal".
	OFEDDOCA OFEDFlavor = "doca"
	// OFEDInbox is the distribution's rdma-core without OFED; it has no
	// ofed_info at all.
	OFEDInbox OFEDFlavor = "inbox"
)

// OFEDInfo is the RDMA stack reported by "ofed_info -s".
type OFEDInfo struct {
	// Flavor is mlnx, doca or inbox.
	Flavor OFEDFlavor
	// Version is the OFED version without its prefix, e.g. "24.10-3.2.5.0"
	// or "25.10-1.7.1"; empty for inbox.
	Version string
}

// OFEDInfoCommand prints the OFED version in short form. On an inbox host the
// command does not exist; pass its "command not found" output (or nothing) to
// [ParseOFEDInfo], which reads that as inbox.
var OFEDInfoCommand = shell.New("ofed_info", "-s")

// OFEDInfoProbe is the OFED stack probe.
var OFEDInfoProbe = Probe[OFEDInfo]{Name: "ofed_info", Command: OFEDInfoCommand, Parse: ParseOFEDInfo}

// ofedLine matches "MLNX_OFED_LINUX-24.10-3.2.5.0:" and
// "OFED-internal-25.10-1.7.1:", and the first line of the long form,
// "MLNX_OFED_LINUX-23.10-1.1.9.0 (OFED-23.10-1.1.9):".
var ofedLine = regexp.MustCompile(`^(MLNX_OFED_LINUX|OFED-internal)-([0-9]+\.[0-9]+-[0-9]+(?:\.[0-9]+)*)(?: \([^)]*\))?:?$`)

// ParseOFEDInfo reads the output of [OFEDInfoCommand]. Empty output and a
// shell's "command not found" message mean an inbox stack.
func ParseOFEDInfo(out string) (OFEDInfo, error) {
	var unknown []int
	ls := lines(out)
	for i, l := range ls {
		l = strings.TrimSpace(l)
		if l == "" || notFound(l) {
			continue
		}
		m := ofedLine.FindStringSubmatch(l)
		if m == nil {
			unknown = append(unknown, i)
			continue
		}
		flavor := OFEDMLNX
		if m[1] == "OFED-internal" {
			flavor = OFEDDOCA
		}
		return OFEDInfo{Flavor: flavor, Version: m[2]}, nil
	}
	if len(unknown) > 0 {
		i := unknown[0]
		return OFEDInfo{}, lineError("ofed_info", i+1, ls[i], "no MLNX_OFED_LINUX-<ver>: or OFED-internal-<ver>: line")
	}
	return OFEDInfo{Flavor: OFEDInbox}, nil
}
