package facts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseNCCLInstall(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      NCCLInstall
	}{
		{"none", "", NCCLInstall{}},
		{"rpm says not installed", "package libnccl is not installed\n", NCCLInstall{}},
		{"debian package and its library",
			"lib\t/lib/x86_64-linux-gnu/libnccl.so.2\t/usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3\n" +
				"lib\t/lib/x86_64-linux-gnu/libnccl.so\t/usr/lib/x86_64-linux-gnu/libnccl.so.2.19.3\n" +
				"pkg\tlibnccl2\t2.19.3-1+cuda12.2\tinstall ok installed\n",
			NCCLInstall{Version: "2.19.3", Source: "package libnccl2 2.19.3-1+cuda12.2"}},
		{"rhel package", "pkg\tlibnccl\t2.21.5-1+cuda12.4\tinstalled\n",
			NCCLInstall{Version: "2.21.5", Source: "package libnccl 2.21.5-1+cuda12.4"}},
		{"removed package keeps its config: not installed",
			"pkg\tlibnccl2\t2.19.3-1+cuda12.2\tdeinstall ok config-files\n", NCCLInstall{}},
		{"purged", "pkg\tlibnccl2\t2.19.3-1+cuda12.2\tpurge ok not-installed\n", NCCLInstall{}},
		{"tarball registered with ldconfig only",
			"lib\t/opt/nccl/lib/libnccl.so.2\t/opt/nccl/lib/libnccl.so.2.23.4\n",
			NCCLInstall{Version: "2.23.4", Source: "library /opt/nccl/lib/libnccl.so.2.23.4"}},
		{"package and another library disagree",
			"lib\t/opt/nccl/lib/libnccl.so.2\t/opt/nccl/lib/libnccl.so.2.26.2\n" +
				"pkg\tlibnccl2\t2.21.5-1+cuda12.4\tinstall ok installed\n",
			NCCLInstall{Version: "2.21.5", Source: "package libnccl2 2.21.5-1+cuda12.4", Others: []string{"library /opt/nccl/lib/libnccl.so.2.26.2"}}},
		{"library without a version in its name", "lib\t/usr/lib/libnccl.so.2\t/usr/lib/libnccl.so.2\n", NCCLInstall{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseNCCLInstall(tc.out)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseNCCLInstall() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNCCLInstallScriptRuns runs the script in a real shell against an
// ldconfig that prints the cache lines of a libnccl2 host (the format of
// "ldconfig -p | grep nccl" as published with Ubuntu's libnccl2) over a real
// symbolic link, so readlink resolves the file NCCL's makefile names.
func TestNCCLInstallScriptRuns(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Fatalf("sh: %v", err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib")
	bin := filepath.Join(dir, "bin")
	for _, d := range []string{lib, bin} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(lib, "libnccl.so.2.19.3"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("libnccl.so.2.19.3", filepath.Join(lib, "libnccl.so.2")); err != nil {
		t.Fatal(err)
	}
	ldconfig := "#!/bin/sh\n[ \"$1\" = -p ] || exit 2\n" +
		"printf '1234 libs found in cache `/etc/ld.so.cache'\"'\"'\\n'\n" +
		"printf '\\tlibncurses.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libncurses.so.6\\n'\n" +
		"printf '\\tlibnccl.so.2 (libc6,x86-64) => " + lib + "/libnccl.so.2\\n'\n"
	for name, body := range map[string]string{"ldconfig": ldconfig, "readlink": "#!/bin/sh\nexec /usr/bin/readlink \"$@\"\n"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r, err := NCCLInstallScript().Render()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sh, "-c", r)
	cmd.Env = []string{"PATH=" + bin}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("script: %v", err)
	}
	got, err := ParseNCCLInstall(string(out))
	if err != nil {
		t.Fatal(err)
	}
	want := NCCLInstall{Version: "2.19.3", Source: "library " + lib + "/libnccl.so.2.19.3"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("script output %q parsed (-want +got):\n%s", out, diff)
	}
}

func FuzzNCCLInstall(f *testing.F) {
	f.Add("pkg\tlibnccl2\t2.19.3-1+cuda12.2\tinstall ok installed\nlib\t/a/libnccl.so.2\t/a/libnccl.so.2.21.5\n")
	f.Add("pkg\tlibnccl\t1:2.21.5-1\tinstalled\n")
	f.Fuzz(func(t *testing.T, s string) {
		in, err := ParseNCCLInstall(s)
		if err != nil {
			t.Fatal("ParseNCCLInstall never fails")
		}
		if (in.Version == "") != (in.Source == "") {
			t.Errorf("Version %q without Source %q or the reverse", in.Version, in.Source)
		}
	})
}
