package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUndo(t *testing.T) {
	render := func(rs []interface{ String() string }) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.String())
		}
		return out
	}
	deb := OFEDPin{Flavor: "doca", Version: "25.10-1.7.1", Family: FamilyDebian}
	var got []interface{ String() string }
	for _, r := range deb.Undo() {
		got = append(got, r)
	}
	want := []string{
		"apt-mark unhold doca-ofed >/dev/null || true",
		"rm -f -- /etc/apt/sources.list.d/roce-ofed.list /etc/apt/preferences.d/roce-ofed /etc/apt/auth.conf.d/roce-ofed.conf",
	}
	if diff := cmp.Diff(want, render(got)); diff != "" {
		t.Errorf("debian undo (-want +got):\n%s", diff)
	}
	rhel := OFEDPin{Flavor: "mlnx", Version: "24.10-3.2.5.0", Family: FamilyRHEL}
	got = nil
	for _, r := range rhel.Undo() {
		got = append(got, r)
	}
	want = []string{
		`sh -c 'n_=$1; shift; until "$@"; do rc_=$?; if [ "$rc_" -ne 200 ] || [ "$n_" -le 0 ]; then exit "$rc_"; fi; ` +
			`n_=$((n_-1)); sleep 1; done' sh 120 dnf --setopt=exit_on_lock=True -q versionlock delete mlnx-ofed-all || true`,
		"rm -f -- /etc/yum.repos.d/roce-ofed.repo",
	}
	if diff := cmp.Diff(want, render(got)); diff != "" {
		t.Errorf("rhel undo (-want +got):\n%s", diff)
	}
	if got := (ModuleLoaded{Module: "nvidia_peermem"}).Undo()[0].String(); got != "rm -f -- /etc/modules-load.d/nvidia_peermem.conf" {
		t.Errorf("module undo = %q", got)
	}
}
