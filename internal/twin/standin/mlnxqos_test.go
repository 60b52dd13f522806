package standin

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// qosTree is a host with OFED and one PF netdev ens1f0np0 at 0000:1a:00.0.
func qosTree(t *testing.T, extra map[string]string) string {
	t.Helper()
	files := map[string]string{
		"usr/bin/ofed_info":                 "#!/bin/sh\n",
		"sys/bus/pci/devices/0000:1a:00.0/": "",
		"sys/class/net/ens1f0np0/":          "",
		"sys/class/net/ens1f0np0/device":    "-> ../../../bus/pci/devices/0000:1a:00.0",
		"sys/class/net/vf0/device/physfn":   "",
		"run/twin/":                         "",
	}
	for k, v := range extra {
		files[k] = v
	}
	root := tree(t, files)
	if err := os.Chmod(filepath.Join(root, "usr/bin/ofed_info"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

const pcpOut = "DCBX mode: OS controlled\nPriority trust state: pcp\n" +
	"Receive buffer size (bytes): 262016,0,0,0,0,0,0,0,max_buffer_size=2097152\nCable len: 7\nPFC configuration:\n" +
	"\tpriority    0   1   2   3   4   5   6   7\n\tenabled     0   0   0   0   0   0   0   0   \n" +
	"\tbuffer      0   0   0   0   0   0   0   0   \n" +
	"tc: 0 ratelimit: unlimited, tsa: vendor\n\t priority:  1\ntc: 1 ratelimit: unlimited, tsa: vendor\n\t priority:  0\n" +
	"tc: 2 ratelimit: unlimited, tsa: vendor\n\t priority:  2\ntc: 3 ratelimit: unlimited, tsa: vendor\n\t priority:  3\n" +
	"tc: 4 ratelimit: unlimited, tsa: vendor\n\t priority:  4\ntc: 5 ratelimit: unlimited, tsa: vendor\n\t priority:  5\n" +
	"tc: 6 ratelimit: unlimited, tsa: vendor\n\t priority:  6\ntc: 7 ratelimit: unlimited, tsa: vendor\n\t priority:  7\n"

// TestMlnxQoSReadWritesNothing: printing the state creates neither the
// state file nor the lock.
func TestMlnxQoSReadWritesNothing(t *testing.T) {
	root := qosTree(t, nil)
	for _, args := range [][]string{{"-i", "ens1f0np0"}, {"-i", "ens1f0np0", "-P", "3"}, {"-i", "ens1f0np0", "-d", "get", "-a"}} {
		if _, _, code := run(t, root, "mlnx_qos", args...); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
	}
	if out, _, _ := run(t, root, "mlnx_qos", "-i", "ens1f0np0"); out != pcpOut {
		t.Errorf("boot state:\n%s", out)
	}
	if names, _ := os.ReadDir(filepath.Join(root, "run/twin")); len(names) != 0 {
		t.Errorf("a read wrote %v", names)
	}
}

func TestMlnxQoSSetters(t *testing.T) {
	root := qosTree(t, map[string]string{"run/twin/nvconfig/0000:1a:00.0": "QOS_TRUST_STATE_P1=2"})
	out, _, code := run(t, root, "mlnx_qos", "-i", "ens1f0np0")
	if code != 0 || !strings.Contains(out, "trust state: dscp\ndscp2prio mapping:\n\tprio:0 dscp:07,06,05,04,03,02,01,00,\n") {
		t.Fatalf("NV config trust at boot: %d\n%s", code, out)
	}
	if _, _, code := run(t, root, "mlnx_qos", "-i", "ens1f0np0", "--dscp2prio", "set,26,5", "--pfc=0,0,0,1,0,0,0,0"); code != 0 {
		t.Fatal(code)
	}
	state, err := os.ReadFile(filepath.Join(root, "run/twin/qos/ens1f0np0"))
	if err != nil || !strings.Contains(string(state), "pfc=0,0,0,1,0,0,0,0\n") || !strings.Contains(string(state), " 5 3 3 3 3 3 4 ") {
		t.Fatalf("state %q %v", state, err)
	}
	if _, err := os.Stat(filepath.Join(root, "run/twin/qos.lock")); err != nil {
		t.Errorf("a setter took no lock: %v", err)
	}
	// "07" is not index 7 of an awk array: nothing changes.
	before := string(state)
	run(t, root, "mlnx_qos", "-i", "ens1f0np0", "--dscp2prio", "set,07,0")
	if after, _ := os.ReadFile(filepath.Join(root, "run/twin/qos/ens1f0np0")); string(after) != before {
		t.Errorf("set,07,0 changed the map:\n%s", after)
	}
	if out, _, _ := run(t, root, "mlnx_qos", "-i", "ens1f0np0", "-P", "3"); out != "1\n" {
		t.Errorf("-P 3 = %q", out)
	}
	out, _, code = run(t, root, "mlnx_qos", "-i", "ens1f0np0", "--trust", "pcp", "-r", "0,0,0,25,0,0,0,0", "-a")
	if code != 0 || !strings.Contains(out, "tc: 3 ratelimit: 25.0 Gbps, tsa: vendor\n") || !strings.Contains(out, "trust state: pcp\n") {
		t.Errorf("--trust pcp -r: %d\n%s", code, out)
	}
}

func TestMlnxQoSErrors(t *testing.T) {
	root := qosTree(t, map[string]string{"run/twin/qos/ens1f0np0": "pfc=1,1,1,1,1,1,1,1\ndscp2prio='0 1\n"})
	for _, c := range []struct {
		args           []string
		code           int
		stdout, stderr string
	}{
		{nil, 1, "Interface name is required\nUsage: mlnx_qos -i <interface> [options]\n", ""},
		{[]string{"-i"}, 2, "", "Usage: mlnx_qos -i <interface> [options]\n\nmlnx_qos: error: -i option requires an argument\n"},
		{[]string{"--bogus=1"}, 2, "", "Usage: mlnx_qos -i <interface> [options]\n\nmlnx_qos: error: no such option: --bogus\n"},
		{[]string{"-i", "nope0"}, 1, "", "Netlink error: No such device (nope0)\n"},
		{[]string{"-i", "vf0", "--trust", "dscp"}, 1, "Priority trust state is not supported on your system\n", ""},
		{[]string{"-i", "ens1f0np0"}, 2, "", "/usr/local/sbin/mlnx_qos: 3: ROOT/run/twin/qos/ens1f0np0: Syntax error: Unterminated quoted string\n"},
	} {
		out, errs, code := run(t, root, "mlnx_qos", c.args...)
		errs = strings.ReplaceAll(errs, root, "ROOT")
		if code != c.code || out != c.stdout || errs != c.stderr {
			t.Errorf("mlnx_qos %q = %d %q %q, want %d %q %q", c.args, code, out, errs, c.code, c.stdout, c.stderr)
		}
	}
	root = qosTree(t, map[string]string{"run/twin/qos/ens1f0np0": "pfc=1,x,,2\nmax_buffer_size=zz\n"})
	out, errs, code := run(t, root, "mlnx_qos", "-i", "ens1f0np0")
	if code != 0 || !strings.Contains(out, "\tenabled     1   0   0   2   \n") ||
		errs != "/usr/local/sbin/mlnx_qos: 326: printf: x: expected numeric value\n" {
		t.Errorf("damaged state: %d %q\n%s", code, errs, out)
	}
	out, errs, code = run(t, root, "mlnx_qos", "-i", "ens1f0np0", "--buffer_size", "1,0,0,0,0,0,0,0")
	if code != 0 || !strings.Contains(out, "Receive buffer size (bytes): 1,0,0,0,0,0,0,0,max_buffer_size=zz\n") ||
		!strings.Contains(errs, ": 110: [: Illegal number: zz\n") {
		t.Errorf("buffer_size against a bad maximum: %d %q\n%s", code, errs, out)
	}
}

// TestMlnxQoSSettersSerialise: setters at once each keep their change.
func TestMlnxQoSSettersSerialise(t *testing.T) {
	root := qosTree(t, nil)
	var wg sync.WaitGroup
	for p := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := strings.Split("x,x,x,x,x,x,x,x", ",")
			one[p] = "1"
			if _, errs, code := run(t, root, "mlnx_qos", "-i", "ens1f0np0", "-F", strings.Join(one, ",")); code != 0 {
				t.Errorf("-F: %d %s", code, errs)
			}
		}()
	}
	wg.Wait()
	if out, _, _ := run(t, root, "mlnx_qos", "-i", "ens1f0np0"); !strings.Contains(out, "\tenabled     1   1   1   1   1   1   1   1   \n") {
		t.Errorf("a change was lost:\n%s", out)
	}
}

func TestShellModels(t *testing.T) {
	if got := ifsSplit(",a,,b,", ','); strings.Join(got, "|") != "|a||b" {
		t.Errorf("ifsSplit = %q", got)
	}
	if got := count("a,b\\nc"); got != "2\n1" {
		t.Errorf("count = %q", got)
	}
	if got := nth("a,b\\nc", 1); got != "b\nc" {
		t.Errorf("nth = %q", got)
	}
	if got := setnth("", 2, "1"); got != ",,1" {
		t.Errorf("setnth = %q", got)
	}
	if got := mawkVar(`a\qb\\c\tz\101\/\"\x414\400`); got != "a\\qb\\c\tzA\\/\"A4\x00" {
		t.Errorf("mawkVar = %q", got)
	}
	for _, c := range []struct {
		p, s string
		ok   bool
	}{{"s?t,*", "set,1", true}, {"[!a]*", "abc", false}, {"[a-c]x", "bx", true}, {"a[", "a[", true}, {`\*`, "*", true}, {"*", "", true}} {
		if globMatch(c.p, c.s) != c.ok {
			t.Errorf("globMatch(%q, %q) != %v", c.p, c.s, c.ok)
		}
	}
}

// FuzzQoSState: any state file parses without panicking, and what mlnx_qos
// saves reads back as it was.
func FuzzQoSState(f *testing.F) {
	f.Add("dcbx=os\npfc=0,0,0,1,0,0,0,0\ndscp2prio='0 0 1'\n", "0,1", "1 2 -")
	f.Add("pfc='0\nx", "", "")
	f.Add("a=1 b c\\\n;pfc=\"1\\\"\"", "x,,y", "default")
	f.Fuzz(func(t *testing.T, junk, list, m string) {
		_, _ = ParseQoSState(junk)
		for _, s := range []string{list, m} {
			if strings.ContainsAny(s, "\\'\"\n\x00$`") || s == "-n" {
				return
			}
		}
		st := QoSDefaults()
		st.PFC, st.TSA, st.DSCP2Prio = list, strings.ReplaceAll(list, " ", ","), m
		got, ok := ParseQoSState(st.render())
		if !ok || got.DSCP2Prio != m || got.DCBX != "os" {
			t.Errorf("round trip of %q: %+v %v", m, got, ok)
		}
		if !strings.ContainsAny(list, " \t;&|#") && (got.PFC != list || got.TSA != st.TSA) {
			t.Errorf("round trip of %q: %+v", list, got)
		}
		_ = dscpEdit(m, "set", "3", "4")
		_, _ = count(list), setnth(list, 3, "1")
	})
}
