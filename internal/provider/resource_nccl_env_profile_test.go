package provider

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"
)

const ncclRailConf = "NCCL_IB_HCA==mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7\nNCCL_SOCKET_IFNAME==ens1f0np0\nNCCL_IB_TC=106\nNCCL_IB_QPS_PER_CONNECTION=4\nNCCL_CROSS_NIC=0\n"

func TestNCCLEnvProfileLifecycle(t *testing.T) {
	f, provider := hostTwins(t)
	const addr = "roce_nccl_env_profile.gpu"
	config := provider + fmt.Sprintf(`
resource "roce_nccl_env_profile" "gpu" {
  host                = %q
  hcas                = [for i in range(8) : "mlx5_${i}"]
  socket_ifname       = "=ens1f0np0"
  qps_per_connection  = 4
  cross_nic           = 0
  profile_script_path = "/etc/profile.d/nccl.sh"
}
`, twinAddress(t, f, "nccl"))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if out := onTwin(t, f, "nccl", "ls /etc/nccl.conf /etc/profile.d/nccl.sh 2>&1 || true"); !regexp.MustCompile(`No such file.*\n.*No such file`).MatchString(out) {
				return fmt.Errorf("destroy left files: %s", out)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("rendered"), knownvalue.StringExact(ncclRailConf)),
				}},
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("ib_tc"), knownvalue.Int64Exact(106)),
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
				},
				Check: func(*terraform.State) error {
					if got := onTwin(t, f, "nccl", "cat /etc/nccl.conf"); got != ncclRailConf {
						return fmt.Errorf("/etc/nccl.conf on the host:\n%s", got)
					}
					if got := onTwin(t, f, "nccl", "stat -c '%a %U' /etc/nccl.conf; . /etc/profile.d/nccl.sh; echo $NCCL_IB_HCA $NCCL_IB_TC"); got != "644 root\n=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7 106\n" {
						return fmt.Errorf("mode/owner or the profile.d script: %q", got)
					}
					return nil
				},
			},
			{
				// A local edit shows as drift and is reverted.
				PreConfig: func() { onTwin(t, f, "nccl", "echo NCCL_IB_TC=0 >> /etc/nccl.conf") },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if got := onTwin(t, f, "nccl", "cat /etc/nccl.conf"); got != ncclRailConf {
						return fmt.Errorf("drift not reverted:\n%s", got)
					}
					return nil
				},
			},
			{
				// So does a mode someone changed: drift is what writing the files would change.
				PreConfig: func() { onTwin(t, f, "nccl", "chmod 600 /etc/profile.d/nccl.sh") },
				Config:    config,
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectResourceAction(addr, plancheck.ResourceActionUpdate),
				}},
				Check: func(*terraform.State) error {
					if got := onTwin(t, f, "nccl", "stat -c '%a' /etc/profile.d/nccl.sh"); got != "644\n" {
						return fmt.Errorf("mode drift not reverted: %q", got)
					}
					return nil
				},
			},
			{
				// Every attribute is read back from the files: the variables from
				// /etc/nccl.conf, the script's path from the import ID (the file does not
				// name it).
				ResourceName: addr,
				ImportState:  true,
				ImportStateIdFunc: func(s *terraform.State) (string, error) {
					return s.RootModule().Resources[addr].Primary.ID + "|/etc/profile.d/nccl.sh", nil
				},
				ImportStateVerify: true,
			},
		},
	})
}

func TestNCCLEnvProfileDetectsGIDIndex(t *testing.T) {
	f, provider := hostTwins(t)
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: provider + fmt.Sprintf(`
resource "roce_nccl_env_profile" "gpu" {
  host      = %q
  gid_index = "detect"
}
`, twinAddress(t, f, "ncclgid")),
			ConfigStateChecks: []statecheck.StateCheck{
				statecheck.ExpectKnownValue("roce_nccl_env_profile.gpu", tfjsonpath.New("rendered"),
					knownvalue.StringExact("NCCL_IB_TC=106\nNCCL_IB_GID_INDEX=5\n")),
			},
		}},
	})
}

func TestNCCLEnvProfilePlanTimeErrors(t *testing.T) {
	f, provider := hostTwins(t)
	hostAddr := twinAddress(t, f, "nccl")
	cases := map[string]struct{ body, want string }{
		"qps out of range":        {`qps_per_connection = 0`, `(?s)NCCL_IB_QPS_PER_CONNECTION=0`},
		"typed variable in extra": {`extra = { NCCL_IB_TC = "0" }`, `(?s)has its own attribute\s+rdma_dscp`},
		"hca with prefix syntax":  {`hcas = ["^mlx5_0"]`, `(?s)hcas\[0\] is "\^mlx5_0"`},
		"gid index word":          {`gid_index = "third"`, `(?s)gid_index is "third"`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					Config:      provider + fmt.Sprintf("resource \"roce_nccl_env_profile\" \"gpu\" {\n  host = %q\n  %s\n}\n", hostAddr, c.body),
					ExpectError: regexp.MustCompile(c.want),
				}},
			})
		})
	}
}

