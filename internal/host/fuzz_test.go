package host

import (
	"strings"
	"testing"
)

// FuzzParseFileProbe feeds the file fact's parser what a host could print: it must never
// panic, and what it accepts must hold together.
func FuzzParseFileProbe(f *testing.F) {
	const sum = "ef39a9f6fac12fbdc3d7d1b3b52d6b5e1fa3a2e1c3e1ab2c9bba0b1a2b3c4d5e"
	for _, seed := range []string{
		"absent\n", "absent nodir\n",
		"81a4 0 0 15 root:root\n" + sum + "  -\nnvidia_peermem\n",
		"81a4 1000 1001 3 alice:domain users\n" + sum + "  -\nabc",
		"a1ff 0 0 38 root:root\n/usr/lib/systemd/system/roce-x.service\n",
		"41ed 0 0 4096 root:root\n", "11a4 0 0 0 root:root\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, out string) {
		fi, err := ParseFileProbe("/p", out)
		if err != nil {
			return
		}
		if int64(len(fi.Content)) > fi.Size || len(fi.Content) > MaxFileContent {
			t.Errorf("accepted %d bytes of content for a file of %d bytes", len(fi.Content), fi.Size)
		}
		if fi.Exists && (fi.Owner == "" || fi.Group == "" || strings.Contains(fi.Owner, ":")) {
			t.Errorf("accepted owner %q group %q", fi.Owner, fi.Group)
		}
		if fi.Type == FileSymlink && fi.Target == "" {
			t.Error("accepted a symbolic link without a target")
		}
	})
}

// FuzzSplitGather feeds the gather splitter arbitrary streams: it must never panic, and the
// sections it accepts follow the steps in order.
func FuzzSplitGather(f *testing.F) {
	steps := []step{{label: "a"}, {label: "loop", loop: true}, {label: "b"}}
	d := func(step, status, key string) string {
		return "\n" + fakeNonce + " " + step + " " + status + " " + key + "\n"
	}
	ok := d("0", "0", "-") + "x" + d("1", "0", "eth0") + d("2", "1", "-")
	f.Add(ok, ok)
	f.Add(d("0", "0", "-")+d("1", "127", "-")+d("2", "0", "-"), d("0", "0", "-")+d("1", "127", "-")+d("2", "0", "-"))
	f.Add(ok+"junk", ok)
	f.Fuzz(func(t *testing.T, stdout, stderr string) {
		secs, err := splitGather(steps, fakeNonce, []byte(stdout), []byte(stderr))
		if err != nil {
			return
		}
		last := -1
		for _, s := range secs {
			if s.step < last || s.step >= len(steps) {
				t.Fatalf("sections out of order or for no step: %+v", secs)
			}
			last = s.step
		}
	})
}
