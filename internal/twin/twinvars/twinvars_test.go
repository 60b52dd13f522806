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
	v, err := New(ep, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"debian": "file:/srv/twin-apt/doca/25.10-1.7.1", "rhel": "file:///srv/twin-dnf/doca/25.10-1.7.1"}
	if !reflect.DeepEqual(v.OFED.RepoURLs, want) || v.OFED.RepoURL != want["debian"] {
		t.Errorf("OFED = %+v", v.OFED)
	}
	ep.Hosts[1].Profile = "mlnx"
	if _, err := New(ep, nil); err == nil || !strings.Contains(err.Error(), "share one OFED stack") {
		t.Errorf("hosts on doca and mlnx: %v", err)
	}
}
