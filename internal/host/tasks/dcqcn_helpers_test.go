package tasks

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

// Synthetic hosts for the DCQCN, HostQoS and Persistence plans: two
// ConnectX-7 PFs, ens1f0np0 (mlx5_0, 0000:17:00.0) and ens2f0np0 (mlx5_1,
// 0000:29:00.0), with firmware-default ecn/ trees, no lockdown and mlnx_qos
// at its boot state (trust pcp, no PFC).

// roceNetdevs are the PFs of roceHost.
var roceNetdevs = []host.Netdev{
	{Name: "ens1f0np0", PCIAddr: "0000:17:00.0", RDMADevice: "mlx5_0", OperState: "up", MTU: 9000},
	{Name: "ens2f0np0", PCIAddr: "0000:29:00.0", RDMADevice: "mlx5_1", OperState: "up", MTU: 9000},
}

// roceHost returns the synthetic host with every fact the tasks read.
func roceHost(t *testing.T) host.Facts {
	t.Helper()
	f := host.Facts{
		Host: "10.0.0.7:22",
		Gathered: host.WantFacts(host.FactNetdevs, host.FactIBDevices, host.FactECN, host.FactLockdown, host.FactQoS,
			host.FactOFED),
		Absent:   map[string]string{},
		OFED:     facts.OFEDInfo{Flavor: facts.OFEDDOCA, Version: "25.10-1.7.1"},
		Lockdown: facts.LockdownNone,
		ECN:      map[string]facts.ECNState{},
		QoS:      map[string]facts.MlnxQoS{},
		Files:    map[string]host.FileInfo{},
	}
	for _, n := range roceNetdevs {
		f.Netdevs = append(f.Netdevs, n)
		f.IBDevices = append(f.IBDevices, facts.IBDevice{Name: n.RDMADevice, VendorPartID: 4129,
			Ports: []facts.IBPort{{Num: 1, State: "PORT_ACTIVE", LinkLayer: "Ethernet"}}})
		f.ECN[n.Name] = defaultECN(t)
		f.QoS[n.Name] = facts.MlnxQoS{DCBXMode: "OS controlled", Trust: "pcp", CableLen: 7}
	}
	return f
}

// inboxHost is roceHost without OFED: no ecn/ trees, no mlnx_qos.
func inboxHost(t *testing.T, lockdown facts.LockdownMode) host.Facts {
	t.Helper()
	f := roceHost(t)
	f.OFED = facts.OFEDInfo{Flavor: facts.OFEDInbox}
	f.Lockdown = lockdown
	f.ECN = map[string]facts.ECNState{}
	f.QoS = map[string]facts.MlnxQoS{}
	for _, n := range roceNetdevs {
		f.Absent["mlnx_qos "+n.Name] = "exit status 127: mlnx_qos: command not found"
	}
	return f
}

// defaultECN is an ecn/ tree at the firmware defaults: every priority on,
// the knobs of fabric.DefaultDCQCN, CNPs on DSCP 48 / priority 6.
func defaultECN(t *testing.T) facts.ECNState {
	t.Helper()
	k, err := fabric.DefaultDCQCN().Knobs()
	if err != nil {
		t.Fatal(err)
	}
	st := facts.ECNState{RP: map[string]int64{}, NP: map[string]int64{}}
	for i := range 8 {
		st.RPEnabled[i], st.NPEnabled[i] = true, true
	}
	for _, kn := range k.RP {
		st.RP[kn.Name] = kn.Value
	}
	for _, kn := range append(k.NP, fabric.DefaultTrafficClass().CNPKnobs()...) {
		st.NP[kn.Name] = kn.Value
	}
	return st
}

// defaultCC is a debugfs cc_params directory at the firmware defaults.
func defaultCC(t *testing.T) facts.CCParams {
	t.Helper()
	st := defaultECN(t)
	cc := facts.CCParams{cnpPrioMode: 0}
	for _, m := range []map[string]int64{st.RP, st.NP} {
		for name, v := range m {
			d, ok := fabric.DebugfsName(name)
			if !ok {
				t.Fatalf("no debugfs name for %s", name)
			}
			cc[d] = v
		}
	}
	return cc
}

// defaultNV is the NV configuration at its defaults for the port suffix
// _P<port>.
func defaultNV(t *testing.T, port int) map[string]int64 {
	t.Helper()
	st := defaultECN(t)
	nv := map[string]int64{nvPrioMask(port): 255}
	for _, m := range []map[string]int64{st.RP, st.NP} {
		for name, v := range m {
			nv[dcqcnSetting{name: name, prio: -1}.nvName(port)] = v
		}
	}
	return nv
}

// tunedDCQCN is the DCQCN task most tests plan: priority 3, the firmware
// defaults except an additive increase of 10 Mb/s, CNPs on 48 / 6.
func tunedDCQCN() DCQCN {
	p := fabric.DefaultDCQCN()
	p.AdditiveIncreaseMbps = 10
	return DCQCN{Priority: 3, Params: p, CNPDSCP: fabric.DefaultCNPDSCP, CNPPriority: fabric.DefaultCNPPriority}
}

// plannedChange is a change as tests compare it.
type plannedChange struct {
	Summary, Before, After string
	Lines                  []string
}

// plannedOf flattens changes (notes have no lines).
func plannedOf(cs []host.Change) []plannedChange {
	out := make([]plannedChange, len(cs))
	for i, c := range cs {
		out[i] = plannedChange{Summary: c.Summary, Before: c.Before, After: c.After}
		if c.Apply != nil {
			out[i].Lines = c.Apply.Lines()
		}
	}
	return out
}

// actionable returns only the changes that do something.
func actionable(cs []host.Change) []host.Change {
	var out []host.Change
	for _, c := range cs {
		if c.Apply != nil {
			out = append(out, c)
		}
	}
	return out
}
