package fabric

import "fmt"

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

// Validate checks the contract. Paths: "rdma.dscp", "rdma.dscp[i]",
// "rdma.priority", "rdma.ecn_bits", "cnp.dscp", "cnp.priority", "trust".
func (c TrafficClass) Validate() Findings {
	var fs Findings
	fs = append(fs, c.validateDSCPs()...)
	fs = append(fs, checkRange("rdma.priority", "a priority", int64(c.Priority), 0, 7)...)
	fs = append(fs, checkRange("cnp.priority", "a priority", int64(c.CNPPriority), 0, 7)...)
	fs = append(fs, c.validateCNP()...)
	fs = append(fs, c.validateECNBits()...)
	if c.Trust != TrustDSCP && c.Trust != TrustPCP {
		fs = append(fs, errorf("trust", "Invalid Trust Mode",
			"trust is %q; it must be %q or %q: use %q for RoCEv2", c.Trust, TrustDSCP, TrustPCP, TrustDSCP))
	}
	return fs
}

func (c TrafficClass) validateDSCPs() Findings {
	if len(c.DSCP) == 0 {
		return Findings{errorf("rdma.dscp", "Missing RDMA DSCP",
			"rdma.dscp is empty; RoCE data needs at least one DSCP: set it to [%d]", DefaultRDMADSCP)}
	}
	var fs Findings
	seen := map[int]bool{}
	for i, d := range c.DSCP {
		path := fmt.Sprintf("rdma.dscp[%d]", i)
		if r := checkRange(path, "a DSCP", int64(d), 0, 63); r != nil {
			fs = append(fs, r...)
			continue
		}
		if seen[d] {
			fs = append(fs, errorf(path, "Repeated RDMA DSCP",
				"%s repeats DSCP %d: list each DSCP once", path, d))
			continue
		}
		seen[d] = true
		fs = append(fs, c.dscpMappingWarning(path, d)...)
	}
	return fs
}

// dscpMappingWarning warns when the NIC's default DSCP-to-priority mapping
// (priority = DSCP >> 3) does not put d on the RDMA priority. Only DSCP
// trust classifies by DSCP, so the warning applies to it alone.
func (c TrafficClass) dscpMappingWarning(path string, d int) Findings {
	if c.Trust != TrustDSCP || c.Priority < 0 || c.Priority > 7 || d>>3 == c.Priority {
		return nil
	}
	return Findings{warnf(path, "DSCP Needs an Explicit NIC Mapping",
		"%s is %d, which the NIC's default dscp2prio maps to priority %d, not rdma.priority %d: "+
			"the NIC needs an explicit mapping (mlnx_qos --dscp2prio set,%d,%d), or use a DSCP in %d..%d",
		path, d, d>>3, c.Priority, d, c.Priority, c.Priority<<3, c.Priority<<3+7)}
}

func (c TrafficClass) validateCNP() Findings {
	fs := checkRange("cnp.dscp", "a DSCP", int64(c.CNPDSCP), 0, 63)
	for _, d := range c.DSCP {
		if d == c.CNPDSCP {
			fs = append(fs, errorf("cnp.dscp", "CNP DSCP Shared With RDMA",
				"cnp.dscp is %d, which is also an RDMA data DSCP: CNPs need their own DSCP (default %d)",
				c.CNPDSCP, DefaultCNPDSCP))
			break
		}
	}
	if c.CNPPriority == c.Priority && c.Priority >= 0 && c.Priority <= 7 {
		fs = append(fs, errorf("cnp.priority", "CNP Priority Shared With RDMA",
			"cnp.priority is %d, the same as rdma.priority: CNPs must not wait behind paused RDMA data; use a separate priority (default %d)",
			c.CNPPriority, DefaultCNPPriority))
	}
	return fs
}

func (c TrafficClass) validateECNBits() Findings {
	if r := checkRange("rdma.ecn_bits", "an ECN field", int64(c.ECNBits), 0, 3); r != nil {
		return r
	}
	switch c.ECNBits {
	case 0:
		return Findings{warnf("rdma.ecn_bits", "RDMA Traffic Not ECN-Capable",
			"rdma.ecn_bits is 0 (Not-ECT): switches cannot mark congestion, so DCQCN never reacts; use %d (ECT(0))", ECNBitsECT0)}
	case 3:
		return Findings{warnf("rdma.ecn_bits", "RDMA Traffic Pre-Marked Congested",
			"rdma.ecn_bits is 3 (CE): every packet arrives marked, so receivers send CNPs constantly; use %d (ECT(0))", ECNBitsECT0)}
	}
	return nil
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
