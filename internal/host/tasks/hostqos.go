package tasks

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// HostQoS sets the NIC side of the lossless class on ConnectX physical
// functions: the priority trust state and PFC with mlnx_qos, the OFED
// port-global RoCE traffic class (tc/1/traffic_class, which overrides the
// class applications ask for, NCCL's NCCL_IB_TC included) and the default
// ToS of RDMA-CM connections (cma_roce_tos; NCCL does not use RDMA-CM).
//
// Only what differs is set, all netdevs of a host in one remote script.
// Everything here is runtime state, lost at reboot and driver reload: add a
// Persistence task to re-apply it.
type HostQoS struct {
	// Netdevs are the PF netdevs to configure; empty means every ConnectX
	// physical function whose RDMA port has an Ethernet link layer.
	Netdevs []string
	// Trust is the priority trust state, "dscp" or "pcp"; empty leaves it.
	Trust string
	// PFCPriorities are the priorities with PFC on, each 0..7, all others
	// off. nil leaves PFC alone; an empty, non-nil slice turns PFC off.
	PFCPriorities []int
	// TrafficClass is the ToS byte to force on every RoCE QP of the port
	// (OFED tc/1/traffic_class), 0..255, e.g. 106; -1 leaves it. Note that
	// 0 is a value: it forces class 0.
	TrafficClass int
	// CMARoCETos is the default ToS of RDMA-CM connections on port 1,
	// 0..255; -1 leaves it.
	CMARoCETos int
}

var _ host.Task = HostQoS{}

// vfQoS is why a VF netdev cannot take QoS settings.
const vfQoS = "mlnx_qos cannot set a VF's trust or PFC, and the VF's RoCE class follows its physical function"

// Name implements host.Task: "host qos", followed by the netdevs when named.
func (t HostQoS) Name() string {
	if len(t.Netdevs) == 0 {
		return "host qos"
	}
	return "host qos " + strings.Join(t.Netdevs, ",")
}

// Needs implements host.Task: the ConnectX netdevs, the RDMA devices, when
// trust or PFC is set mlnx_qos, and when the traffic class or RDMA-CM ToS is
// set the RDMA stack (both are OFED features) and their current values.
func (t HostQoS) Needs() host.Want {
	s := roceSelectionNeeds()
	if t.setsMlnxQoS() {
		s = s.Union(host.WantFacts(host.FactQoS))
	}
	if t.setsClass() {
		s = s.Union(host.WantFacts(host.FactOFED)).Union(t.classStateNeeds())
	}
	return s
}

func (t HostQoS) setsClass() bool { return t.TrafficClass >= 0 || t.CMARoCETos >= 0 }

// checkClassStack refuses the traffic class and RDMA-CM ToS on the inbox
// stack: tc/1/traffic_class and cma_roce_tos come with OFED.
func (t HostQoS) checkClassStack(f host.Facts) error {
	if !t.setsClass() || !f.Has(host.FactOFED) || f.OFED.Flavor != facts.OFEDInbox {
		return nil
	}
	return errors.New("the traffic class (tc/1/traffic_class) and cma_roce_tos are OFED features and this host runs " +
		"the inbox rdma-core stack: install DOCA-OFED or MLNX_OFED, or set TrafficClass and CMARoCETos to -1 " +
		"and give NCCL its class with NCCL_IB_TC")
}

func (t HostQoS) setsMlnxQoS() bool { return t.Trust != "" || t.PFCPriorities != nil }

// validate checks the values.
func (t HostQoS) validate() error {
	switch t.Trust {
	case "", fabric.TrustDSCP, fabric.TrustPCP:
	default:
		return fmt.Errorf("trust %q: want %q, %q or empty to leave it", t.Trust, fabric.TrustDSCP, fabric.TrustPCP)
	}
	seen := map[int]bool{}
	for _, p := range t.PFCPriorities {
		if p < 0 || p > 7 {
			return fmt.Errorf("PFC priority %d: want 0..7", p)
		}
		if seen[p] {
			return fmt.Errorf("PFC priority %d is listed twice: list each priority once", p)
		}
		seen[p] = true
	}
	if t.TrafficClass < -1 || t.TrafficClass > 255 {
		return fmt.Errorf("traffic class %d: want a ToS byte 0..255 (e.g. 106 = DSCP 26 with ECT(0)) or -1 to leave it", t.TrafficClass)
	}
	if t.CMARoCETos < -1 || t.CMARoCETos > 255 {
		return fmt.Errorf("RDMA-CM ToS %d: want 0..255 or -1 to leave it", t.CMARoCETos)
	}
	return nil
}

// pfcList renders the PFC setting as mlnx_qos takes it: "0,0,0,1,0,0,0,0".
func (t HostQoS) pfcList() string {
	var on [8]bool
	for _, p := range t.PFCPriorities {
		on[p] = true
	}
	return pfcCSV(on)
}

func pfcCSV(on [8]bool) string {
	s := make([]string, 8)
	for i, b := range on {
		s[i] = "0"
		if b {
			s[i] = "1"
		}
	}
	return strings.Join(s, ",")
}

// Plan implements host.Task: per netdev the mlnx_qos options that differ,
// the traffic class and the RDMA-CM ToS.
func (t HostQoS) Plan(f host.Facts) ([]host.Change, error) {
	return t.plan(rdmaStateOf(f))
}

func (t HostQoS) plan(st rdmaState) ([]host.Change, error) {
	if err := t.validate(); err != nil {
		return nil, err
	}
	if !t.setsMlnxQoS() && !t.setsClass() {
		return []host.Change{host.Unchanged("nothing to set: trust, PFC, traffic class and RDMA-CM ToS are all left as they are")}, nil
	}
	nds, out, err := selectRoCENetdevs(st.f, t.Netdevs, vfQoS)
	if err != nil {
		return nil, err
	}
	if err := t.checkClassStack(st.f); err != nil {
		return nil, err
	}
	for _, n := range nds {
		cs, err := t.planNetdev(st, n)
		if err != nil {
			return nil, err
		}
		out = append(out, cs...)
	}
	return out, nil
}

func (t HostQoS) planNetdev(st rdmaState, n host.Netdev) ([]host.Change, error) {
	var out []host.Change
	if t.setsMlnxQoS() {
		c, err := t.planMlnxQoS(st.f, n)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if !t.setsClass() {
		return out, nil
	}
	if n.RDMADevice == "" {
		return nil, fmt.Errorf("netdev %s has no RDMA device, so its traffic class and RDMA-CM ToS cannot be set: load mlx5_ib", n.Name)
	}
	if !rdmaDevRE.MatchString(n.RDMADevice) {
		return nil, fmt.Errorf("netdev %s: RDMA device name %q has characters a device name never has", n.Name, n.RDMADevice)
	}
	if t.TrafficClass >= 0 {
		c, err := planTrafficClass(st.tc, n, t.TrafficClass)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if t.CMARoCETos >= 0 {
		c, err := planCMATos(st.tos, n, t.CMARoCETos)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// pfcEnabled is the PFC state of q as a list of the enabled priorities.
func pfcEnabled(q [8]bool) []int {
	var out []int
	for i, on := range q {
		if on {
			out = append(out, i)
		}
	}
	return out
}

// samePFC reports whether the task's PFC priorities are those of q.
func (t HostQoS) samePFC(q [8]bool) bool {
	want := slices.Clone(t.PFCPriorities)
	slices.Sort(want)
	return slices.Equal(want, pfcEnabled(q))
}
