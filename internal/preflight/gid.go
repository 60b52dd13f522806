package preflight

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// gidAutoSince is the first NCCL minor version (2.x) that selects the GID
// index itself; older versions use index 0 unless NCCL_IB_GID_INDEX is set.
const gidAutoSince = 21

// checkGIDs returns a roce_v2_gid verdict per RoCE device and one
// gid_index_consistent verdict. Devices without an Ethernet port are left to
// nic_link_layer.
func checkGIDs(f host.Facts, o Options) []verdict.Verdict {
	if v, missing := unread(f, CheckRoCEv2GID, host.FactIBDevices, host.FactGIDs); missing {
		return []verdict.Verdict{v}
	}
	netdevs := netdevsByDevice(f)
	var vs []verdict.Verdict
	var found []deviceIndex
	var none []string
	for _, d := range f.IBDevices {
		if !hasRoCEPort(d) {
			continue
		}
		idx, ok := f.GIDIndex(d.Name)
		if !ok {
			none = append(none, d.Name)
			vs = append(vs, noGID(d.Name, netdevs[d.Name]))
			continue
		}
		found = append(found, deviceIndex{d.Name, idx})
		vs = append(vs, pass(CheckRoCEv2GID, d.Name, describeGID(f.GIDs, d.Name, idx)))
	}
	if len(vs) == 0 {
		return nil
	}
	return append(vs, gidConsistency(found, none, o))
}

// deviceIndex is an RDMA device and the index of its RoCE v2 IPv4 GID.
type deviceIndex struct {
	device string
	index  int
}

// hasRoCEPort reports whether any port of d runs Ethernet.
func hasRoCEPort(d facts.IBDevice) bool {
	for _, p := range d.Ports {
		if p.RoCE() {
			return true
		}
	}
	return false
}

// noGID is the failed roce_v2_gid verdict of a device without the entry.
func noGID(device, netdev string) verdict.Verdict {
	target := "the device's netdev"
	if netdev != "" {
		target = netdev
	}
	return fail(CheckRoCEv2GID, device,
		"no RoCE v2 GID with an IPv4-mapped address in the GID table: NCCL finds no usable RoCE v2 address on this HCA",
		fmt.Sprintf("give %s an IPv4 address and bring it up (the kernel fills the GID table from the netdev's addresses), and check that RoCE v2 is not disabled on the port", target))
}

// describeGID says where a device's RoCE v2 IPv4 GID is.
func describeGID(gids []facts.GIDEntry, device string, idx int) string {
	s := fmt.Sprintf("RoCE v2 IPv4 GID at index %d", idx)
	for _, e := range gids {
		if e.Device != device || e.Index != idx || e.Type != facts.GIDRoCEv2 || !e.IPv4 {
			continue
		}
		if ip := e.IP(); ip.IsValid() {
			s += " (" + ip.String()
			if e.Netdev != "" {
				s += " on " + e.Netdev
			}
			s += ")"
		}
		break
	}
	return s
}

// gidConsistency judges whether one NCCL_IB_GID_INDEX fits every device.
func gidConsistency(found []deviceIndex, none []string, o Options) verdict.Verdict {
	var list []string
	distinct := map[int]bool{}
	for _, d := range found {
		list = append(list, fmt.Sprintf("%s=%d", d.device, d.index))
		distinct[d.index] = true
	}
	seen := "RoCE v2 IPv4 GID index " + strings.Join(list, ", ")
	if len(none) > 0 {
		seen += "; none on " + strings.Join(none, ", ")
	}
	if len(found) == 0 {
		return fail(CheckGIDIndex, "", "no RoCE device has a RoCE v2 IPv4 GID",
			"fix the GID tables first (see roce_v2_gid): every RoCE netdev needs an IPv4 address")
	}
	if o.ExpectedGIDIndex >= 0 {
		var off []string
		for _, d := range found {
			if d.index != o.ExpectedGIDIndex {
				off = append(off, fmt.Sprintf("%s=%d", d.device, d.index))
			}
		}
		if len(off) > 0 {
			return fail(CheckGIDIndex, "", fmt.Sprintf("%s; expected %d, differs on %s", seen, o.ExpectedGIDIndex, strings.Join(off, ", ")),
				fmt.Sprintf("NCCL_IB_GID_INDEX=%d selects a wrong GID on those HCAs: leave NCCL_IB_GID_INDEX unset on NCCL ≥ 2.21 (it selects the RoCE v2 IPv4 GID per HCA), or set the index the GID tables show", o.ExpectedGIDIndex))
		}
		return pass(CheckGIDIndex, "", seen+versionNote(o.NCCLLog, found[0].index))
	}
	if len(distinct) > 1 {
		return fail(CheckGIDIndex, "", seen+": the indexes differ, and NCCL_IB_GID_INDEX applies to every HCA",
			"leave NCCL_IB_GID_INDEX unset and use NCCL ≥ 2.21, which selects the RoCE v2 IPv4 GID per HCA (filter with NCCL_IB_ADDR_FAMILY or NCCL_IB_ADDR_RANGE if needed); or make the GID tables agree: the same addresses in the same order, no extra or secondary addresses or VLANs ahead of the RoCE v2 IPv4 entry on some netdevs")
	}
	return pass(CheckGIDIndex, "", seen+versionNote(o.NCCLLog, found[0].index))
}

// versionNote warns, for an NCCL log older than 2.21, that NCCL does not
// select the GID index itself.
func versionNote(l *facts.NCCLLog, idx int) string {
	if l == nil {
		return ""
	}
	major, minor, ok := ncclVersion(l.Version)
	if !ok || major > 2 || minor >= gidAutoSince {
		return ""
	}
	return fmt.Sprintf("; note: NCCL %s uses GID index 0 (link-local RoCE v1) unless NCCL_IB_GID_INDEX=%d is set", l.Version, idx)
}

// ncclVersion reads the major and minor numbers of an NCCL version such as
// "2.21.5+cuda12.4".
func ncclVersion(v string) (major, minor int, ok bool) {
	parts := strings.SplitN(v, ".", 3)
	if len(parts) < 2 {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	return major, minor, err1 == nil && err2 == nil
}
