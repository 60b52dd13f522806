package hostprofile_test

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

func ExampleLookup() {
	p, _ := hostprofile.Lookup("gid-index-5")
	fmt.Println(p.NICModel, p.Ports, p.Stack, p.OFEDVersion, p.RoCEv2IPv4GIDIndex)
	fmt.Println(p.RDMADevices()[0], p.Netdevs()[0], hostprofile.HostID{Name: "gpu-3", Index: 3}.IPv4(0))
	// Output:
	// ConnectX-7 8 doca 25.10-1.7.1 5
	// mlx5_0 ens1f0np0 10.3.0.1
}

func ExampleRepo_SourceLine() {
	for _, r := range hostprofile.Repos() {
		fmt.Println(r.SourceLine())
	}
	// Output:
	// deb [trusted=yes] file:/srv/twin-apt/doca/25.07-0.9.7 ./
	// deb [trusted=yes] file:/srv/twin-apt/doca/25.10-1.7.1 ./
	// deb [trusted=yes] file:/srv/twin-apt/mlnx/24.10-2.1.8.0 ./
	// deb [trusted=yes] file:/srv/twin-apt/mlnx/24.10-3.2.5.0 ./
}

func ExamplePackages() {
	pkgs, _ := hostprofile.Packages(hostprofile.StackMLNX, "24.10-3.2.5.0")
	for _, p := range pkgs {
		fmt.Println(p.Name, p.Version)
	}
	// Output:
	// mlnx-ofed-all 24.10-3.2.5.0
	// mlnx-ofed-kernel-dkms 24.10.OFED.24.10.3.2.5.0.1
	// mlnx-tools 24.10-3.2.5.0
	// rdma-core 2410mlnx1-1.24103250
	// ibverbs-utils 2410mlnx1-1.24103250
}
