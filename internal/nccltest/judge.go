package nccltest

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/preflight"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// The verdicts' check ids, beside preflight's nccl_* checks of the same run's log.
const (
	CheckCompleted = "nccl_test_completed"
	CheckRanks     = "nccl_test_ranks"
	CheckData      = "nccl_test_data"
	CheckBusBW     = "nccl_test_busbw"
)

// Options say what the run should reach.
type Options struct {
	// MinBusBWGBps is the bus bandwidth the largest message size must reach, in GB/s; 0 only
	// reports it.
	MinBusBWGBps float64
	// MinBusBWFraction is the share of Topology's expected bus bandwidth the largest size must
	// reach; 0 does not check. With MinBusBWGBps too, both must be met.
	MinBusBWFraction float64
	// Topology is what the expected bus bandwidth is derived from.
	Topology Topology
	// Algo is the run's NCCL_ALGO, empty when unset: a busbw past the rails' bound is explained
	// by another algorithm than Ring.
	Algo string
	// Rails is the number of RDMA NICs each host should give NCCL; 0 does not check.
	Rails int
	// Ranks is the number of ranks the run should have, hosts x GPUs per host (Run.Ranks); 0
	// only checks that the processes ran as one job.
	Ranks int
	// Preflight tunes the log's verdicts (GDR required or not).
	Preflight preflight.Options
}

// Judge returns the run's verdicts: it completed, its ranks ran as one job, its data checked
// out, its bus bandwidth at the largest size against the minimum (with the likely cause when
// short, from the merged log and each host's lines), then the NCCL log's own verdicts
// (network, GDR, warnings).
func Judge(r Result, log facts.NCCLLog, hosts map[string]HostNet, o Options) []verdict.Verdict {
	var vs []verdict.Verdict
	add := func(check string, ok bool, detail, remedy string) {
		v := verdict.Verdict{Check: check, Pass: ok, Detail: detail}
		if !ok {
			v.Remedy = remedy
		}
		vs = append(vs, v)
	}
	largest, ran := r.Largest()
	add(CheckCompleted, ran && r.Footer, fmt.Sprintf("%d message sizes, footer %v", len(r.Rows), r.Footer),
		"the test ended early (no rows, or no \"# Avg bus bandwidth\" footer): read its output for the error — a rank that died, a timeout, or mpirun failing to start it on every host")
	oneJob, ranksDetail := ranksVerdict(r, o.Ranks)
	add(CheckRanks, oneJob, ranksDetail, builtWithoutMPI)
	nranks := r.rankCount()
	if nranks == 0 {
		nranks = o.Ranks
	}
	add(CheckData, dataOK(r, nranks), dataDetail(r, nranks),
		"the reduction returned wrong values: a faulty GPU, NVLink, NIC or cable corrupts data; run each host alone (single-node all_reduce_perf -c 1) and with NCCL_ALGO=Ring across pairs of hosts to find it")
	peak := max(largest.OutOfPlace.BusBW, largest.InPlace.BusBW)
	detail := fmt.Sprintf("bus bandwidth %.2f GB/s at %d bytes (average over all sizes %g GB/s)", peak, largest.SizeBytes, r.AvgBusBW) + expectedDetail(peak, o)
	floor, asked := minimum(o)
	switch {
	case !ran:
		add(CheckBusBW, false, "no rows to judge", "run the test to completion")
	case !oneJob:
		add(CheckBusBW, false, detail+", measured by processes that each ran alone, not across the hosts (see "+CheckRanks+")", builtWithoutMPI)
	case o.MinBusBWFraction > 0 && floor < 0:
		why, remedy := o.Topology.whyUnknown()
		add(CheckBusBW, false, fmt.Sprintf("%s; min_busbw_fraction %g cannot be judged: %s", detail, o.MinBusBWFraction, why), remedy)
	case floor <= 0:
		add(CheckBusBW, true, detail+"; no minimum set", "")
	case peak >= floor:
		add(CheckBusBW, true, fmt.Sprintf("%s, at least %s", detail, asked), "")
	default:
		cause, remedy := shortfall(log, hosts, o)
		add(CheckBusBW, false, fmt.Sprintf("%s, below %s: %s", detail, asked, cause), remedy)
	}
	return append(vs, preflight.CheckNCCLLog(log, o.Preflight)...)
}

// minimum is the bus bandwidth the run must reach and how to word it: the higher of
// MinBusBWGBps and MinBusBWFraction of the expected bandwidth. It is -1 when a fraction is
// asked and no expected bandwidth is known.
func minimum(o Options) (gbps float64, asked string) {
	gbps, asked = o.MinBusBWGBps, fmt.Sprintf("the %.2f GB/s asked", o.MinBusBWGBps)
	if o.MinBusBWFraction <= 0 {
		return gbps, asked
	}
	exp, ok := o.Topology.ExpectedBusBW()
	if !ok {
		return -1, ""
	}
	if f := o.MinBusBWFraction * exp; f >= gbps {
		gbps, asked = f, fmt.Sprintf("the %.2f GB/s asked (%g of %.2f GB/s expected)", f, o.MinBusBWFraction, exp)
	}
	return gbps, asked
}

