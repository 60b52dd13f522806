package fabric

import (
	"fmt"
	"slices"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Conventional values of the RDMA traffic contract, as NVIDIA's RoCE defaults
// use them on hosts and switches.
const (
	DefaultRDMADSCP     = 26 // AF31
	DefaultRDMAPriority = 3
	DefaultCNPDSCP      = 48 // ConnectX firmware default cnp_dscp
	DefaultCNPPriority  = 6  // ConnectX firmware default cnp_802p_prio
	ECNBitsECT0         = 2  // ECN-capable transport (0), what RoCE NICs send
	TrustDSCP           = "dscp"
	TrustPCP            = "pcp"
)

// TrafficClass is the RDMA traffic contract every part of the fabric must
// agree on: the DSCP values and priority of RoCE data, the DSCP and priority
// of congestion notification packets (CNPs), the ECN bits the NIC sets and
// the NIC's trust mode.
type TrafficClass struct {
	DSCP        []int  // RoCE data DSCP values, default [26]
	Priority    int    // RDMA priority / traffic class, default 3
	CNPDSCP     int    // default 48
	CNPPriority int    // default 6
	ECNBits     int    // ECN field in the ToS byte, default 2 (ECT(0))
	Trust       string // "dscp" (default) or "pcp"
}

// DefaultTrafficClass returns the conventional contract: DSCP 26 on
// priority 3, CNPs on DSCP 48 / priority 6, ECT(0), DSCP trust.
func DefaultTrafficClass() TrafficClass {
	return TrafficClass{
		DSCP:        []int{DefaultRDMADSCP},
		Priority:    DefaultRDMAPriority,
		CNPDSCP:     DefaultCNPDSCP,
		CNPPriority: DefaultCNPPriority,
		ECNBits:     ECNBitsECT0,
		Trust:       TrustDSCP,
	}
}

// The traffic class's fields, as violations name them.
var (
	FieldRDMADSCP     = violation.At("TrafficClass.DSCP")
	FieldRDMAPriority = violation.At("TrafficClass.Priority")
	FieldCNPDSCP      = violation.At("TrafficClass.CNPDSCP")
	FieldCNPPriority  = violation.At("TrafficClass.CNPPriority")
	FieldECNBits      = violation.At("TrafficClass.ECNBits")
	FieldTrust        = violation.At("TrafficClass.Trust")
)

// Validate checks the contract.
func (c TrafficClass) Validate() violation.List {
	var vs violation.List
	vs = append(vs, c.validateDSCPs()...)
	vs = append(vs, checkRange(FieldRDMAPriority, "a priority", int64(c.Priority), 0, 7)...)
	vs = append(vs, checkRange(FieldCNPPriority, "a priority", int64(c.CNPPriority), 0, 7)...)
	vs = append(vs, c.validateCNP()...)
	vs = append(vs, c.validateECNBits()...)
	if c.Trust != TrustDSCP && c.Trust != TrustPCP {
		vs = append(vs, violation.ErrorAt(FieldTrust, TrustUnknown{Trust: c.Trust}))
	}
	return vs
}

func (c TrafficClass) validateDSCPs() violation.List {
	if len(c.DSCP) == 0 {
		return violation.List{violation.ErrorAt(FieldRDMADSCP, DSCPMissing{})}
	}
	var vs violation.List
	seen := map[int]bool{}
	for i, d := range c.DSCP {
		at := FieldRDMADSCP.Elem(i)
		if r := checkRange(at, "a DSCP", int64(d), 0, 63); r != nil {
			vs = append(vs, r...)
			continue
		}
		if seen[d] {
			vs = append(vs, violation.ErrorAt(at, DSCPRepeated{DSCP: d}))
			continue
		}
		seen[d] = true
		vs = append(vs, c.dscpMappingWarning(at, d)...)
	}
	return vs
}

// dscpMappingWarning warns when the NIC's default DSCP-to-priority mapping
// (priority = DSCP >> 3) does not put d on the RDMA priority. Only DSCP
// trust classifies by DSCP, so the warning applies to it alone.
func (c TrafficClass) dscpMappingWarning(at violation.Field, d int) violation.List {
	if c.Trust != TrustDSCP || c.Priority < 0 || c.Priority > 7 || d>>3 == c.Priority {
		return nil
	}
	return violation.List{violation.WarningAt(at, DSCPNeedsMapping{DSCP: d, Priority: c.Priority})}
}

func (c TrafficClass) validateCNP() violation.List {
	vs := checkRange(FieldCNPDSCP, "a DSCP", int64(c.CNPDSCP), 0, 63)
	if slices.Contains(c.DSCP, c.CNPDSCP) {
		vs = append(vs, violation.ErrorAt(FieldCNPDSCP, CNPDSCPShared{DSCP: c.CNPDSCP}))
	}
	if c.CNPPriority == c.Priority && c.Priority >= 0 && c.Priority <= 7 {
		vs = append(vs, violation.ErrorAt(FieldCNPPriority, CNPPriorityShared{Priority: c.CNPPriority}))
	}
	return vs
}

func (c TrafficClass) validateECNBits() violation.List {
	if r := checkRange(FieldECNBits, "an ECN field", int64(c.ECNBits), 0, 3); r != nil {
		return r
	}
	if c.ECNBits == 0 || c.ECNBits == 3 {
		return violation.List{violation.WarningAt(FieldECNBits, ECNBitsUnusable{Bits: c.ECNBits})}
	}
	return nil
}

// TrustUnknown: a trust mode that is neither DSCP nor PCP.
type TrustUnknown struct{ Trust string }

func (r TrustUnknown) Words(at violation.Field, name violation.Names) (string, string) {
	return "Invalid Trust Mode", fmt.Sprintf("%s is %q; it must be %q or %q: use %q for RoCEv2",
		name(at), r.Trust, TrustDSCP, TrustPCP, TrustDSCP)
}

// DSCPMissing: no DSCP for RoCE data.
type DSCPMissing struct{}

func (DSCPMissing) Words(at violation.Field, name violation.Names) (string, string) {
	return "Missing RDMA DSCP", fmt.Sprintf("%s is empty; RoCE data needs at least one DSCP: set it to [%d]", name(at), DefaultRDMADSCP)
}

// DSCPRepeated: a DSCP listed twice.
type DSCPRepeated struct{ DSCP int }

func (r DSCPRepeated) Words(at violation.Field, name violation.Names) (string, string) {
	return "Repeated RDMA DSCP", fmt.Sprintf("%s repeats DSCP %d: list each DSCP once", name(at), r.DSCP)
}

// DSCPNeedsMapping: a DSCP the NIC's default dscp2prio (DSCP >> 3) puts on another priority.
type DSCPNeedsMapping struct{ DSCP, Priority int }

func (r DSCPNeedsMapping) Words(at violation.Field, name violation.Names) (string, string) {
	return "DSCP Needs an Explicit NIC Mapping", fmt.Sprintf(
		"%s is %d, which the NIC's default dscp2prio maps to priority %d, not %s %d: "+
			"the NIC needs an explicit mapping (mlnx_qos --dscp2prio set,%d,%d), or use a DSCP in %d..%d",
		name(at), r.DSCP, r.DSCP>>3, name(FieldRDMAPriority), r.Priority, r.DSCP, r.Priority, r.Priority<<3, r.Priority<<3+7)
}

// CNPDSCPShared: the CNP DSCP is also a data DSCP.
type CNPDSCPShared struct{ DSCP int }

func (r CNPDSCPShared) Words(at violation.Field, name violation.Names) (string, string) {
	return "CNP DSCP Shared With RDMA", fmt.Sprintf("%s is %d, which is also an RDMA data DSCP: CNPs need their own DSCP (default %d)",
		name(at), r.DSCP, DefaultCNPDSCP)
}

// CNPPriorityShared: CNPs on the data priority.
type CNPPriorityShared struct{ Priority int }

func (r CNPPriorityShared) Words(at violation.Field, name violation.Names) (string, string) {
	return "CNP Priority Shared With RDMA", fmt.Sprintf(
		"%s is %d, the same as %s: CNPs must not wait behind paused RDMA data; use a separate priority (default %d)",
		name(at), r.Priority, name(FieldRDMAPriority), DefaultCNPPriority)
}

// ECNBitsUnusable: ECN bits 0 (Not-ECT) or 3 (CE), with which DCQCN cannot work.
type ECNBitsUnusable struct{ Bits int }

func (r ECNBitsUnusable) Words(at violation.Field, name violation.Names) (string, string) {
	if r.Bits == 0 {
		return "RDMA Traffic Not ECN-Capable", fmt.Sprintf(
			"%s is 0 (Not-ECT): switches cannot mark congestion, so DCQCN never reacts; use %d (ECT(0))", name(at), ECNBitsECT0)
	}
	return "RDMA Traffic Pre-Marked Congested", fmt.Sprintf(
		"%s is 3 (CE): every packet arrives marked, so receivers send CNPs constantly; use %d (ECT(0))", name(at), ECNBitsECT0)
}

// ToS returns the ToS / traffic class byte of RoCE data, DSCP[0]<<2 |
// ECNBits: 106 for the default contract. It returns -1 when the class has
// no DSCP; call Validate first.
func (c TrafficClass) ToS() int {
	if len(c.DSCP) == 0 {
		return -1
	}
	return c.DSCP[0]<<2 | c.ECNBits
}

// ToS returns the ToS byte for a DSCP (0..63) and ECN field (0..3), the
// value NCCL_IB_TC and the OFED traffic_class file take.
func ToS(dscp, ecnBits int) (int, error) {
	if dscp < 0 || dscp > 63 {
		return 0, fmt.Errorf("dscp %d is out of range: use 0..63", dscp)
	}
	if ecnBits < 0 || ecnBits > 3 {
		return 0, fmt.Errorf("ecn bits %d are out of range: use 0..3 (2 = ECT(0))", ecnBits)
	}
	return dscp<<2 | ecnBits, nil
}

// CNPKnobs returns the notification-point knobs the contract sets on the
// NIC, as OFED sysfs names under ecn/roce_np: cnp_dscp, cnp_802p_prio.
func (c TrafficClass) CNPKnobs() []Knob {
	return []Knob{
		{Name: "cnp_dscp", Value: int64(c.CNPDSCP)},
		{Name: "cnp_802p_prio", Value: int64(c.CNPPriority)},
	}
}
