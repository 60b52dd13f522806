package facts

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCountersBondedPort(t *testing.T) {
	out := "== port mlx5_bond_0 1 ens1f0np0 ens1f1np1\n" +
		"/sys/class/infiniband/mlx5_bond_0/ports/1/hw_counters/np_cnp_sent:7\n" +
		"== ethtool ens1f0np0\nNIC statistics:\n     rx_prio3_discards: 1\n" +
		"== ethtool ens1f1np1\nNIC statistics:\n     rx_prio3_discards: 2\n"
	ports, err := ParseCounters(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []PortCounters{{Device: "mlx5_bond_0", Port: 1, Netdev: "ens1f0np0", HW: map[string]uint64{"np_cnp_sent": 7},
		Ethtool: map[string]uint64{"rx_prio3_discards": 1},
		Bonded:  []NetdevCounters{{Netdev: "ens1f1np1", Ethtool: map[string]uint64{"rx_prio3_discards": 2}}}}}
	if d := cmp.Diff(want, ports); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}

	failed := strings.Replace(out, "NIC statistics:\n     rx_prio3_discards: 2\n", "no stats available\n== ethtool-failed ens1f1np1\n", 1)
	ports, err = ParseCounters(failed)
	if err != nil {
		t.Fatal(err)
	}
	if b := ports[0].Bonded; len(b) != 1 || b[0].Ethtool != nil || !strings.Contains(b[0].EthtoolError, "no stats available") || ports[0].EthtoolError != "" {
		t.Errorf("bonded = %+v, port = %+v", b, ports[0])
	}
}

// bondSysfs lays out under root the sysfs of a host with a RoCE LAG device (mlx5_bond_0 on
// the first PF, whose bond0 holds both PFs of the card) and a plain mlx5_2 whose bond1 holds
// a NIC of another driver and an mlx5 PF with an RDMA device of its own (mlx5_3).
func bondSysfs(t *testing.T, root string) {
	t.Helper()
	sys := filepath.Join(root, "sys")
	link := func(path, target string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{"mlx5_core", "igb"} {
		if err := os.MkdirAll(filepath.Join(sys, "bus/pci/drivers", d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	pci := func(bdf, driver, netdev, rdma string) {
		dev := filepath.Join(sys, "devices/pci0000:16", bdf)
		link(filepath.Join(dev, "driver"), "../../../bus/pci/drivers/"+driver)
		writeFile(t, filepath.Join(dev, "net", netdev, "ifindex"), "1\n")
		link(filepath.Join(sys, "class/net", netdev, "device"), "../../../devices/pci0000:16/"+bdf)
		if rdma == "" {
			return
		}
		writeFile(t, filepath.Join(dev, "infiniband", rdma, "node_type"), "1: CA\n")
		ib := filepath.Join(sys, "class/infiniband", rdma)
		link(filepath.Join(ib, "device"), "../../../devices/pci0000:16/"+bdf)
		writeFile(t, filepath.Join(ib, "ports/1/hw_counters/np_cnp_sent"), "5\n")
	}
	pci("0000:17:00.0", "mlx5_core", "ens1f0np0", "mlx5_bond_0")
	pci("0000:17:00.1", "mlx5_core", "ens1f1np1", "")
	pci("0000:31:00.0", "mlx5_core", "ens2f0np0", "mlx5_2")
	pci("0000:32:00.0", "mlx5_core", "ens3f0np0", "mlx5_3")
	pci("0000:05:00.0", "igb", "eno1", "")
	for bond, lowers := range map[string][]string{"bond0": {"ens1f0np0", "ens1f1np1"}, "bond1": {"ens2f0np0", "eno1", "ens3f0np0"}} {
		for _, l := range lowers {
			link(filepath.Join(sys, "class/net", bond, "lower_"+l), "../"+l)
			link(filepath.Join(sys, "class/net", l, "master"), "../"+bond)
		}
	}
}

// TestCountersScriptReadsEveryPortOfABond runs the counters command against a fake sysfs:
// a RoCE LAG device reads the ethtool -S of both its physical ports, a plain device only its
// own netdev's.
func TestCountersScriptReadsEveryPortOfABond(t *testing.T) {
	root := t.TempDir()
	bondSysfs(t, root)
	bin := filepath.Join(root, "bin")
	writeFile(t, filepath.Join(bin, "ethtool"), "#!/bin/sh\ncase $2 in ens1f0np0) v=1;; ens1f1np1) v=2;; ens2f0np0) v=3;; ens3f0np0) v=4;; "+
		"*) echo \"no stats for $2\"; exit 1;; esac\necho 'NIC statistics:'; echo \"     rx_prio3_discards: $v\"\n")
	if err := os.Chmod(filepath.Join(bin, "ethtool"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "PATH=" + bin + ":$PATH; " + strings.ReplaceAll(countersScript, "/sys/", root+"/sys/")
	ports, err := ParseCounters(runScript(t, script))
	if err != nil {
		t.Fatal(err)
	}
	type port struct {
		Device  string
		Netdevs []string
		Discard []uint64
	}
	var got []port
	for _, p := range ports {
		g := port{Device: p.Device, Netdevs: []string{p.Netdev}, Discard: []uint64{p.Ethtool["rx_prio3_discards"]}}
		for _, b := range p.Bonded {
			g.Netdevs, g.Discard = append(g.Netdevs, b.Netdev), append(g.Discard, b.Ethtool["rx_prio3_discards"])
		}
		got = append(got, g)
	}
	slices.SortFunc(got, func(a, b port) int { return strings.Compare(a.Device, b.Device) })
	want := []port{
		{"mlx5_2", []string{"ens2f0np0"}, []uint64{3}},
		{"mlx5_3", []string{"ens3f0np0"}, []uint64{4}},
		{"mlx5_bond_0", []string{"ens1f0np0", "ens1f1np1"}, []uint64{1, 2}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}
