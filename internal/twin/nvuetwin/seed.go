package nvuetwin

import (
	"strconv"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// seed is a Spectrum-4 switch's configuration with Cumulus' QoS defaults, as the applied
// configuration of CL 5.5.1 shows them (NVIDIA's automation workshop, GET /nvue_v1/?rev=applied)
// and the 5.14 "Quality of Service" page lists them: trust l2 with PCP n -> switch priority n,
// switch priority n -> traffic class n, DWRR 12/13 % per traffic class, ECN on TC 0 at 150000 /
// 1500000 bytes, one lossy pool holding every switch priority, RoCE off.
func seed(release string) nvue.Tree {
	pcp, sp, sched := nvue.Tree{}, nvue.Tree{}, nvue.Tree{}
	for i := range 8 {
		n := strconv.Itoa(i)
		pcp[n] = nvue.Tree{"switch-priority": float64(i)}
		sp[n] = nvue.Tree{"traffic-class": float64(i)}
		bw := 12.0
		if i%2 == 1 {
			bw = 13
		}
		sched[n] = nvue.Tree{"mode": "dwrr", "bw-percent": bw}
	}
	qos := nvue.Tree{
		"mapping":              nvue.Tree{"default-global": nvue.Tree{"trust": "l2", "port-default-sp": 0.0, "pcp": pcp}},
		"egress-queue-mapping": nvue.Tree{"default-global": nvue.Tree{"switch-priority": sp}},
		"egress-scheduler":     nvue.Tree{"default-global": nvue.Tree{"traffic-class": sched}},
		"congestion-control": nvue.Tree{"default-global": nvue.Tree{"traffic-class": nvue.Tree{
			"0": nvue.Tree{"ecn": "enable", "red": "disable", "min-threshold": 150000.0, "max-threshold": 1500000.0, "probability": 100.0},
		}}},
		"pfc":          nvue.Tree{},
		"pfc-watchdog": nvue.Tree{"polling-interval": 100.0, "robustness": 3.0},
		"roce":         nvue.Tree{"enable": "off"},
		// The lossy pool's priorities are not stored: every priority no other pool lists is
		// in it, which a filled read shows (filled.go). Unsetting them changes nothing.
		"traffic-pool": nvue.Tree{"default-lossy": nvue.Tree{"memory-percent": 100.0}},
	}
	// The applied configuration lists only the interfaces someone configured: a fresh switch's
	// has the loopback and the management port (CL 5.5.1 GET /nvue_v1/?rev=applied); its
	// ports are in the operational state only (hardware).
	ifaces := nvue.Tree{
		"lo":   nvue.Tree{"type": "loopback"},
		"eth0": nvue.Tree{"type": "eth"},
	}
	return nvue.Tree{
		"qos":       qos,
		"interface": ifaces,
		"system":    nvue.Tree{"hostname": "cumulus", "version": nvue.Tree{"image": release + ".0.0031", "kernel": "6.1.0-cl-1-amd64"}},
	}
}

// hardware is the switch's interfaces as they run, before any configuration: every front
// panel port up at 400G (SN5600, 64 x 800G ports split or run at 400G in these fabrics), with
// the link speed the operational state reports, and the applied loopback and management port.
func hardware(applied nvue.Tree, ports int) nvue.Tree {
	out := nvue.Tree{}
	for i := 1; i <= ports; i++ {
		out["swp"+strconv.Itoa(i)] = nvue.Tree{"type": "swp", "link": nvue.Tree{"speed": "400G", "mtu": 9216.0, "state": nvue.Tree{"up": nvue.Tree{}}}}
	}
	for name, cfg := range nvue.Object(applied, "interface") {
		if _, port := out[name]; !port {
			out[name] = nvue.Clone(asTree(cfg))
		}
	}
	return out
}

// operationalInterfaces is GET /interface?rev=operational: the hardware with the applied
// configuration over it.
func operationalInterfaces(applied nvue.Tree, ports int) nvue.Tree {
	out := hardware(applied, ports)
	for name, cfg := range nvue.Object(applied, "interface") {
		if m := asTree(cfg); m != nil {
			if out[name] == nil {
				out[name] = nvue.Tree{}
			}
			nvue.Merge(asTree(out[name]), nvue.Clone(m))
		}
	}
	withPortECN(out, applied)
	return out
}
