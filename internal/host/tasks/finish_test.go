package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// TestPackageAndFirmwareStepsRunToTheirEnd: an interrupt must not signal apt, dnf or
// mlxconfig mid-transaction, so their steps are marked Finish; a plain file removal is not.
func TestPackageAndFirmwareStepsRunToTheirEnd(t *testing.T) {
	pin := OFEDPin{Flavor: "doca", Version: "25.10-1.7.1", RepoURL: "file:/srv/doca", Trusted: true}
	for name, finish := range map[string]bool{
		"apt-get":   pin.aptCommands(shell.New("apt-get", "install", "doca-ofed")).Finish,
		"dnf":       pin.dnfCommands("install", "doca-ofed").Finish,
		"mlxconfig": nvSetCommands("0000:17:00.0", nil).Finish,
	} {
		if !finish {
			t.Errorf("%s step is not marked Finish: Ctrl-C would signal it mid-transaction", name)
		}
	}
}

// TestOFEDPinRefusesAnInterruptedDpkg: a package dpkg left half configured (a killed
// apt-get) stops the plan with the command that finishes dpkg's work, before any change.
func TestOFEDPinRefusesAnInterruptedDpkg(t *testing.T) {
	pin := OFEDPin{Flavor: "doca", Version: "25.10-1.7.1", RepoURL: "file:/srv/doca/25.10-1.7.1", Trusted: true}
	half := debPkg("doca-ofed", "25.10-1.7.1", false)
	half.Status = "install ok half-configured"
	_, err := pin.Plan(aptFacts(facts.OFEDInfo{}, nil, half))
	if !errors.Is(err, ErrDpkgInterrupted) || !strings.Contains(err.Error(), "doca-ofed (half-configured)") || !strings.Contains(err.Error(), "dpkg --configure -a") {
		t.Fatalf("Plan = %v, want ErrDpkgInterrupted naming doca-ofed and dpkg --configure -a", err)
	}
	if _, err := pin.Plan(aptFacts(facts.OFEDInfo{}, nil, debPkg("doca-ofed", "25.10-1.7.1", false))); errors.Is(err, ErrDpkgInterrupted) {
		t.Fatalf("Plan of an installed package = %v", err)
	}
}
