package tasks

import (
	"fmt"
	"regexp"
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// rdmaDevRE is what an RDMA device name looks like ("mlx5_0",
// "rocep23s0f0", "mlx5_bond_0").
var rdmaDevRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// trafficClassFile is OFED's port-global RoCE traffic class of port 1 of an
// RDMA device.
func trafficClassFile(dev string) string {
	return "/sys/class/infiniband/" + dev + "/tc/1/traffic_class"
}

// cmaTosOptions are the cma_roce_tos options after "-d <dev>" that set the
// RDMA-CM default ToS of port 1.
func cmaTosOptions(tos int) []string { return []string{"-t", strconv.Itoa(tos)} }

// cmaTosCommand sets the RDMA-CM default ToS of port 1 of dev.
func cmaTosCommand(dev string, tos int) shell.Command {
	return shell.New("cma_roce_tos", "-d", dev).Arg(cmaTosOptions(tos)...)
}

// planTrafficClass compares the traffic class of n's RDMA device with want.
// tc is nil when the engine did not read it.
func planTrafficClass(tc map[string]int, n host.Netdev, want int) (host.Change, error) {
	dev := n.RDMADevice
	if tc == nil {
		return host.Change{}, &unreadFactError{
			fact:   "OFED traffic_class",
			object: "RDMA device " + dev + " (netdev " + n.Name + ", " + trafficClassFile(dev) + ")",
			fix:    "set TrafficClass to -1 and give NCCL its class with NCCL_IB_TC=" + strconv.Itoa(want),
		}
	}
	cur, ok := tc[dev]
	if !ok {
		return host.Change{}, fmt.Errorf("RDMA device %s (netdev %s) has no %s: the port-global traffic class is "+
			"an OFED feature; install DOCA-OFED or MLNX_OFED, or set TrafficClass to -1 and use NCCL_IB_TC", dev, n.Name, trafficClassFile(dev))
	}
	if cur == want {
		return host.Unchanged(fmt.Sprintf("%s (%s) has traffic class %d", dev, n.Name, want)), nil
	}
	return host.Change{
		Summary: fmt.Sprintf("set the RoCE traffic class of %s (%s) to %d", dev, n.Name, want),
		Subject: fmt.Sprintf("%s (%s)", dev, n.Name),
		Before:  describeTClass(cur),
		After:   describeTClass(want),
		Apply:   host.Commands{Run: []shell.Runnable{echoInto(trafficClassFile(dev), int64(want))}, Sudo: true},
	}, nil
}

// describeTClass renders a traffic class; -1 means none is forced.
func describeTClass(v int) string {
	if v < 0 {
		return "none (applications choose)"
	}
	return "traffic_class " + strconv.Itoa(v)
}

// planCMATos compares the RDMA-CM default ToS of n's RDMA device with want.
// tos is nil when the engine did not read it.
func planCMATos(tos map[string]int, n host.Netdev, want int) (host.Change, error) {
	dev := n.RDMADevice
	if tos == nil {
		return host.Change{}, &unreadFactError{
			fact:   "RDMA-CM default ToS (cma_roce_tos)",
			object: "RDMA device " + dev + " (netdev " + n.Name + ")",
			fix:    "set CMARoCETos to -1; NCCL does not use RDMA-CM, and RDMA-CM applications can set their ToS themselves",
		}
	}
	cur, ok := tos[dev]
	if !ok {
		return host.Change{}, fmt.Errorf("RDMA device %s (netdev %s): cannot read its RDMA-CM default ToS: "+
			"cma_roce_tos ships with DOCA-OFED and MLNX_OFED (mlnx-tools); install OFED or set CMARoCETos to -1", dev, n.Name)
	}
	if cur == want {
		return host.Unchanged(fmt.Sprintf("%s (%s) has RDMA-CM ToS %d", dev, n.Name, want)), nil
	}
	return host.Change{
		Summary: fmt.Sprintf("set the RDMA-CM default ToS of %s (%s) to %d", dev, n.Name, want),
		Subject: fmt.Sprintf("%s (%s)", dev, n.Name),
		Before:  "tos " + strconv.Itoa(cur),
		After:   "tos " + strconv.Itoa(want),
		Apply:   host.Commands{Run: []shell.Runnable{cmaTosCommand(dev, want)}, Sudo: true},
	}, nil
}
