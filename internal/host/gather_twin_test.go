package host_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// gatherSummary is what the profile tests compare, field by field.
type gatherSummary struct {
	OFED        facts.OFEDInfo
	Lockdown    facts.LockdownMode
	NICs        []host.NIC
	GIDIndex    map[string]int
	DMABUF      bool
	NVIDIA      string
	NVIDIAOpen  bool
	PeermemUp   bool
	ECNNetdevs  int
	QoSNetdevs  int
	GPUs        int
	BAR1MiB     int64
	TopoNICs    int
	DocaPackage string
	// CCParams, TrafficClasses, RoCETos and NVConfigs count the PCI
	// functions or RDMA devices read.
	CCParams       int
	TrafficClasses int
	RoCETos        int
	NVConfigs      int
	Absent         []string
}

func summarize(f host.Facts) gatherSummary {
	s := gatherSummary{
		OFED: f.OFED, Lockdown: f.Lockdown, NICs: f.NICs(), GIDIndex: map[string]int{},
		NVIDIA: f.NVIDIA.Version, NVIDIAOpen: f.NVIDIA.Open, PeermemUp: f.ModuleLoaded("nvidia-peermem"),
		ECNNetdevs: len(f.ECN), QoSNetdevs: len(f.QoS), GPUs: len(f.GPUMemory), TopoNICs: len(f.Topology.NICLabels),
		CCParams: len(f.CCParams), TrafficClasses: len(f.TrafficClass), RoCETos: len(f.CMARoCETos), NVConfigs: len(f.NVConfig),
	}
	for i := range s.NICs {
		s.NICs[i].FWVersion = "" // firmware is the twin's business
	}
	s.DMABUF, _ = f.DMABUF()
	for _, n := range f.NICs() {
		if i, ok := f.GIDIndex(n.Device); ok {
			s.GIDIndex[n.Device] = i
		}
	}
	if len(f.GPUMemory) > 0 {
		s.BAR1MiB = f.GPUMemory[0].BAR1Total
	}
	for _, p := range f.Packages {
		if p.Name == "doca-ofed" && p.Installed {
			s.DocaPackage = p.Version
		}
	}
	for k, why := range f.Absent {
		s.Absent = append(s.Absent, k+": "+why)
	}
	slices.Sort(s.Absent)
	return s
}

// nics is the NIC list of an 8-port twin: model, netdev name pattern, VF,
// and the ports that are down.
func nics(model, netdevFmt string, vf bool, down ...int) []host.NIC {
	out := make([]host.NIC, 8)
	for i := range out {
		state := "PORT_ACTIVE"
		if slices.Contains(down, i) {
			state = "PORT_DOWN"
		}
		out[i] = host.NIC{
			Device: fmt.Sprintf("mlx5_%d", i), Model: model, Netdev: fmt.Sprintf(netdevFmt, i+1),
			IsVF: vf, PortState: state, LinkLayer: "Ethernet",
		}
	}
	return out
}

func gidIndexes(idx int) map[string]int {
	m := map[string]int{}
	for i := range 8 {
		m[fmt.Sprintf("mlx5_%d", i)] = idx
	}
	return m
}

func absentAll(format, why string) []string {
	var out []string
	for i := range 8 {
		out = append(out, fmt.Sprintf(format, i+1)+": "+why)
	}
	return out
}

