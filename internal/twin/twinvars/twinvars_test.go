package twinvars

import (
	"reflect"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
)

func TestTwinOFED(t *testing.T) {
	apt := func(flavor, version string) OFED {
		url := "file:/srv/twin-apt/" + flavor + "/" + version
		return OFED{Flavor: flavor, Version: version, RepoURL: url, RepoURLs: map[string]string{"debian": url}, Trusted: true}
	}
	dnfURL := "file:///srv/twin-dnf/doca/25.10-1.7.1"
	for profile, want := range map[string]OFED{
		"cx7":          apt("doca", "25.10-1.7.1"),
		"mlnx":         apt("mlnx", "24.10-3.2.5.0"),
		"inbox":        apt("doca", "25.10-1.7.1"),
		"rocky9-inbox": {Flavor: "doca", Version: "25.10-1.7.1", RepoURL: dnfURL, RepoURLs: map[string]string{"rhel": dnfURL}, Trusted: true},
	} {
		got, err := TwinOFED(profile)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("TwinOFED(%q) = %+v, %v; want %+v", profile, got, err, want)
		}
	}
	if _, err := TwinOFED("nope"); err == nil {
		t.Error("TwinOFED of an unknown profile did not fail")
	}
}

// A fleet of Debian and Rocky hosts gets both repositories; hosts on different stacks are
// refused.
func TestNewMixedFleet(t *testing.T) {
	ep := Endpoints{Hosts: []hosttwin.Host{{Name: "gpu1", Profile: "cx7"}, {Name: "gpu2", Profile: "rocky9"}}}
	v, err := New(ep)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"debian": "file:/srv/twin-apt/doca/25.10-1.7.1", "rhel": "file:///srv/twin-dnf/doca/25.10-1.7.1"}
	if !reflect.DeepEqual(v.OFED.RepoURLs, want) || v.OFED.RepoURL != want["debian"] {
		t.Errorf("OFED = %+v", v.OFED)
	}
	ep.Hosts[1].Profile = "mlnx"
	if _, err := New(ep); err == nil || !strings.Contains(err.Error(), "share one OFED stack") {
		t.Errorf("hosts on doca and mlnx: %v", err)
	}
}

// A fabric of SONiC and Cumulus leaves: each switch says its OS and ports, the SONiC ones get
// the gnmi block and a release, the Cumulus ones the nvue block and no SONiC release.
func TestMixedSwitches(t *testing.T) {
	s, err := StartSwitches(t.TempDir(), "twinvars-test", 2, SwitchSpec{OS: []string{OSSONiC, OSCumulus}, Ports: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Stop)
	if len(s.SONiC) != 1 || len(s.Cumulus) != 1 {
		t.Fatalf("%d SONiC and %d Cumulus twins", len(s.SONiC), len(s.Cumulus))
	}
	v, err := New(Endpoints{Switches: s.Endpoints})
	if err != nil {
		t.Fatal(err)
	}
	sonic, cumulus := v.Switches[0], v.Switches[1]
	if sonic.OS != OSSONiC || sonic.SONiCRelease == nil || !reflect.DeepEqual(sonic.Ports, []string{"Ethernet0", "Ethernet4"}) {
		t.Errorf("SONiC leaf %+v", sonic)
	}
	if cumulus.OS != OSCumulus || cumulus.SONiCRelease != nil || !reflect.DeepEqual(cumulus.Ports, []string{"swp1", "swp2"}) {
		t.Errorf("Cumulus leaf %+v", cumulus)
	}
	if v.GNMI == nil || v.NVUE == nil || v.NVUE.Username != "cumulus" || v.NVUE.Password != v.GNMI.Password {
		t.Errorf("gnmi %+v, nvue %+v", v.GNMI, v.NVUE)
	}
}
