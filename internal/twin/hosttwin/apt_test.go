package hosttwin

import (
	"os"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// TestAptInstallStaysInTwin runs the real apt-get and dpkg against the
// twin repository, over the overlay: renames, hard links and the dpkg
// database in the upper directory.
func TestAptInstallStaysInTwin(t *testing.T) {
	if testing.Short() {
		t.Skip("runs apt-get")
	}
	f := startFleet(t, Options{Hosts: []HostSpec{{Name: "apt", Profile: "inbox"}}})
	h, _ := f.Host("apt")
	c := dial(t, h)
	if out, err := sshOutput(c, "ofed_info -s"); err == nil {
		t.Fatalf("inbox host has ofed_info before install: %q", out)
	}
	var repo hostprofile.Repo
	for _, r := range hostprofile.Repos() {
		if r.Flavor == hostprofile.StackDOCA {
			repo = r // the newest DOCA version
		}
	}
	pkgs, err := hostprofile.Packages(repo.Flavor, repo.Version)
	if err != nil || len(pkgs) == 0 {
		t.Fatalf("packages of %+v: %v, %v", repo, pkgs, err)
	}
	meta := pkgs[0].Name
	script := "echo '" + repo.SourceLine() + "' > /etc/apt/sources.list.d/twin.list && " +
		"apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq " + meta + " >/dev/null && ofed_info -s"
	out := sshRun(t, c, script)
	if !strings.Contains(out, strings.SplitN(repo.Version, "-", 2)[0]) {
		t.Errorf("ofed_info -s after installing %s = %q", meta, out)
	}
	if _, err := os.Stat("/usr/bin/ofed_info"); err == nil {
		t.Error("/usr/bin/ofed_info appeared on this machine")
	}
	if st, err := os.ReadFile("/var/lib/dpkg/status"); err == nil && strings.Contains(string(st), "Package: "+meta+"\n") {
		t.Errorf("%s is in this machine's dpkg status", meta)
	}
}
