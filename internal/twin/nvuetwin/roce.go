package nvuetwin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// RoCE mode (nv set qos roce), as the Cumulus Linux user guides describe it
// (CumulusNetworks/docs content/cumulus-linux-{59,512,514}/Layer-1-and-Switch-Ports/
// Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md, "Default RoCE Configuration" and
// "Verify RoCE Configuration"): the applied configuration holds only what was set
// (`qos roce enable on` and its `mode`, a `cable-length` if someone set one), while the
// operational state (`nv show qos roce`, GET /nvue_v1/qos/roce?rev=operational) shows what
// the mode turns on. The keys follow the rows of `nv show qos roce` and its tables
// (`nv show qos roce prio-map`, `tc-map`, `pool-map`: content/nvue-reference/Show-Commands/
// QoS.md); the docs show no JSON of it, so the values keep the CLI's spelling ("0,3",
// "DWRR-50%", "50%") and the thresholds are in bytes.

// The RoCE modes of 5.9 to 5.14 (NVUE command reference, nv set qos roce mode:
// lossless-single-ipool from 5.12; the RoCE guide 5.14 adds lossy-multi-tc).
const (
	roceLossless       = "lossless"
	roceLossy          = "lossy"
	roceLosslessSingle = "lossless-single-ipool"
	roceLossyMultiTC   = "lossy-multi-tc"
)

// The fixed parts of every mode, from the default table of the RoCE guide (5.9, 5.12, 5.14
// alike) and `nv show qos roce`.
const (
	roceDataPriority = 3 // "Switch priority 3 to traffic class 3 (RoCE)"
	roceCNPPriority  = 6 // "Switch priority 6 to traffic class 6 (CNP)"
	// ECN on traffic classes 0 and 3: `nv show qos roce` shows min-threshold 146.48 KB and
	// max-threshold 1.43 MB, and the 5.14 guide's note gives the minimum as 150,000 bytes
	// (the table's "absolute threshold is 1501500 bytes" matches neither; the show output is
	// what the twin serves).
	roceECNMin = 150000.0
	roceECNMax = 1500000.0
	// "LLDP and Application TLV (RoCE) (UDP, Protocol:4791, Priority: 3)".
	roceAppProtocol = 4791.0
	// "The default setting is 100 meters" (NVUE command reference, nv set qos roce cable-length).
	roceDefaultCableLength = 100.0
)

// roceApplied returns the applied `qos roce` object and the mode it turns on: "" when RoCE is
// off or not configured, else its mode, lossless when none is set ("NVUE defaults to RoCE
// lossless. The command nv set qos roce and nv set qos roce mode lossless are equivalent").
// An object without `enable` counts as on, as roceMode reads the spec's defs.
func roceApplied(applied nvue.Tree) (nvue.Tree, string) {
	r := nvue.Object(applied, "qos", "roce")
	if r == nil || r["enable"] == "off" {
		return r, ""
	}
	mode, _ := r["mode"].(string)
	if mode == "" {
		mode = roceLossless
	}
	return r, mode
}

// roceIsLossless reports whether mode enables PFC ("Enable PFC on switch priority 3 (RoCE)":
// lossless mode yes, lossy no; lossless-single-ipool is lossless mode with one ingress pool).
// lossy-multi-tc, the packet trimming profile (5.14 Packet-Trimming.md), is lossy; the guides
// show no table of it, so the twin serves it as lossy mode.
func roceIsLossless(mode string) bool { return mode == roceLossless || mode == roceLosslessSingle }

// roceOperational is `qos roce` at the operational revision for the applied configuration of a
// release: with RoCE off, the applied object as it is (the docs show no output of a switch
// with RoCE off); with it on, what its mode turns on.
func roceOperational(applied nvue.Tree, minor int) nvue.Tree {
	r, mode := roceApplied(applied)
	if mode == "" {
		return nvue.Clone(r)
	}
	// `enable` is configuration only: every `nv show qos roce` shows it in the applied
	// column alone.
	out := nvue.Tree{"mode": mode}
	cable := roceDefaultCableLength
	if n, ok := r["cable-length"].(float64); ok {
		cable = n
	}
	if roceIsLossless(mode) {
		pfc := nvue.Tree{"pfc-priority": float64(roceDataPriority), "rx-enabled": "enabled", "tx-enabled": "enabled"}
		if minor >= 12 { // the 5.12 and 5.14 outputs show the cable length; 5.9's does not
			pfc["cable-length"] = cable
		}
		out["pfc"] = pfc
	} else {
		// Lossy: "pfc-priority -" (NVUE command reference, nv show qos roce, a lossy switch).
		out["pfc"] = nvue.Tree{}
	}
	out["congestion-control"] = nvue.Tree{"congestion-mode": "ECN", "enabled-tc": "0," + strconv.Itoa(roceDataPriority),
		"min-threshold": roceECNMin, "max-threshold": roceECNMax, "probability": 100.0}
	// "Port trust mode": trust-mode pcp,dscp.
	out["trust"] = nvue.Tree{"trust-mode": "pcp,dscp"}
	out["lldp-app-tlv"] = nvue.Tree{"priority": float64(roceDataPriority), "protocol-id": roceAppProtocol, "selector": "UDP"}
	out["prio-map"] = rocePrioMap()
	out["tc-map"] = roceTCMap()
	out["pool-map"] = rocePoolMap(applied, mode)
	return out
}

