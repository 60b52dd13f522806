package nccltest

import (
	"regexp"
	"slices"
)

// HostNet is what one host's ranks logged about their network in a run's NCCL lines: a
// multi-host log merges every host's, and a fault on one host hides among the others' lines.
type HostNet struct {
	// HCAs are the devices of its "NET/IB : Using" lines, each once.
	HCAs []string
	// GDRDisabled are the HCAs of its "GPU Direct RDMA Disabled for HCA" lines.
	GDRDisabled []string
}

var (
	// NCCL's line prefix is "host:pid:tid [cudaDev] NCCL INFO " (src/debug.cc); a launcher may
	// put its own before it (mpirun's "[1,0]<stdout>:").
	ncclHostLine = regexp.MustCompile(`([^\s:\[\]<>]+) ?:\d+:\d+ \[\d+\] NCCL INFO (.*)$`)
	ncclUsingIB  = regexp.MustCompile(`NET/IB ?: Using(.*)$`)
	ncclHCA      = regexp.MustCompile(`\[\d{1,4}\] ?([^\s:\[\]{},]+):\d{1,4}`)
	ncclGDROff   = regexp.MustCompile(`GPU Direct RDMA Disabled for HCA \d+ '([^']*)'`)
)

// ParseHostNets reads the NCCL lines of out by host.
func ParseHostNets(out string) map[string]HostNet {
	hosts := map[string]HostNet{}
	for _, line := range splitLines(out) {
		m := ncclHostLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		h := hosts[m[1]]
		if u := ncclUsingIB.FindStringSubmatch(m[2]); u != nil {
			for _, d := range ncclHCA.FindAllStringSubmatch(u[1], -1) {
				if !slices.Contains(h.HCAs, d[1]) {
					h.HCAs = append(h.HCAs, d[1])
				}
			}
		}
		if g := ncclGDROff.FindStringSubmatch(m[2]); g != nil && !slices.Contains(h.GDRDisabled, g[1]) {
			h.GDRDisabled = append(h.GDRDisabled, g[1])
		}
		hosts[m[1]] = h
	}
	return hosts
}
