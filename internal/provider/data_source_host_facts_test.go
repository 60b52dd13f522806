package provider

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// TestHostFactsReportsEachProfile reads every twin profile and checks, field by field, what
// the profile says the hardware is.
func TestHostFactsReportsEachProfile(t *testing.T) {
	f, provider := hostTwins(t)
	config := provider
	var checks []statecheck.StateCheck
	for _, spec := range twinHostSpecs {
		p, ok := hostprofile.Lookup(spec.Profile)
		if !ok {
			t.Fatalf("unknown profile %q", spec.Profile)
		}
		addr := "data.roce_host_facts." + spec.Name
		config += fmt.Sprintf("data \"roce_host_facts\" %q {\n  host = %q\n}\n", spec.Name, twinAddress(t, f, spec.Name))
		model := p.NICModel
		if p.VirtualFunctions {
			model = "ConnectX VF"
		}
		flavor := p.Stack
		dmabuf := p.DMABUF()
		ncclUpstream, _, _ := strings.Cut(p.NCCLVersion, "-")
		ncclSource := ""
		osName, osFamily := machineOS(t), "debian"
		if p.NCCLVersion != "" {
			ncclSource = "package libnccl2 " + p.NCCLVersion
		}
		if p.RHEL() {
			osName, osFamily = "Rocky Linux 9.6 (Blue Onyx)", "rhel"
			if p.NCCLVersion != "" {
				ncclSource = "package libnccl " + p.NCCLVersion
			}
		}
		checks = append(checks,
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("ofed_flavor"), knownvalue.StringExact(flavor)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("ofed_version"), knownvalue.StringExact(p.OFEDVersion)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("lockdown"), knownvalue.StringExact(p.Lockdown)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("nics"), knownvalue.ListSizeExact(p.Ports)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("gpus"), knownvalue.ListSizeExact(p.GPUs)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("dmabuf_capable"), knownvalue.Bool(dmabuf)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("nccl_version"), knownvalue.StringExact(ncclUpstream)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("nccl_source"), knownvalue.StringExact(ncclSource)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("nvidia_open_kernel_modules"), knownvalue.Bool(p.OpenKernelModules)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("peermem_loaded"), knownvalue.Bool(false)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("os"), knownvalue.StringExact(osName)),
			statecheck.ExpectKnownValue(addr, tfjsonpath.New("os_family"), knownvalue.StringExact(osFamily)),
		)
		for i := range p.Ports {
			nic := tfjsonpath.New("nics").AtSliceIndex(i)
			state := "PORT_ACTIVE"
			if p.PortDown(i) {
				state = "PORT_DOWN"
			}
			checks = append(checks,
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("device"), knownvalue.StringExact(fmt.Sprintf("mlx5_%d", i))),
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("model"), knownvalue.StringExact(model)),
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("link_layer"), knownvalue.StringExact("Ethernet")),
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("port_state"), knownvalue.StringExact(state)),
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("is_vf"), knownvalue.Bool(p.VirtualFunctions)),
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("netdev"), knownvalue.StringExact(p.Netdevs()[i])),
				statecheck.ExpectKnownValue(addr, nic.AtMapKey("roce_v2_ipv4_gid_index"), knownvalue.Int64Exact(int64(p.RoCEv2IPv4GIDIndex))),
			)
		}
		for i := range p.GPUs {
			gpu := tfjsonpath.New("gpus").AtSliceIndex(i)
			checks = append(checks,
				statecheck.ExpectKnownValue(addr, gpu.AtMapKey("path_type"), knownvalue.StringExact("PIX")),
				statecheck.ExpectKnownValue(addr, gpu.AtMapKey("bar1_mib"), knownvalue.Int64Exact(int64(p.BAR1MiB))),
			)
		}
	}
	// One configuration reads every host: a Terraform run per host cost about 7 s each.
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps:                    []resource.TestStep{{Config: config, ConfigStateChecks: checks}},
	})
}

func TestHostFactsRefusesAnUnknownHostKey(t *testing.T) {
	f, _ := hostTwins(t)
	empty := filepath.Join(t.TempDir(), "known_hosts")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	provider := fmt.Sprintf("provider \"roce\" {\n  ssh = {\n    user             = \"root\"\n    private_key_file = %q\n    known_hosts_file = %q\n  }\n}\n",
		f.UserKeyFile(), empty)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config:      provider + fmt.Sprintf("data \"roce_host_facts\" \"h\" {\n  host = %q\n}\n", twinAddress(t, f, "cx7")),
			ExpectError: regexp.MustCompile(`(?s)Unable to Read Host Facts.*host key`),
		}},
	})
}

// machineOS is the distribution of this machine, which the Debian twins are (their lowest
// layer is its root).
func machineOS(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		t.Fatal(err)
	}
	o, err := facts.ParseOSRelease(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return o.String()
}