// rocePrioMap is the PCP/DSCP -> switch priority table: PCP n and DSCP 8n..8n+7 to switch
// priority n, so DSCP 26 (RoCE) lands on 3 and DSCP 48 (CNP) on 6.
func rocePrioMap() nvue.Tree {
	out := nvue.Tree{}
	for sp := range 8 {
		dscp := make([]string, 8)
		for i := range dscp {
			dscp[i] = strconv.Itoa(8*sp + i)
		}
		out[strconv.Itoa(sp)] = nvue.Tree{"pcp": float64(sp), "dscp": strings.Join(dscp, ","), "switch-prio": float64(sp)}
	}
	return out
}

// roceTCMap is the switch priority -> traffic class and ETS table: 3 -> 3 and 6 -> 6, the rest
// to traffic class 0; traffic class 6 strict, 3 and 0 DWRR 50 % each.
func roceTCMap() nvue.Tree {
	out := nvue.Tree{}
	for sp := range 8 {
		tc, weight := 0, "DWRR-50%"
		switch sp {
		case roceDataPriority:
			tc = roceDataPriority
		case roceCNPPriority:
			tc, weight = roceCNPPriority, "strict-priority"
		}
		out[strconv.Itoa(sp)] = nvue.Tree{"switch-prio": float64(sp), "traffic-class": float64(tc), "scheduler-weight": weight}
	}
	return out
}

// rocePoolMap is the "RoCE pool config" table. Lossless (5.9 guide) and lossy (command
// reference) split the buffer 50/50 between the lossy pools and RoCE's: ingress switch
// priority 3 in roce-reserved-ingress, egress traffic class 3 in roce-reserved-egress
// (unlimited, "inf", in lossless mode). lossless-single-ipool (5.12 and 5.14 guides) keeps one
// ingress pool with every priority at 100 %. The memory of RoCE's pool is the applied
// traffic-pool roce-lossless memory-percent when set, the lossy pools' that of default-lossy
// (5.14 guide, Change RoCE Configuration: "default-lossy memory-percent 40", "roce-lossless
// memory-percent 60").
func rocePoolMap(applied nvue.Tree, mode string) nvue.Tree {
	roce, lossy := "50%", "50%"
	if roceIsLossless(mode) {
		if v, ok := nvue.Lookup(applied, "qos", "traffic-pool", "roce-lossless", "memory-percent"); ok {
			roce = fmt.Sprintf("%v%%", v)
			if l, ok := nvue.Lookup(applied, "qos", "traffic-pool", "default-lossy", "memory-percent"); ok {
				lossy = fmt.Sprintf("%v%%", l)
			}
		}
	}
	row := func(name, size, prios, tcs string) nvue.Tree {
		return nvue.Tree{"name": name, "mode": "Dynamic", "size": size, "switch-priorities": prios, "traffic-class": tcs}
	}
	egress := roce
	if roceIsLossless(mode) {
		egress = "inf"
	}
	if mode == roceLosslessSingle {
		return nvue.Tree{
			"0": row("lossy-default-ingress", "100%", "0,1,2,3,4,5,6,7", "-"),
			"2": row("lossy-default-egress", "100%", "-", "0,6"),
			"3": row("roce-reserved-egress", "inf", "-", "3"),
		}
	}
	return nvue.Tree{
		"0": row("lossy-default-ingress", lossy, "0,1,2,4,5,6,7", "-"),
		"1": row("roce-reserved-ingress", roce, "3", "-"),
		"2": row("lossy-default-egress", lossy, "-", "0,6"),
		"3": row("roce-reserved-egress", egress, "-", "3"),
	}
}

// RoCE turns Cumulus' RoCE mode on in mode (lossless when empty) as an operator's
// nv set qos roce mode <mode>; nv config apply does: the applied configuration gets
// `qos roce enable on` and the mode, nothing else, and the startup configuration with it when
// auto-save is on. A mode the release lacks, or a configuration the mode cannot go with (a
// default-lossless pool under lossless mode), is refused with NVUE's issues, as the apply
// would be.
func (t *Twin) RoCE(mode string) error {
	if mode == "" {
		mode = roceLossless
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	cfg := nvue.Clone(t.applied)
	nvue.Set(cfg, nvue.Tree{"enable": "on", "mode": mode}, "qos", "roce")
	if problems := validate(cfg, t.minor, hardware(t.applied, t.opts.Ports)); len(problems) > 0 {
		msgs := make([]string, len(problems))
		for i, p := range problems {
			msgs[i] = p.Message
		}
		return fmt.Errorf("nv set qos roce mode %s: %s", mode, strings.Join(msgs, "; "))
	}
	t.applied = cfg
	if t.minor >= 9 && !t.opts.AutoSaveOff {
		t.startup = nvue.Clone(cfg)
	}
	return nil
}

// withRoCEOperational returns tree, a read of the applied configuration, with `qos roce` as the
// operational revision shows it.
func withRoCEOperational(tree, applied nvue.Tree, minor int) nvue.Tree {
	if nvue.Object(tree, "qos", "roce") == nil {
		return tree
	}
	out := nvue.Clone(tree)
	nvue.Object(out, "qos")["roce"] = roceOperational(applied, minor)
	return out
}
