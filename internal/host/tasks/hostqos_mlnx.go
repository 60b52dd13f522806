package tasks

import (
	"fmt"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// mlnxQoSOptions returns the mlnx_qos options that bring cur to the task's
// trust and PFC, and the before/after of each; with cur nil, every option
// the task sets (what the Persistence script runs).
func (t HostQoS) mlnxQoSOptions(cur *facts.MlnxQoS) (opts, before, after []string) {
	if t.Trust != "" && (cur == nil || cur.Trust != t.Trust) {
		opts = append(opts, "--trust", t.Trust)
		after = append(after, "trust "+t.Trust)
		if cur != nil {
			before = append(before, "trust "+cur.Trust)
		}
	}
	if t.PFCPriorities != nil && (cur == nil || !t.samePFC(cur.PFC)) {
		opts = append(opts, "--pfc", t.pfcList())
		after = append(after, "pfc "+t.pfcList())
		if cur != nil {
			before = append(before, "pfc "+pfcCSV(cur.PFC))
		}
	}
	return opts, before, after
}

// mlnxQoSCommand runs mlnx_qos on netdev with opts.
func mlnxQoSCommand(netdev string, opts []string) shell.Command {
	return shell.New("mlnx_qos", "-i", netdev).Arg(opts...)
}

// mlnxQoSState returns the mlnx_qos state of n, or why it cannot be had.
func mlnxQoSState(f host.Facts, n host.Netdev) (facts.MlnxQoS, error) {
	cur, ok := f.QoS[n.Name]
	if ok {
		return cur, nil
	}
	why := rdmaFactWhy(f, host.FactQoS)
	if w, ok := f.Absent[host.FactQoS.String()+" "+n.Name]; ok {
		why = w
	}
	if strings.Contains(why, "not found") || strings.Contains(why, "status 127") {
		return facts.MlnxQoS{}, fmt.Errorf("netdev %s: mlnx_qos is not installed (%s): it ships with DOCA-OFED and MLNX_OFED "+
			"(mlnx-tools); install OFED first", n.Name, why)
	}
	return facts.MlnxQoS{}, fmt.Errorf("netdev %s: cannot read its QoS state with mlnx_qos: %s", n.Name, why)
}

// planMlnxQoS compares the mlnx_qos state of n with the task's trust and PFC.
func (t HostQoS) planMlnxQoS(f host.Facts, n host.Netdev) (host.Change, error) {
	cur, err := mlnxQoSState(f, n)
	if err != nil {
		return host.Change{}, err
	}
	opts, before, after := t.mlnxQoSOptions(&cur)
	if len(opts) == 0 {
		return host.Unchanged(fmt.Sprintf("%s has trust %s and PFC %s", n.Name, cur.Trust, pfcCSV(cur.PFC))), nil
	}
	return host.Change{
		Summary: "set " + strings.Join(after, " and ") + " on " + n.Name + " with mlnx_qos",
		Subject: n.Name,
		Before:  strings.Join(before, ", "),
		After:   strings.Join(after, ", "),
		Apply:   host.Commands{Run: []shell.Runnable{mlnxQoSCommand(n.Name, opts)}, Sudo: true},
	}, nil
}
