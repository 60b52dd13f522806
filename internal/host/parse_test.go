package host

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
)

func TestParseKernelRelease(t *testing.T) {
	tests := []struct {
		in      string
		want    Kernel
		wantErr bool
	}{
		{"6.8.0-45-generic\n", Kernel{Release: "6.8.0-45-generic", Major: 6, Minor: 8}, false},
		{"5.14.0-427.13.1.el9_4.x86_64\n", Kernel{Release: "5.14.0-427.13.1.el9_4.x86_64", Major: 5, Minor: 14}, false},
		{"6.18.44-fc-v769", Kernel{Release: "6.18.44-fc-v769", Major: 6, Minor: 18, Patch: 44}, false},
		{"5.12+", Kernel{Release: "5.12+", Major: 5, Minor: 12}, false},
		{"6.1", Kernel{Release: "6.1", Major: 6, Minor: 1}, false},
		{"", Kernel{}, true},
		{"6", Kernel{}, true},
		{"v6.1", Kernel{}, true},
		{"6.x", Kernel{}, true},
		{"6.1 extra", Kernel{}, true},
		{"99999999.1", Kernel{}, true},
	}
	for _, tt := range tests {
		got, err := ParseKernelRelease(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseKernelRelease(%q) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		var pe *facts.ParseError
		if err != nil && !errors.As(err, &pe) {
			t.Errorf("ParseKernelRelease(%q) error %T, want *facts.ParseError", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParseKernelRelease(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestKernelLess(t *testing.T) {
	tests := []struct {
		a, b Kernel
		want bool
	}{
		{Kernel{Major: 5, Minor: 11}, dmabufMinKernel, true},
		{Kernel{Major: 5, Minor: 12}, dmabufMinKernel, false},
		{Kernel{Major: 4, Minor: 19}, dmabufMinKernel, true},
		{Kernel{Major: 6, Minor: 0}, dmabufMinKernel, false},
		{Kernel{Major: 5, Minor: 12, Patch: 1}, Kernel{Major: 5, Minor: 12, Patch: 2}, true},
	}
	for _, tt := range tests {
		if got := tt.a.Less(tt.b); got != tt.want {
			t.Errorf("%+v.Less(%+v) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestParseNetdevs(t *testing.T) {
	out := "ens2f0np0\t0000:2a:00.0\t0\tmlx5_1\tdown\t9000\n" +
		"ens1f0v0\t0000:17:00.1\t1\tmlx5_0\tup\t1500\n" +
		"ens3\t0000:3a:00.0\t0\t\t\t\n"
	got, err := ParseNetdevs(out)
	if err != nil {
		t.Fatal(err)
	}
	want := []Netdev{
		{Name: "ens1f0v0", PCIAddr: "0000:17:00.1", IsVF: true, RDMADevice: "mlx5_0", OperState: "up", MTU: 1500},
		{Name: "ens2f0np0", PCIAddr: "0000:2a:00.0", RDMADevice: "mlx5_1", OperState: "down", MTU: 9000},
		{Name: "ens3", PCIAddr: "0000:3a:00.0"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseNetdevs (-want +got):\n%s", diff)
	}
	if got, err := ParseNetdevs(""); err != nil || got != nil {
		t.Errorf("ParseNetdevs(\"\") = %v, %v; want nil, nil", got, err)
	}
	for _, bad := range []string{
		"ens1\t0000:17:00.0\t0\tmlx5_0\tup\n",
		"ens1\t0000:17:00.0\t2\tmlx5_0\tup\t1500\n",
		"bad/name\t0000:17:00.0\t0\tmlx5_0\tup\t1500\n",
		"ens1\t0000:17:00.0\t0\tmlx5_0\tup\t-1\n",
	} {
		if _, err := ParseNetdevs(bad); err == nil {
			t.Errorf("ParseNetdevs(%q) = no error, want one", bad)
		}
	}
}

func TestParseFileProbe(t *testing.T) {
	const sum = "ef39a9f6fac12fbdc3d7d1b3b52d6b5e1fa3a2e1c3e1ab2c9bba0b1a2b3c4d5e"
	tests := []struct {
		name, out string
		want      FileInfo
		wantErr   bool
	}{
		{"absent", "absent\n", FileInfo{Path: "/p"}, false},
		{"regular", "81a4 0 0 15 root:root\n" + sum + "  -\nnvidia_peermem\n",
			FileInfo{Path: "/p", Exists: true, Type: FileRegular, Mode: 0o644, Owner: "root", Group: "root", Size: 15, SHA256: sum, Content: []byte("nvidia_peermem\n")}, false},
		{"content that looks like absent", "81a4 0 0 7 root:root\n" + sum + "  -\nabsent\n",
			FileInfo{Path: "/p", Exists: true, Type: FileRegular, Mode: 0o644, Owner: "root", Group: "root", Size: 7, SHA256: sum, Content: []byte("absent\n")}, false},
		{"absent without directory", "absent nodir\n", FileInfo{Path: "/p", DirMissing: true}, false},
		{"setuid dir", "4bed 1000 1000 4096 alice:staff\n",
			FileInfo{Path: "/p", Exists: true, Type: FileDirectory, Mode: 0o755 | os.ModeSetuid | os.ModeSticky, UID: 1000, GID: 1000, Owner: "alice", Group: "staff", Size: 4096}, false},
		{"symlink", "a1ff 0 0 38 root:root\n/usr/lib/systemd/system/roce-x.service\n",
			FileInfo{Path: "/p", Exists: true, Type: FileSymlink, Mode: 0o777, Owner: "root", Group: "root", Size: 38, Target: "/usr/lib/systemd/system/roce-x.service"}, false},
		{"symlink to a name with a newline", "a1ff 0 0 4 root:root\na\nb\n\n",
			FileInfo{Path: "/p", Exists: true, Type: FileSymlink, Mode: 0o777, Owner: "root", Group: "root", Size: 4, Target: "a\nb\n"}, false},
		{"names with blanks", "81a4 1000 1001 3 alice:domain users\n" + sum + "  -\nabc",
			FileInfo{Path: "/p", Exists: true, Type: FileRegular, Mode: 0o644, UID: 1000, GID: 1001, Owner: "alice", Group: "domain users", Size: 3, SHA256: sum, Content: []byte("abc")}, false},
		{"stat line without names", "81a4 0 0 15\n", FileInfo{}, true},
		{"fifo", "11a4 0 0 0 root:root\n", FileInfo{Path: "/p", Exists: true, Type: FileOther, Mode: 0o644, Owner: "root", Group: "root"}, false},
		{"symlink without target", "a1ff 0 0 38 root:root\n", FileInfo{}, true},
		{"dir with content", "41ed 0 0 4096 root:root\n" + sum + "  -\n", FileInfo{}, true},
		{"large file cut", "8180 0 0 100000 root:root\n" + sum + "  -\nabc",
			FileInfo{Path: "/p", Exists: true, Type: FileRegular, Mode: 0o600, Owner: "root", Group: "root", Size: 100000, SHA256: sum, Content: []byte("abc")}, false},
		{"no sum", "81a4 0 0 15 root:root\n", FileInfo{}, true},
		{"bad sum", "81a4 0 0 1 root:root\nxyz  -\na", FileInfo{}, true},
		{"bad stat", "81a4 0 1 root:root\n" + sum + "  -\na", FileInfo{}, true},
		{"too much content", "81a4 0 0 1 root:root\n" + sum + "  -\nab", FileInfo{}, true},
		{"empty", "", FileInfo{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseFileProbe("/p", tt.out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	if fi, _ := ParseFileProbe("/p", "8180 0 0 100000 root:root\n"+sum+"  -\nabc"); fi.Complete() {
		t.Error("a cut file reports Complete")
	}
}
