package standin

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files (a trailing "/" makes a directory, "-> target" a link)
// below a new root.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(rel, "/"):
			err := os.MkdirAll(p, 0o755)
			if err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(content, "-> "):
			if err := os.Symlink(content[3:], p); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

func run(t *testing.T, root, name string, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	env := func(k string) string {
		if k == "TWIN_ROOT" {
			return root
		}
		return ""
	}
	code := Run(name, "/usr/local/sbin/"+name, args, env, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestRDMADevsOrder(t *testing.T) {
	files := map[string]string{}
	for _, d := range []string{"mlx5_10", "mlx5_2", "mlx5_1", "mlx5_0", "ib", "mlx5_02"} {
		files["sys/class/infiniband/"+d+"/"] = ""
	}
	files["sys/class/infiniband/mlx5_9"] = "-> missing" // a dangling entry is no device
	root := tree(t, files)
	out, _, code := run(t, root, "ibv_devinfo", "-l")
	want := "6 HCAs found:\n\tib\n\tmlx5_0\n\tmlx5_1\n\tmlx5_02\n\tmlx5_2\n\tmlx5_10\n\n"
	if code != 0 || out != want {
		t.Errorf("ibv_devinfo -l = %d %q, want %q", code, out, want)
	}
}

func TestNumCompare(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2", "10", -1}, {"10", "2", 1}, {"02", "2", 0}, {"", "0", 0}, {"-1", "", -1}, {"-0", "0", 0},
		{"1.5", "1.25", 1}, {"-2", "-10", 1}, {"x", "1", -1}, {" 3", "3", 0}, {"99999999999999999999999", "1", 1},
	} {
		if got := numCompare(c.a, c.b); got != c.want {
			t.Errorf("numCompare(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}

// TestMissingFiles: a device with nothing but its directory prints empty
// fields and defaults, and nothing panics.
func TestMissingFiles(t *testing.T) {
	root := tree(t, map[string]string{
		"sys/class/infiniband/mlx5_0/ports/1/": "",
		"usr/bin/ofed_info":                    "",
	})
	if err := os.Chmod(filepath.Join(root, "usr/bin/ofed_info"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, _, code := run(t, root, "ibv_devinfo", "-v")
	for _, want := range []string{"\tfw_ver:\t\t\t\t\n", "\tvendor_part_id:\t\t\t0\n", "\thw_ver:\t\t\t\t0x0\n",
		"\t\t\tstate:\t\t\tinvalid state (0)\n", "\t\t\tactive_mtu:\t\t1024 (3)\n", "\t\t\tgid_tbl_len:\t\t0\n",
		"\t\t\tphys_state:\t\tinvalid physical state (0)\n", "\t\t\tactive_speed:\t\t25.0 Gbps (32)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("ibv_devinfo -v lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	out, _, _ = run(t, root, "ibdev2netdev", "-v")
	if want := " mlx5_0 (MT0 - )  fw  port 1 (UNKNOWN) ==>  (NA)\n"; out != want {
		t.Errorf("ibdev2netdev -v = %q, want %q", out, want)
	}
	out, errs, code := run(t, root, "show_gids")
	if code != 0 || !strings.HasSuffix(out, "n_gids_found=0\n") || !strings.Contains(errs, "ls: cannot access") {
		t.Errorf("show_gids = %d %q %q", code, out, errs)
	}
	if out, _, code := run(t, root, "nvidia-smi"); code != 6 || out != "No devices were found\n" {
		t.Errorf("nvidia-smi without GPUs = %d %q", code, out)
	}
	if out, errs, code := run(t, root, "lsmod"); code != 2 || out != "" || !strings.Contains(errs, "cannot create") {
		t.Errorf("lsmod without /run/twin = %d %q %q", code, out, errs)
	}
	if _, errs, code := run(t, root, "no_such_tool"); code != 127 || errs != "no_such_tool: command not found\n" {
		t.Errorf("unknown tool = %d %q", code, errs)
	}
}

func TestRequireOFED(t *testing.T) {
	root := tree(t, map[string]string{"usr/bin/ofed_info": "not executable"})
	for _, tool := range []string{"show_gids", "ibdev2netdev", "cma_roce_tos"} {
		if out, errs, code := run(t, root, tool); code != 127 || out != "" || errs != tool+": command not found\n" {
			t.Errorf("%s without OFED = %d %q %q", tool, code, out, errs)
		}
	}
}

func TestProfileEnvFeedsTools(t *testing.T) {
	root := tree(t, map[string]string{
		"etc/twin/profile.env": "# profile\nTWIN_GPU_MODEL='NVIDIA '\\''B200'\\'''\nTWIN_DRIVER_VERSION=\"570.1\"\n",
		"etc/twin/gpus":        "0 0000:18:00.0 00000000:18:00.0 GPU-0 0 0\n",
	})
	if out, _, _ := run(t, root, "nvidia-smi", "-L"); out != "GPU 0: NVIDIA 'B200' (UUID: GPU-0)\n" {
		t.Errorf("nvidia-smi -L = %q", out)
	}
	if out, _, _ := run(t, root, "nvidia-smi", "-h"); out != "NVIDIA System Management Interface -- v570.1\n" {
		t.Errorf("nvidia-smi -h = %q", out)
	}
}

func TestParseProfileEnv(t *testing.T) {
	got := ParseProfileEnv("# c\nA=1\nB='x y' C=\"q \\\"z\\\" \\$d\"\n  D=a\\ b # tail\nE=1 cmd arg\nF=  ;G=''\nA=2\nH='open")
	want := map[string]string{"A": "2", "B": "x y", "C": `q "z" $d`, "D": "a b", "F": "", "G": ""}
	if len(got) != len(want) {
		t.Errorf("ParseProfileEnv = %q, want %q", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}

// quote is hostprofile's shell.Quote, which writes profile.env.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	safe := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		if !alnum && strings.IndexByte("_@%+=:,./-", c) < 0 {
			safe = false
		}
	}
	if safe && s[0] != '=' {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func FuzzProfileEnv(f *testing.F) {
	f.Add("NVIDIA H100 80GB HBM3", "# x\nA='b")
	f.Add("it's", "B=\"\\\"\" C=\\\n")
	f.Add("", "=;|&#'\"\\")
	f.Fuzz(func(t *testing.T, value, junk string) {
		_ = ParseProfileEnv(junk) // must not panic
		if strings.ContainsRune(value, 0) {
			return
		}
		got := ParseProfileEnv("# Host twin profile\nTWIN_X=" + quote(value) + "\nTWIN_Y=1\n")
		if got["TWIN_X"] != value || got["TWIN_Y"] != "1" {
			t.Errorf("round trip of %q: %q", value, got)
		}
	})
}

// FuzzGID: the GID helpers take any sysfs content without panicking, and
// ntop keeps the 8-group form's meaning for well-formed GIDs.
func FuzzGID(f *testing.F) {
	f.Add("fe80:0000:0000:0000:ba3f:d2ff:fea0:0300")
	f.Add("0000:0000:0000:0000:0000:ffff:0a03:0001")
	f.Add("::z:")
	f.Fuzz(func(t *testing.T, g string) {
		_, _, _ = ntop(g), dotted(g), nullGID(g)
		_ = hexval(g)
	})
	for g, want := range map[string]string{
		"fe80:0000:0000:0000:ba3f:d2ff:fea0:0300": "fe80::ba3f:d2ff:fea0:300",
		"0000:0000:0000:0000:0000:ffff:0a03:0001": "::ffff:10.3.0.1",
		"2001:0db8:0000:0001:0000:0000:0000:0001": "2001:db8:0:1::1",
		"0000:0000:0000:0000:0000:0000:0000:0000": "::",
	} {
		if got := ntop(g); got != want {
			f.Errorf("ntop(%s) = %s, want %s", g, got, want)
		}
	}
}

func TestAwkNumbers(t *testing.T) {
	for _, c := range []struct {
		s  string
		ok bool
		n  float64
	}{{"1", true, 1}, {" 1 ", true, 1}, {"0x1", true, 1}, {"+0x1p4", true, 16}, {"1.", true, 1}, {"-0", true, 0},
		{"inf", false, 0}, {"nan", false, 0}, {"0x", false, 0}, {"1e", false, 0}, {".", false, 0}, {"", false, 0}} {
		n, ok := awkLooksNumeric(c.s)
		if ok != c.ok || ok && n != c.n {
			t.Errorf("awkLooksNumeric(%q) = %v %v, want %v %v", c.s, n, ok, c.n, c.ok)
		}
	}
	if awkInt(3e9) != 1<<31-1 || awkInt(-3.7) != -3 {
		t.Error("awkInt does not clamp as mawk's printf does")
	}
}
