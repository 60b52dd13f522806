package nvuetwin

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// portCongestionControl is a switch port's ECN as it runs (GET /interface/<swp>/qos/
// congestion-control at the operational revision; nv show interface <id> qos congestion-control
// traffic-class, new in 5.3: content/cumulus-linux-53/Whats-New/_index.md). A port bound to a
// congestion-control profile runs that profile alone; every other port runs default-global:
// "Configurations with a profile override the global settings for the ingress ports in the
// port group. Ports not in a profile use the global settings." (CumulusNetworks/docs
// content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md, Port
// Groups, commit 0d142afe). The same section's egress scheduler example shows the profile
// replacing, not adding to, the global one ("list2 only assigns weights to queues 2, 5, and 6,
// and schedules the other queues on a best-effort basis"), and qos_features.conf gives each
// ECN port group its own egress_queue_list. So a traffic class the bound profile leaves out
// has no ECN on that port, default-global's TC 0 included. The classes carry the schema's
// defaults (filled.go). RoCE mode's own ECN is served under qos roce (roce.go).
func portCongestionControl(applied nvue.Tree, port string) nvue.Tree {
	q := nvue.Object(filled(applied), "qos")
	out := nvue.Tree{}
	profile := "default-global"
	if p, ok := nvue.Lookup(applied, "interface", port, "qos", "congestion-control", "profile"); ok {
		profile, _ = p.(string)
		out["profile"] = profile
	}
	tcs := nvue.Clone(nvue.Object(q, "congestion-control", profile, "traffic-class"))
	if tcs == nil {
		tcs = nvue.Tree{}
	}
	out["traffic-class"] = tcs
	return out
}

// withPortECN sets each switch port's running ECN into ifaces, the operational interfaces.
func withPortECN(ifaces, applied nvue.Tree) {
	for name, v := range ifaces {
		iface := asTree(v)
		if iface == nil || iface["type"] != "swp" || !strings.HasPrefix(name, "swp") {
			continue
		}
		qos := nvue.Object(iface, "qos")
		if qos == nil {
			qos = nvue.Tree{}
			iface["qos"] = qos
		}
		qos["congestion-control"] = portCongestionControl(applied, name)
	}
}
