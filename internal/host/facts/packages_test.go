package facts

import "testing"

func TestPackageCommands(t *testing.T) {
	dpkg, err := DpkgQueryCommand("doca-ofed", "mlnx-ofed-*")
	if err != nil {
		t.Fatal(err)
	}
	wantDpkg := `dpkg-query -W '--showformat=${Package}\t${Architecture}\t${Version}\t${Status}\n' doca-ofed 'mlnx-ofed-*'`
	if got := dpkg.String(); got != wantDpkg {
		t.Errorf("dpkg command = %q, want %q", got, wantDpkg)
	}
	rpm, err := RPMInstalledCommand("doca-ofed", "mlnx-ofed-*")
	if err != nil {
		t.Fatal(err)
	}
	wantRPM := `rpm -qa --qf '%{NAME}\t%{ARCH}\t%{EPOCH}\t%{VERSION}-%{RELEASE}\n' doca-ofed 'mlnx-ofed-*'`
	if got := rpm.String(); got != wantRPM {
		t.Errorf("rpm command = %q, want %q", got, wantRPM)
	}
	if _, err := RPMInstalledCommand(); err == nil {
		t.Error("RPMInstalledCommand() succeeded, want error")
	}
	for _, bad := range []string{"", "--admindir=/tmp", "-x"} {
		if _, err := DpkgQueryCommand(bad); err == nil {
			t.Errorf("DpkgQueryCommand(%q) succeeded, want error", bad)
		}
		if _, err := RPMInstalledCommand(bad); err == nil {
			t.Errorf("RPMInstalledCommand(%q) succeeded, want error", bad)
		}
	}
}