func TestGatherProfiles(t *testing.T) {
	doca := facts.OFEDInfo{Flavor: facts.OFEDDOCA, Version: "25.10-1.7.1"}
	base := gatherSummary{
		OFED: doca, Lockdown: facts.LockdownNone, NICs: nics("ConnectX-7", "ens%df0np0", false),
		GIDIndex: gidIndexes(3), NVIDIA: "550.54.15", ECNNetdevs: 8, QoSNetdevs: 8, GPUs: 8,
		BAR1MiB: 131072, TopoNICs: 8, DocaPackage: "25.10-1.7.1",
		// mlxconfig is queried only for PFs without an OFED ecn/ tree: none here.
		CCParams: 8, TrafficClasses: 8, RoCETos: 8, NVConfigs: 0,
	}
	with := func(edit func(*gatherSummary)) gatherSummary {
		s := base
		edit(&s)
		return s
	}
	tests := []struct {
		host string
		want gatherSummary
	}{
		{"cx7", base},
		{"cx8", with(func(s *gatherSummary) {
			s.NICs = nics("ConnectX-8", "ens%df0np0", false)
			s.NVIDIA, s.NVIDIAOpen, s.DMABUF, s.BAR1MiB = "570.124.06", true, true, 262144
		})},
		{"inbox", with(func(s *gatherSummary) {
			s.OFED = facts.OFEDInfo{Flavor: facts.OFEDInbox}
			s.ECNNetdevs, s.QoSNetdevs, s.DocaPackage = 0, 0, ""
			// No OFED: no tc/ traffic_class, no cma_roce_tos; debugfs
			// and mlxconfig work, and without ecn/ trees mlxconfig is read.
			s.TrafficClasses, s.RoCETos, s.NVConfigs = 0, 0, 8
			s.Absent = append([]string{
				"cma_roce_tos: exit status 127: cma_roce_tos: command not found",
				"ibdev2netdev: exit status 127: ibdev2netdev: command not found",
			}, absentAll("mlnx_qos ens%df0np0", "exit status 127: mlnx_qos: command not found")...)
		})},
		{"gid5", with(func(s *gatherSummary) { s.GIDIndex = gidIndexes(5) })},
		{"lockdown", with(func(s *gatherSummary) {
			s.Lockdown = facts.LockdownIntegrity
			s.CCParams = 0
			s.Absent = []string{"cc_params: exit status 1: debugfs refused (kernel lockdown?): " +
				"0000:17:00.0/cc_params/np_cnp_dscp: Too many levels of symbolic links"}
		})},
		{"vf", with(func(s *gatherSummary) {
			s.NICs = nics("ConnectX-7", "ens%df0v0", true)
			for i := range s.NICs {
				s.NICs[i].Model = "ConnectX VF"
			}
			// VFs have no cc_params and mlxconfig refuses them.
			s.QoSNetdevs, s.CCParams, s.NVConfigs = 0, 0, 0
			s.Absent = absentAll("mlnx_qos ens%df0v0", "virtual function: QoS is set on the physical function")
		})},
		{"dmabuf", with(func(s *gatherSummary) { s.NVIDIAOpen, s.DMABUF = true, true })},
		{"portdown", with(func(s *gatherSummary) { s.NICs = nics("ConnectX-7", "ens%df0np0", false, 3) })},
		{"mlnx", with(func(s *gatherSummary) {
			s.OFED = facts.OFEDInfo{Flavor: facts.OFEDMLNX, Version: "24.10-3.2.5.0"}
			s.DocaPackage = ""
		})},
	}
	for _, tt := range tests {
		t.Run(tt.host, func(t *testing.T) {
			t.Parallel()
			_, c := twin(t, tt.host)
			f, err := host.Gather(context.Background(), c, host.AllFacts())
			if err != nil {
				t.Fatalf("Gather: %v", err)
			}
			if f.Host != c.Address() {
				t.Errorf("Facts.Host = %q, want %q", f.Host, c.Address())
			}
			want := tt.want
			// A Debian host has no rpm or dnf: the RHEL facts are absent.
			want.Absent = append(slices.Clone(want.Absent), rhelFactsAbsent...)
			slices.Sort(want.Absent)
			if diff := cmp.Diff(want, summarize(f)); diff != "" {
				t.Errorf("facts of %s (-want +got):\n%s", tt.host, diff)
			}
			if f.OS.ID == "" || !f.Has(host.FactOS) {
				t.Errorf("os-release of %s: %+v", tt.host, f.OS)
			}
		})
	}
}

// rhelFactsAbsent are the RHEL-family facts of a Debian twin, whose rpm and dnf are hidden;
// the gather runs in Debian's sh, dash, which words the missing command so.
var rhelFactsAbsent = []string{
	"dnf versionlock: exit status 127: sh: 1: dnf: not found",
	"rpm: exit status 127: sh: 1: rpm: not found",
}

