package facts

import (
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseGIDTable(t *testing.T) {
	e := func(dev string, idx int, gid string, typ GIDType, nd string, v4 bool) GIDEntry {
		return GIDEntry{Device: dev, Port: 1, Index: idx, GID: gid, Type: typ, Netdev: nd, IPv4: v4}
	}
	want := []GIDEntry{
		e("mlx5_0", 0, "fe80:0000:0000:0000:0ac0:ebff:fe1f:a112", GIDRoCEv1, "ens1f0np0", false),
		e("mlx5_0", 1, "fe80:0000:0000:0000:0ac0:ebff:fe1f:a112", GIDRoCEv2, "ens1f0np0", false),
		e("mlx5_0", 2, "2001:0db8:0000:0000:0000:0000:0000:0021", GIDRoCEv1, "ens1f0np0", false),
		e("mlx5_0", 3, "2001:0db8:0000:0000:0000:0000:0000:0021", GIDRoCEv2, "ens1f0np0", false),
		e("mlx5_0", 4, "0000:0000:0000:0000:0000:ffff:0a0c:0015", GIDRoCEv1, "ens1f0np0", true),
		e("mlx5_0", 5, "0000:0000:0000:0000:0000:ffff:0a0c:0015", GIDRoCEv2, "ens1f0np0", true),
		e("mlx5_0", 10, "0000:0000:0000:0000:0000:ffff:0a0c:0115", GIDRoCEv2, "ens1f0np0.100", true),
		e("mlx5_1", 0, "fe80:0000:0000:0000:0ac0:ebff:fe1f:a113", GIDRoCEv1, "ens1f1np1", false),
		e("mlx5_1", 1, "fe80:0000:0000:0000:0ac0:ebff:fe1f:a113", GIDRoCEv2, "ens1f1np1", false),
		e("mlx5_1", 2, "0000:0000:0000:0000:0000:ffff:0a0d:0015", GIDRoCEv1, "ens1f1np1", true),
		e("mlx5_1", 3, "0000:0000:0000:0000:0000:ffff:0a0d:0015", GIDRoCEv2, "ens1f1np1", true),
		e("mlx5_ib0", 0, "fe80:0000:0000:0000:a088:c203:00c1:2e10", GIDIB, "", false),
	}
	got, err := ParseGIDTable(fixture(t, "gid_table.txt"))
	if err != nil {
		t.Fatalf("ParseGIDTable() error: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseGIDTable() mismatch (-want +got):\n%s", diff)
	}
	if ip := got[5].IP(); ip != netip.MustParseAddr("10.12.0.21") {
		t.Errorf("IP() = %v, want 10.12.0.21", ip)
	}
}

func TestRoCEv2IPv4Index(t *testing.T) {
	entries, err := ParseGIDTable(fixture(t, "gid_table.txt"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dev    string
		want   int
		wantOK bool
	}{
		{"mlx5_0", 5, true}, // not the "usual" 3: an IPv6 global took slots 2/3
		{"mlx5_1", 3, true},
		{"mlx5_ib0", 0, false},
		{"mlx5_9", 0, false},
	}
	for _, tt := range tests {
		got, ok := RoCEv2IPv4Index(entries, tt.dev)
		if got != tt.want || ok != tt.wantOK {
			t.Errorf("RoCEv2IPv4Index(%s) = %d, %v; want %d, %v", tt.dev, got, ok, tt.want, tt.wantOK)
		}
	}
	two := []GIDEntry{
		{Device: "d", Port: 2, Index: 1, Type: GIDRoCEv2, IPv4: true},
		{Device: "d", Port: 1, Index: 7, Type: GIDRoCEv2, IPv4: true},
		{Device: "d", Port: 1, Index: 3, Type: GIDRoCEv2, IPv4: true},
	}
	if got, ok := RoCEv2IPv4Index(two, "d"); got != 3 || !ok {
		t.Errorf("lowest port, then lowest index: got %d, %v; want 3, true", got, ok)
	}
}

func TestParseGIDTableSkipsZero(t *testing.T) {
	got, err := ParseGIDTable("mlx5_0\t1\t9\t0000:0000:0000:0000:0000:0000:0000:0000\tRoCE v2\teth0\n")
	if err != nil || len(got) != 0 {
		t.Errorf("got %v, %v; want nothing", got, err)
	}
}

func TestParseGIDTableErrors(t *testing.T) {
	for _, in := range []string{
		"mlx5_0 1 3 ::1 RoCE v2 eth0\n",
		"mlx5_0\tx\t3\t::1\tRoCE v2\teth0\n",
		"mlx5_0\t1\t-3\t::1\tRoCE v2\teth0\n",
		"\t1\t3\t::1\tRoCE v2\teth0\n",
		"mlx5_0\t1\t3\tnot-a-gid\tRoCE v2\teth0\n",
		"mlx5_0\t1\t3\t10.0.0.1\tRoCE v2\teth0\n",
		"mlx5_0\t1\t3\tfe80::1%eth0\tRoCE v2\teth0\n",
	} {
		_, err := ParseGIDTable(in)
		wantParseError(t, err, "gid_table")
	}
}

// writeFile creates path (and its directories) with content.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runScript runs a rendered script in each available POSIX shell and returns
// the outputs, which must agree.
func runScript(t *testing.T, script string) string {
	t.Helper()
	var first string
	ran := 0
	for _, sh := range []string{"/bin/sh", "dash", "bash"} {
		path, err := exec.LookPath(sh)
		if err != nil {
			continue
		}
		out, err := exec.Command(path, "-c", script).CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", sh, err, out)
		}
		if ran > 0 && string(out) != first {
			t.Errorf("%s output differs:\n%s\nvs\n%s", sh, out, first)
		}
		first = string(out)
		ran++
	}
	if ran == 0 {
		t.Fatal("no POSIX shell found (/bin/sh, dash, bash or busybox)")
	}
	return first
}

// TestGIDTableScript runs the script against a fake sysfs tree laid out like
// /sys/class/infiniband and parses what it prints.
func TestGIDTableScript(t *testing.T) {
	root := filepath.Join(t.TempDir(), "class with space", "infiniband")
	port := filepath.Join(root, "mlx5_0", "ports", "1")
	zero := "0000:0000:0000:0000:0000:0000:0000:0000\n"
	gids := []struct{ gid, typ, nd string }{
		{"fe80:0000:0000:0000:0ac0:ebff:fe1f:a112\n", "IB/RoCE v1\n", "ens1f0np0\n"},
		{"fe80:0000:0000:0000:0ac0:ebff:fe1f:a112\n", "RoCE v2\n", "ens1f0np0\n"},
		{zero, "", ""}, // unused slot: type and ndev unreadable
		{"0000:0000:0000:0000:0000:ffff:0a0c:0015\n", "RoCE v2\n", "ens1f0np0\n"},
	}
	for i, g := range gids {
		n := string(rune('0' + i))
		writeFile(t, filepath.Join(port, "gids", n), g.gid)
		if g.typ != "" {
			writeFile(t, filepath.Join(port, "gid_attrs", "types", n), g.typ)
			writeFile(t, filepath.Join(port, "gid_attrs", "ndevs", n), g.nd)
		}
	}
	// A populated GID whose type cannot be read is skipped.
	writeFile(t, filepath.Join(port, "gids", "4"), "0000:0000:0000:0000:0000:ffff:0a0c:0099\n")
	// An InfiniBand port: no netdev.
	ib := filepath.Join(root, "mlx5_1", "ports", "1")
	writeFile(t, filepath.Join(ib, "gids", "0"), "fe80:0000:0000:0000:a088:c203:00c1:2e10\n")
	writeFile(t, filepath.Join(ib, "gid_attrs", "types", "0"), "IB/RoCE v1\n")
	// A device with a hostile name must come through as data.
	odd := filepath.Join(root, "mlx5_$(id)", "ports", "1")
	writeFile(t, filepath.Join(odd, "gids", "0"), "0000:0000:0000:0000:0000:ffff:0a0c:0016\n")
	writeFile(t, filepath.Join(odd, "gid_attrs", "types", "0"), "RoCE v2\n")
	writeFile(t, filepath.Join(odd, "gid_attrs", "ndevs", "0"), "eth'1\n")

	script, err := gidTableScript(root).Render()
	if err != nil {
		t.Fatal(err)
	}
	out := runScript(t, script)
	got, err := ParseGIDTable(out)
	if err != nil {
		t.Fatalf("ParseGIDTable(%q): %v", out, err)
	}
	want := []GIDEntry{
		{Device: "mlx5_$(id)", Port: 1, Index: 0, GID: "0000:0000:0000:0000:0000:ffff:0a0c:0016", Type: GIDRoCEv2, Netdev: "eth'1", IPv4: true},
		{Device: "mlx5_0", Port: 1, Index: 0, GID: "fe80:0000:0000:0000:0ac0:ebff:fe1f:a112", Type: GIDRoCEv1, Netdev: "ens1f0np0"},
		{Device: "mlx5_0", Port: 1, Index: 1, GID: "fe80:0000:0000:0000:0ac0:ebff:fe1f:a112", Type: GIDRoCEv2, Netdev: "ens1f0np0"},
		{Device: "mlx5_0", Port: 1, Index: 3, GID: "0000:0000:0000:0000:0000:ffff:0a0c:0015", Type: GIDRoCEv2, Netdev: "ens1f0np0", IPv4: true},
		{Device: "mlx5_1", Port: 1, Index: 0, GID: "fe80:0000:0000:0000:a088:c203:00c1:2e10", Type: GIDIB},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("script output %q parsed mismatch (-want +got):\n%s", out, diff)
	}
}

func TestGIDTableScriptEmptyHost(t *testing.T) {
	script, err := gidTableScript(filepath.Join(t.TempDir(), "nothing")).Render()
	if err != nil {
		t.Fatal(err)
	}
	if out := runScript(t, script); out != "" {
		t.Errorf("output on a host without RDMA = %q, want empty", out)
	}
}

func TestGIDTableScriptText(t *testing.T) {
	s := GIDTableScript().String()
	for _, want := range []string{`r_=/sys/class/infiniband; for g in "$r_"/*/ports/*/gids/*`, "gid_attrs/types/", "gid_attrs/ndevs/"} {
		if !strings.Contains(s, want) {
			t.Errorf("script lacks %q:\n%s", want, s)
		}
	}
}

func FuzzGIDTable(f *testing.F) {
	addSeeds(f, "gid_table.txt")
	f.Fuzz(func(t *testing.T, s string) {
		entries, err := ParseGIDTable(s)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.IPv4 != e.IP().Is4() {
				t.Errorf("IPv4 flag %v disagrees with IP() %v", e.IPv4, e.IP())
			}
		}
		for _, e := range entries {
			if idx, ok := RoCEv2IPv4Index(entries, e.Device); ok && idx < 0 {
				t.Errorf("negative index %d", idx)
			}
		}
	})
}