// parseNCCLConf reads a file the way NCCL does (src/misc/param.cc): each line is split at
// the first '=', nothing is trimmed or unquoted, lines without '=' are ignored, and '#' lines
// are comments only from NCCL 2.26 on (before that they define a variable named "#...").
func parseNCCLConf(content string, skipComments bool) map[string]string {
	vars := map[string]string{}
	for _, line := range strings.Split(content, "\n") {
		if skipComments && strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if _, set := vars[name]; !set { // setenv(name, value, 0): the first definition wins
			vars[name] = value
		}
	}
	return vars
}

// TestNCCLConfParsesAsIntended writes a profile with the provider, reads the host's file back
// with NCCL's parsing rules, and requires exactly the intended variables, for an NCCL that
// reads comments as variables (no header then) and for one that skips them.
func TestNCCLConfParsesAsIntended(t *testing.T) {
	f, provider := hostTwins(t)
	want := map[string]string{
		"NCCL_IB_HCA": "=mlx5_0,mlx5_1", "NCCL_SOCKET_IFNAME": "=ens1f0np0", "NCCL_IB_TC": "106",
		"NCCL_IB_GID_INDEX": "5", "NCCL_NET_GDR_LEVEL": "PXB", "NCCL_DEBUG": "WARN", "NCCL_IB_TIMEOUT": "22",
	}
	for _, version := range []string{"2.23.4", "2.26.2"} {
		t.Run(version, func(t *testing.T) {
			cliTest(t, resource.TestCase{
				ProtoV6ProviderFactories: testProviderFactories,
				Steps: []resource.TestStep{{
					Config: provider + fmt.Sprintf(`
resource "roce_nccl_env_profile" "gpu" {
  host          = %q
  path          = "/etc/nccl-parse.conf"
  hcas          = ["mlx5_0", "mlx5_1"]
  socket_ifname = "=ens1f0np0"
  gid_index     = "detect"
  gdr_level     = "PXB"
  debug         = "WARN"
  nccl_version  = %q
  extra         = { NCCL_IB_TIMEOUT = "22" }
}
`, twinAddress(t, f, "ncclgid"), version),
					Check: func(*terraform.State) error {
						content := onTwin(t, f, "ncclgid", "cat /etc/nccl-parse.conf")
						got := parseNCCLConf(content, version >= "2.26")
						if diff := cmp.Diff(want, got); diff != "" {
							return fmt.Errorf("variables NCCL %s reads (-want +got):\n%s\nfile:\n%s", version, diff, content)
						}
						return nil
					},
				}},
			})
		})
	}
}

// TestNCCLEnvProfileAutoGIDOldNCCL: on a host whose installed NCCL is 2.19.3 (no GID
// auto-selection before 2.21) with its RoCE v2 IPv4 GID at index 5, gid_index = "auto"
// writes NCCL_IB_GID_INDEX=5 and the plan's notes say why; with nccl_version = "2.23.4" (the
// jobs' own NCCL) the file leaves the index to NCCL; a variable 2.19 does not read is refused
// at plan naming the host's version.
func TestNCCLEnvProfileAutoGIDOldNCCL(t *testing.T) {
	f, provider := hostTwins(t)
	const addr = "roce_nccl_env_profile.old"
	hostAddr := twinAddress(t, f, "nccl219")
	config := func(extra string) string {
		return provider + fmt.Sprintf(`
resource "roce_nccl_env_profile" "old" {
  host = %q
  %s
}
`, hostAddr, extra)
	}
	const oldConf = "NCCL_IB_TC=106\nNCCL_IB_GID_INDEX=5\n"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{
				Config:      config(`extra = { NCCL_IB_ECE_ENABLE = "0" }`),
				ExpectError: regexp.MustCompile(`NCCL 2\.19\.3 does not read\s+NCCL_IB_ECE_ENABLE, which exists from NCCL 2\.23 on[\s\S]*host's\s+package\s+libnccl2\s+2\.19\.3-1\+cuda12\.2`),
			},
			{
				Config: config(""),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("rendered"), knownvalue.StringExact(oldConf)),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("notes"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringRegexp(regexp.MustCompile(`^gid_index = "auto": NCCL 2\.19\.3 \(the host's package libnccl2 2\.19\.3-1\+cuda12\.2\) has no GID auto-selection before 2\.21 .*NCCL_IB_GID_INDEX=5 is written`)),
					})),
				}},
				Check: func(*terraform.State) error {
					if got := onTwin(t, f, "nccl219", "cat /etc/nccl.conf"); got != oldConf {
						return fmt.Errorf("/etc/nccl.conf on the host:\n%s", got)
					}
					return nil
				},
			},
			{Config: config(""), PlanOnly: true},
			{
				// The index in the file is what "auto" writes on this host, so it reads
				// back as gid_index = "auto".
				ResourceName:      addr,
				ImportState:       true,
				ImportStateVerify: true,
			},
			{
				Config: config(`nccl_version = "2.23.4"`),
				ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("rendered"), knownvalue.StringExact("NCCL_IB_TC=106\n")),
					plancheck.ExpectKnownValue(addr, tfjsonpath.New("notes"), knownvalue.ListExact([]knownvalue.Check{
						knownvalue.StringRegexp(regexp.MustCompile(`NCCL 2\.23\.4 \(nccl_version\) selects the RoCE v2 GID per HCA itself`)),
					})),
				}},
			},
		},
	})
}

