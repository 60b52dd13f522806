package twinvars

import "testing"

func TestTwinOFED(t *testing.T) {
	for profile, want := range map[string]OFED{
		"cx7":   {Flavor: "doca", Version: "25.10-1.7.1", RepoURL: "file:/srv/twin-apt/doca/25.10-1.7.1", Trusted: true},
		"mlnx":  {Flavor: "mlnx", Version: "24.10-3.2.5.0", RepoURL: "file:/srv/twin-apt/mlnx/24.10-3.2.5.0", Trusted: true},
		"inbox": {Flavor: "doca", Version: "25.10-1.7.1", RepoURL: "file:/srv/twin-apt/doca/25.10-1.7.1", Trusted: true},
	} {
		got, err := TwinOFED(profile)
		if err != nil || got != want {
			t.Errorf("TwinOFED(%q) = %+v, %v; want %+v", profile, got, err, want)
		}
	}
	if _, err := TwinOFED("nope"); err == nil {
		t.Error("TwinOFED of an unknown profile did not fail")
	}
}
