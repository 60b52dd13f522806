package hostprofile

import (
	"net/netip"
	"slices"
	"strings"
	"testing"
)

func TestNamesAndLookup(t *testing.T) {
	names := Names()
	for _, want := range []string{"cx7", "cx8", "gid-index-5", "nccl-2.19", "port-down", "inbox", "lockdown", "peermem-wrong-order", "dmabuf", "vf", "mlnx"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() = %v, missing %q", names, want)
		}
	}
	if !slices.IsSorted(names) {
		t.Errorf("Names() not sorted: %v", names)
	}
	for _, n := range names {
		p, ok := Lookup(n)
		if !ok || p.Name != n {
			t.Errorf("Lookup(%q) = %q, %v", n, p.Name, ok)
		}
		if err := p.Validate(); err != nil {
			t.Errorf("profile %q: %v", n, err)
		}
		if p.Description == "" {
			t.Errorf("profile %q has no description", n)
		}
	}
	if p, ok := Lookup(""); !ok || p.Name != DefaultProfile {
		t.Errorf("Lookup(\"\") = %q, %v; want the default %q", p.Name, ok, DefaultProfile)
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) found a profile")
	}
}

func TestProfileFaults(t *testing.T) {
	get := func(n string) Profile { return mustProfile(t, n) }
	checks := []struct {
		name string
		ok   bool
	}{
		{"cx7 is DOCA 25.10 with 8 CX-7 and 8 H100", get("cx7").Stack == StackDOCA && get("cx7").OFEDVersion == "25.10-1.7.1" && get("cx7").Ports == 8 && get("cx7").GPUs == 8 && get("cx7").NICModel == ConnectX7},
		{"cx8 has ConnectX-8", get("cx8").NICModel == ConnectX8},
		{"gid-index-5 moves the v2 IPv4 GID", get("gid-index-5").RoCEv2IPv4GIDIndex == 5 && get("cx7").RoCEv2IPv4GIDIndex == 3},
		{"port-down has one down port", slices.Equal(get("port-down").DownPorts, []int{3})},
		{"inbox has no OFED", get("inbox").Stack == StackInbox && get("inbox").OFEDVersion == "" && !get("inbox").OFED()},
		{"nccl-2.19 has old NCCL and GID 5", get("nccl-2.19").NCCLVersion == "2.19.3-1+cuda12.2" && get("nccl-2.19").RoCEv2IPv4GIDIndex == 5 && get("cx7").NCCLVersion == "2.21.5-1+cuda12.4"},
		{"lockdown is integrity", get("lockdown").Lockdown == LockdownIntegrity},
		{"peermem-wrong-order", get("peermem-wrong-order").PeermemWrongOrder && !get("cx7").PeermemWrongOrder},
		{"dmabuf has open modules", get("dmabuf").OpenKernelModules && get("dmabuf").DMABUF() && !get("cx7").DMABUF()},
		{"vf has VFs", get("vf").VirtualFunctions},
		{"mlnx is MLNX_OFED 24.10", get("mlnx").Stack == StackMLNX && get("mlnx").OFEDVersion == "24.10-3.2.5.0"},
	}
	for _, c := range checks {
		if !c.ok {
			t.Error(c.name)
		}
	}
	// A returned profile is a copy.
	p := get("port-down")
	p.DownPorts[0] = 5
	if get("port-down").DownPorts[0] != 3 {
		t.Error("changing a looked-up profile changed the table")
	}
}

func TestValidateRejects(t *testing.T) {
	tests := []struct {
		name string
		edit func(*Profile)
		want string
	}{
		{"model", func(p *Profile) { p.NICModel = "ConnectX-6" }, "NIC model"},
		{"ports", func(p *Profile) { p.Ports = 0 }, "ports"},
		{"too many ports", func(p *Profile) { p.Ports = 17 }, "ports"},
		{"gpus", func(p *Profile) { p.GPUs = -1 }, "GPUs"},
		{"stack", func(p *Profile) { p.Stack = "rhel" }, "stack"},
		{"version not in repo", func(p *Profile) { p.OFEDVersion = "23.10-1.1.9.0" }, "not in the twin repository"},
		{"inbox with version", func(p *Profile) { p.Stack = StackInbox }, "inbox stack with OFED version"},
		{"down port", func(p *Profile) { p.DownPorts = []int{8} }, "down port"},
		{"gid index", func(p *Profile) { p.RoCEv2IPv4GIDIndex = 6 }, "GID index"},
		{"lockdown", func(p *Profile) { p.Lockdown = "full" }, "lockdown"},
		{"gpu model", func(p *Profile) { p.GPUModel = "" }, "GPUs need"},
		{"mtu", func(p *Profile) { p.MTU = 100 }, "MTU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := mustProfile(t, "cx7")
			tt.edit(&p)
			err := p.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Validate() = %v, want an error mentioning %q", err, tt.want)
			}
		})
	}
	for _, id := range []HostID{{Name: "", Index: 0}, {Name: "x", Index: -1}, {Name: "x", Index: 256}} {
		if id.Validate() == nil {
			t.Errorf("HostID %+v validated", id)
		}
	}
}

func TestHardwareAddresses(t *testing.T) {
	p := mustProfile(t, "cx7")
	a := newHardware(p, HostID{Name: "a", Index: 1})
	b := newHardware(p, HostID{Name: "b", Index: 2})
	seen := map[string]bool{}
	for _, hw := range []hardware{a, b} {
		for _, pt := range hw.ports {
			for _, k := range []string{pt.macString(), pt.nodeGUID(), pt.ipv4.String(), pt.linkLocal().String()} {
				if seen[k] {
					t.Errorf("%s used twice", k)
				}
				seen[k] = true
			}
		}
		for _, g := range hw.gpus {
			if seen[g.uuid] {
				t.Errorf("GPU UUID %s used twice", g.uuid)
			}
			seen[g.uuid] = true
		}
	}
	pt := a.ports[2]
	if pt.ipv4 != netip.MustParseAddr("10.1.2.1") || pt.macString() != "b8:3f:d2:a0:01:02" ||
		pt.nodeGUID() != "b83f:d203:00a0:0102" || pt.linkLocal() != netip.MustParseAddr("fe80::ba3f:d2ff:fea0:102") {
		t.Errorf("port 2 of host 1: ip %s mac %s guid %s ll %s", pt.ipv4, pt.macString(), pt.nodeGUID(), pt.linkLocal())
	}
	if got := sysfsGID(netip.MustParseAddr("::ffff:10.1.2.1")); got != "0000:0000:0000:0000:0000:ffff:0a01:0201" {
		t.Errorf("sysfsGID = %s", got)
	}
	if got := sysfsGID(netip.Addr{}); got != "0000:0000:0000:0000:0000:0000:0000:0000" {
		t.Errorf("sysfsGID(zero) = %s", got)
	}
	if g := a.gpus[5]; g.nic != 5 || g.numa != 1 || g.busID != "00000000:AB:00.0" {
		t.Errorf("GPU 5 = %+v", g)
	}
	// Fewer NICs than GPUs: two GPUs share each NIC's switch.
	p.Ports = 4
	for i, g := range newHardware(p, HostID{Name: "c", Index: 3}).gpus {
		if g.nic != i/2 {
			t.Errorf("4 NICs: GPU %d pairs with NIC %d, want %d", i, g.nic, i/2)
		}
	}
}
