package standin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nvTree is a host with two PFs, mlx5_0 at 0000:17:00.0 and mlx5_1 at
// 0000:29:00.0, and a parameter table of three.
func nvTree(t *testing.T) string {
	t.Helper()
	return tree(t, map[string]string{
		"sys/bus/pci/devices/0000:17:00.0/":                            "",
		"sys/bus/pci/devices/0000:29:00.0/":                            "",
		"sys/class/infiniband/mlx5_0":                                  "-> ../../devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0",
		"sys/devices/pci0000:00/0000:17:00.0/infiniband/mlx5_0/device": "-> ../../../0000:17:00.0",
		"sys/class/infiniband/mlx5_1":                                  "-> ../../devices/pci0000:00/0000:29:00.0/infiniband/mlx5_1",
		"sys/devices/pci0000:00/0000:29:00.0/infiniband/mlx5_1/device": "-> ../../../0000:29:00.0",
		"sys/devices/pci0000:00/0000:17:00.0/":                         "",
		"sys/devices/pci0000:00/0000:29:00.0/":                         "",
		"usr/local/lib/twin/nvconfig.db": "# nvconfig.db - comment\nLINK_TYPE_P1 2 1=IB,2=ETH,3=VPI\n" +
			"SRIOV_EN 0 0=False,1=True\nCNP_DSCP_P1 48\n",
	})
}

// runIn is run with standard input.
func runIn(t *testing.T, root, stdin, name string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb strings.Builder
	env := func(k string) string {
		if k == "TWIN_ROOT" {
			return root
		}
		return ""
	}
	code := Run(name, "/usr/local/sbin/"+name, args, env, strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

// TestMlxconfigRefusesWhatTheScriptTook: input NVIDIA's mlxconfig refuses
// and a literal shell reading would take (wildcard addresses, paths through
// device names, junk after pciconf<N>, "#", backslash escapes, blank-split
// names) is refused, and nothing is written.
func TestMlxconfigRefusesWhatTheScriptTook(t *testing.T) {
	root := nvTree(t)
	for _, c := range []struct {
		args    []string
		wantErr string
	}{
		{[]string{"-d", "0000:17:0..0", "q"}, "-E- Failed to open device: 0000:17:0..0. No such file or directory\n"},
		{[]string{"-d", "0000:1?:00.0", "q"}, "-E- Failed to open device: 0000:1?:00.0. No such file or directory\n"},
		{[]string{"-d", "mlx5_1/../mlx5_0", "q"}, "-E- Failed to open device: mlx5_1/../mlx5_0. No such file or directory\n"},
		{[]string{"-d", "/dev/mst/mt4129_pciconf1x", "q"}, "-E- Failed to open device: /dev/mst/mt4129_pciconf1x. No such file or directory\n"},
		{[]string{"-d", "/dev/mst/mt4129_pciconf", "q"}, "-E- Failed to open device: /dev/mst/mt4129_pciconf. No such file or directory\n"},
		{[]string{"-d", "/dev/mst/mt4129_pciconf01", "q"}, "-E- Failed to open device: /dev/mst/mt4129_pciconf01. No such file or directory\n"},
		{[]string{"-d", "mlx5_0", "-y", "s", "#=5"}, "-E- The Device doesn't support # parameter\n"},
		{[]string{"-d", "mlx5_0", "-y", "s", `\x43NP_DSCP_P1=5`}, `-E- The Device doesn't support \x43NP_DSCP_P1 parameter` + "\n"},
		// The message goes through dash's echo, which reads \061 as "1".
		{[]string{"-d", "mlx5_0", "-y", "s", `CNP_DSCP_P1=\061`}, "-E- Failed to set configuration: Invalid value '1' for CNP_DSCP_P1\n"},
		{[]string{"-d", "mlx5_0", "q", ""}, "-E- The Device doesn't support  parameter\n"},
		{[]string{"-d", "mlx5_0", "q", "SRIOV_EN CNP_DSCP_P1"}, "-E- The Device doesn't support SRIOV_EN CNP_DSCP_P1 parameter\n"},
	} {
		_, stderr, code := run(t, root, "mlxconfig", c.args...)
		if code != 1 || stderr != c.wantErr {
			t.Errorf("mlxconfig %q: exit %d, stderr %q; want 1, %q", c.args, code, stderr, c.wantErr)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "etc/twin/nvconfig")); !os.IsNotExist(err) {
		t.Errorf("a refused call wrote NV configuration: %v", err)
	}
}

// TestMlxconfigSetQueryReset walks one device through a set (the prompt
// answered on standard input), a query of next-boot values and a reset.
func TestMlxconfigSetQueryReset(t *testing.T) {
	root := nvTree(t)
	out, stderr, code := runIn(t, root, "y\n", "mlxconfig", "-d", "/dev/mst/mt4129_pciconf1", "s", "SRIOV_EN=true", "CNP_DSCP_P1=26")
	if code != 0 || stderr != "" || !strings.Contains(out, " Apply new Configuration? (y/n) [n] : Applying... Done!\n") ||
		!strings.Contains(out, "         SRIOV_EN                                    False(0)            True(1)\n") {
		t.Fatalf("set: exit %d\n%s%s", code, out, stderr)
	}
	next := filepath.Join(root, "etc/twin/nvconfig/0000:29:00.0")
	if b, err := os.ReadFile(next); err != nil || string(b) != "SRIOV_EN=1\nCNP_DSCP_P1=26\n" {
		t.Fatalf("next-boot file %q %v", b, err)
	}
	if _, err := os.Stat(next + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left: %v", err)
	}
	out, _, code = run(t, root, "mlxconfig", "-e", "q")
	want := "*       CNP_DSCP_P1                                 48              48              26\n"
	if code != 0 || strings.Count(out, "Device #") != 2 || !strings.Contains(out, "Device:             0000:29:00.0\n") || !strings.Contains(out, want) {
		t.Fatalf("query: exit %d\n%s", code, out)
	}
	if out, _, code = runIn(t, root, "n\n", "mlxconfig", "-d", "29:00.0", "r"); code != 1 || !strings.HasSuffix(out, "[n] : Aborted by user\n") {
		t.Fatalf("refused reset: exit %d\n%s", code, out)
	}
	if _, _, code = run(t, root, "mlxconfig", "-d", "mlx5_1", "-y", "r"); code != 0 {
		t.Fatalf("reset: exit %d", code)
	}
	if _, err := os.Stat(next); !os.IsNotExist(err) {
		t.Errorf("reset left %s: %v", next, err)
	}
}