func TestGatherNetdevDetails(t *testing.T) {
	_, c := twin(t, "portdown")
	f, err := host.Gather(context.Background(), c, host.WantFacts(host.FactNetdevs, host.FactKernel, host.FactModules))
	if err != nil {
		t.Fatalf("Gather: %v", err)
	}
	n, ok := f.Netdev("ens4f0np0")
	if !ok {
		t.Fatalf("no netdev ens4f0np0 in %+v", f.Netdevs)
	}
	want := host.Netdev{Name: "ens4f0np0", PCIAddr: n.PCIAddr, RDMADevice: "mlx5_3", OperState: "down", MTU: 9000}
	if diff := cmp.Diff(want, n); diff != "" {
		t.Errorf("netdev (-want +got):\n%s", diff)
	}
	if !strings.HasPrefix(n.PCIAddr, "0000:") {
		t.Errorf("PCIAddr = %q, want a PCI address", n.PCIAddr)
	}
	if f.Kernel.Major < 3 || f.Kernel.Release == "" {
		t.Errorf("Kernel = %+v", f.Kernel)
	}
	// Only what was asked for is read.
	if f.Gathered.Has(host.FactIBDevices) || f.IBDevices != nil || f.Has(host.FactIBDevices) {
		t.Errorf("ibv_devinfo read without being asked: %+v", f.IBDevices)
	}
	if !f.Has(host.FactModules) || !f.ModuleLoaded("mlx5_core") {
		t.Errorf("lsmod: mlx5_core not loaded in %v", f.Modules)
	}
}

// countingRunner counts the calls that reach the host.
type countingRunner struct {
	host.Runner
	runs, writes int
}

func (c *countingRunner) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	c.runs++
	return c.Runner.Run(ctx, cmd, opts)
}

func (c *countingRunner) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	c.writes++
	return c.Runner.WriteFile(ctx, path, data, mode, owner, sudo)
}

func TestGatherIsOneRemoteCommand(t *testing.T) {
	f, c := twin(t, "cx7")
	r := &countingRunner{Runner: c}
	cmd0, sess0 := commands(t, f, "cx7"), sessions(t, f, "cx7")
	if _, err := host.Gather(context.Background(), r, host.AllFacts().WithFiles("/etc/hostname")); err != nil {
		t.Fatalf("Gather: %v", err)
	}
	if got := commands(t, f, "cx7") - cmd0; got != 1 {
		t.Errorf("a full gather ran %d remote commands, want 1", got)
	}
	if got := sessions(t, f, "cx7") - sess0; got != 1 {
		t.Errorf("a full gather opened %d sessions, want 1", got)
	}
	if r.runs != 1 || r.writes != 0 {
		t.Errorf("a full gather made %d Run and %d WriteFile calls, want 1 and 0", r.runs, r.writes)
	}
}

func TestGatherParseErrorNamesFactAndHost(t *testing.T) {
	f, c := twin(t, "badparse")
	// An ofed_info that prints what no OFED prints.
	twinRun(t, f, "badparse", `printf '#!/bin/sh\necho "MLNX_OFED_LINUX is broken"\n' >/usr/bin/ofed_info`)
	_, err := host.Gather(context.Background(), c, host.AllFacts())
	var ge *host.GatherError
	if !errors.As(err, &ge) {
		t.Fatalf("Gather error = %v, want a *host.GatherError", err)
	}
	if ge.Host != c.Address() || ge.Fact != "ofed_info" {
		t.Errorf("GatherError names host %q fact %q, want %q and ofed_info", ge.Host, ge.Fact, c.Address())
	}
	var pe *facts.ParseError
	if !errors.As(err, &pe) {
		t.Errorf("error %v does not wrap a *facts.ParseError", err)
	}
	contains(t, "error", err.Error(), c.Address(), "ofed_info", "MLNX_OFED_LINUX is broken")
}