// TestNCCLEnvProfileImportHandWritten: importing a file rewritten by hand reads back what the
// attributes can hold, warns about the lines they cannot (an HCA list in prefix form) and
// reports the file out of sync.
func TestNCCLEnvProfileImportHandWritten(t *testing.T) {
	f, provider := hostTwins(t)
	hostAddr := twinAddress(t, f, "nccl")
	const confPath = "/etc/nccl-hand.conf"
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{{
			Config: provider + fmt.Sprintf("resource \"roce_nccl_env_profile\" \"hand\" {\n  host = %q\n  path = %q\n}\n", hostAddr, confPath),
		}, {
			PreConfig: func() {
				onTwin(t, f, "nccl", "printf 'NCCL_IB_HCA=mlx5_0\\nNCCL_IB_TC=98\\nNCCL_IB_GID_INDEX=3\\nNCCL_DEBUG=INFO\\nNCCL_IB_TIMEOUT=22\\nNCCL_DEBUG=TRACE\\n' >"+confPath)
			},
			ResourceName:  "roce_nccl_env_profile.hand",
			ImportState:   true,
			ImportStateId: hostAddr + "|" + confPath,
			ImportStateCheck: func(states []*terraform.InstanceState) error {
				if len(states) != 1 {
					return fmt.Errorf("%d instances imported", len(states))
				}
				got := states[0].Attributes
				want := map[string]string{
					"rdma_dscp": "24", "ib_tc": "98", "gid_index": "3", "debug": "INFO", "extra.NCCL_IB_TIMEOUT": "22",
					"in_sync": "false", "hcas.#": "", "id": hostAddr + "|" + confPath,
				}
				for k, v := range want {
					if got[k] != v {
						return fmt.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
					}
				}
				return nil
			},
		}},
	})
}

// TestNCCLEnvProfileKeepsTheFileBefore writes the profile over a hand-made /etc/nccl.conf
// with its own mode and owner: the apply keeps it beside the profile, a second apply keeps
// that copy as it is, and destroy puts the hand-made file back exactly.
func TestNCCLEnvProfileKeepsTheFileBefore(t *testing.T) {
	f, provider := hostTwins(t)
	const before = "NCCL_DEBUG=WARN\n"
	stat := "stat -c '%a %U:%G' /etc/nccl.conf; cat /etc/nccl.conf"
	onTwin(t, f, "nccl", "printf '"+before+"' > /etc/nccl.conf && chown nobody:nogroup /etc/nccl.conf && chmod 0640 /etc/nccl.conf")
	want := onTwin(t, f, "nccl", stat)
	config := provider + fmt.Sprintf("resource \"roce_nccl_env_profile\" \"gpu\" {\n  host = %q\n  cross_nic = 0\n}\n", twinAddress(t, f, "nccl"))
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if got := onTwin(t, f, "nccl", stat+"; ls /etc/nccl.conf.roce-orig 2>&1 || true"); !strings.HasPrefix(got, want) || !strings.Contains(got, "No such file") {
				return fmt.Errorf("after destroy: got\n%s\nwant the file from before,\n%s, back in place and no kept copy", got, want)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config: config,
				Check: func(*terraform.State) error {
					kept := onTwin(t, f, "nccl", "stat -c '%a %U:%G' /etc/nccl.conf.roce-orig; cat /etc/nccl.conf.roce-orig; cat /etc/nccl.conf")
					if !strings.HasPrefix(kept, want) || !strings.Contains(kept, "NCCL_CROSS_NIC=0") {
						return fmt.Errorf("after apply: want the file from before kept as it was and the profile written:\n%s", kept)
					}
					return nil
				},
			},
			{Config: config, PlanOnly: true},
		},
	})
}