// expectedDetail says what the rails should carry and the ratio of the measure to it, and
// why the measure can pass the rails' bound when NCCL chose another algorithm than Ring.
func expectedDetail(peak float64, o Options) string {
	exp, ok := o.Topology.ExpectedBusBW()
	if !ok {
		return ""
	}
	d := fmt.Sprintf("; expected %.2f GB/s from %s, ratio %.2f", exp, o.Topology.describe(), peak/exp)
	if peak > exp*ringSlack && !IsRing(o.Algo) {
		d += " (above the rails' bound: without NCCL_ALGO=Ring, NCCL may pick Tree or NVLS, which cross the network less on few nodes; set NCCL_ALGO=Ring to measure the rails)"
	}
	return d
}

// ringSlack is how far above the expected bandwidth a Ring run may measure before the
// detail explains it: the efficiency is a typical figure, not a ceiling.
const ringSlack = 1.05

func dataOK(r Result, nranks int) bool {
	if !r.OutOfBoundsOK && r.Footer {
		return false
	}
	for _, row := range r.Rows {
		if r.wrong(row.OutOfPlace, row.Type, nranks) || r.wrong(row.InPlace, row.Type, nranks) {
			return false
		}
	}
	return true
}

func dataDetail(r Result, nranks int) string {
	var bad []string
	unchecked := false
	for _, row := range r.Rows {
		if !r.wrong(row.OutOfPlace, row.Type, nranks) && !r.wrong(row.InPlace, row.Type, nranks) {
			unchecked = unchecked || row.OutOfPlace.Unchecked
			continue
		}
		if r.MaxDelta {
			bad = append(bad, fmt.Sprintf("%d bytes (largest error %g/%g, above %g)", row.SizeBytes, row.OutOfPlace.Wrong, row.InPlace.Wrong, deltaBound(row.Type, nranks)))
		} else {
			bad = append(bad, fmt.Sprintf("%d bytes (%g/%g wrong)", row.SizeBytes, row.OutOfPlace.Wrong, row.InPlace.Wrong))
		}
	}
	d := fmt.Sprintf("out of bounds values %d", r.OutOfBounds)
	if len(bad) > 0 {
		d += "; wrong results at " + strings.Join(bad, ", ")
	}
	if unchecked {
		d += "; results not checked (-c 0)"
	}
	return d
}

// shortfall names the likely cause of a low bus bandwidth from the run's NCCL log, host by
// host where the merged log would hide one host among the others.
func shortfall(l facts.NCCLLog, hosts map[string]HostNet, o Options) (cause, remedy string) {
	var gdrOff, fewRails []string
	for _, name := range slices.Sorted(maps.Keys(hosts)) {
		h := hosts[name]
		if len(h.GDRDisabled) > 0 {
			gdrOff = append(gdrOff, name+" ("+strings.Join(h.GDRDisabled, ", ")+")")
		}
		if o.Rails > 0 && len(h.HCAs) > 0 && len(h.HCAs) < o.Rails {
			fewRails = append(fewRails, fmt.Sprintf("%s used %d (%s)", name, len(h.HCAs), strings.Join(h.HCAs, ", ")))
		}
	}
	switch {
	case slices.Contains(l.Networks, "Socket"):
		return "NCCL fell back to its Socket transport (TCP) instead of RDMA",
			"see the nccl_network verdict for why RDMA was unusable (NCCL_IB_DISABLE, no device, libibverbs missing), fix it and re-run"
	case len(l.Networks) == 0:
		return "the output has no NCCL debug lines to say why",
			"run with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET (the data source sets them unless env overrides them)"
	case len(gdrOff) > 0:
		return "GPU Direct RDMA was off on " + strings.Join(gdrOff, "; ") + ", so transfers bounced through host memory",
			"load nvidia-peermem (or use DMA-BUF with the open kernel modules) on every host, and keep NCCL_NET_GDR_LEVEL at PXB or higher; roce_host_bootstrap gpudirect does this"
	case l.NetChannels > 0 && l.GDRDMAChannels == 0:
		return "no channel went via GDRDMA, so transfers bounced through host memory",
			"enable GPU Direct RDMA: nvidia-peermem or DMA-BUF, and a GPU/NIC distance within NCCL_NET_GDR_LEVEL"
	case len(fewRails) > 0:
		return fmt.Sprintf("a rail is down or excluded: of the %d rails per host, %s", o.Rails, strings.Join(fewRails, "; ")),
			"bring the missing NIC's port up (ibv_devinfo PORT_ACTIVE), check NCCL_IB_HCA lists every rail, and check the cable and switch port"
	}
	return "NCCL used RDMA with GPU Direct on every rail it listed, so the fabric itself is slow",
		"sample roce_fabric_health while the test runs: pauses, ECN marks and drops show where the fabric loses bandwidth"
}
