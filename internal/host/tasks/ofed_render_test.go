package tasks

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The golden tests pin the files OFEDPin writes byte for byte.

const prefs2510 = `Explanation: managed by the roce provider: doca OFED 25.10-1.7.1
Package: doca-ofed
Pin: version 25.10-1.7.1
Pin-Priority: 1001

Explanation: the OFED packages the metapackage depends on, from the pinned repository
Package: doca-* mlnx-* ofed-scripts rdma-core ibverbs-* libibverbs* librdmacm* rdmacm-utils ibacm infiniband-diags libibumad* libibnetdisc* srptools python3-pyverbs mstflint mft kernel-mft-dkms knem* xpmem* libxpmem* ucx* hcoll* sharp* openmpi* perftest
Pin: origin linux.mellanox.com
Pin-Priority: 1001
`

func TestAptSourceGolden(t *testing.T) {
	tests := []struct {
		name string
		task OFEDPin
		want string
	}{
		{"signed-by", docaPin(doca2510), "# Managed by the roce provider: the doca OFED 25.10-1.7.1 repository.\n" +
			"deb [signed-by=/usr/share/keyrings/mellanox.gpg] https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/ ./\n"},
		{"trusted local repository", OFEDPin{Flavor: "doca", Version: doca2510, RepoURL: "file:/srv/twin-apt/doca/25.10-1.7.1", Trusted: true},
			"# Managed by the roce provider: the doca OFED 25.10-1.7.1 repository.\n" +
				"deb [trusted=yes] file:/srv/twin-apt/doca/25.10-1.7.1 ./\n"},
		{"keys already trusted", OFEDPin{Flavor: "mlnx", Version: "24.10-3.2.5.0", RepoURL: "http://mirror.lan:8080/mlnx/24.10-3.2.5.0/"},
			"# Managed by the roce provider: the mlnx OFED 24.10-3.2.5.0 repository.\n" +
				"deb http://mirror.lan:8080/mlnx/24.10-3.2.5.0/ ./\n"},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, tt.task.aptSource()); diff != "" {
			t.Errorf("%s: source (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestAptPreferencesGolden(t *testing.T) {
	if diff := cmp.Diff(prefs2510, docaPin(doca2510).AptPreferences()); diff != "" {
		t.Errorf("preferences (-want +got):\n%s", diff)
	}
	// A local repository has the empty origin; packages outside the
	// patterns join the second stanza; PackageVersion is what is pinned;
	// the port is not part of apt's origin.
	local := OFEDPin{Flavor: "mlnx", Version: "24.10-3.2.5.0", PackageVersion: "24.10-OFED.24.10.3.2.5.0.1",
		RepoURL: "file:/srv/twin-apt/mlnx/24.10-3.2.5.0", Trusted: true, Packages: []string{"mlnx-ofed-all", "ofed-scripts", "libibverbs1"}}
	want := `Explanation: managed by the roce provider: mlnx OFED 24.10-3.2.5.0
Package: mlnx-ofed-all ofed-scripts libibverbs1
Pin: version 24.10-OFED.24.10.3.2.5.0.1
Pin-Priority: 1001

Explanation: the OFED packages the metapackage depends on, from the pinned repository
Package: doca-* mlnx-* ofed-scripts rdma-core ibverbs-* libibverbs* librdmacm* rdmacm-utils ibacm infiniband-diags libibumad* libibnetdisc* srptools python3-pyverbs mstflint mft kernel-mft-dkms knem* xpmem* libxpmem* ucx* hcoll* sharp* openmpi* perftest
Pin: origin ""
Pin-Priority: 1001
`
	if diff := cmp.Diff(want, local.AptPreferences()); diff != "" {
		t.Errorf("local preferences (-want +got):\n%s", diff)
	}
	port := OFEDPin{Flavor: "doca", Version: doca2510, RepoURL: "http://mirror.lan:8080/doca/3.2.1/"}
	if got := port.aptOrigin(); got != "mirror.lan" {
		t.Errorf("origin of %s = %q, want mirror.lan", port.RepoURL, got)
	}
}

func TestDnfRepoGolden(t *testing.T) {
	rhel := OFEDPin{Flavor: "doca", Version: doca2510, Family: FamilyRHEL,
		RepoURL: "https://linux.mellanox.com/public/repo/doca/3.2.1/rhel9/x86_64/",
		Key:     "https://linux.mellanox.com/public/repo/doca/3.2.1/rhel9/x86_64/GPG-KEY-Mellanox.pub"}
	want := `# Managed by the roce provider: the doca OFED 25.10-1.7.1 repository.
[roce-ofed]
name=doca OFED 25.10-1.7.1 (roce provider)
baseurl=https://linux.mellanox.com/public/repo/doca/3.2.1/rhel9/x86_64/
enabled=1
gpgcheck=1
gpgkey=https://linux.mellanox.com/public/repo/doca/3.2.1/rhel9/x86_64/GPG-KEY-Mellanox.pub
`
	if diff := cmp.Diff(want, rhel.DnfRepo()); diff != "" {
		t.Errorf("repo (-want +got):\n%s", diff)
	}
	rhel.Key, rhel.Trusted = "", true
	want = `# Managed by the roce provider: the doca OFED 25.10-1.7.1 repository.
[roce-ofed]
name=doca OFED 25.10-1.7.1 (roce provider)
baseurl=https://linux.mellanox.com/public/repo/doca/3.2.1/rhel9/x86_64/
enabled=1
gpgcheck=0
`
	if diff := cmp.Diff(want, rhel.DnfRepo()); diff != "" {
		t.Errorf("trusted repo (-want +got):\n%s", diff)
	}
}
