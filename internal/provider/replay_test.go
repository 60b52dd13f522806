package provider

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/plancheck"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/hostreplay"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
)

// The fast tier's host tests: the provider in process, driven by the real Terraform CLI,
// its hosts replayed from recordings of host twins (testdata/replay, one file per case)
// instead of reached over SSH. Each case runs in parallel with the others. A replay
// asserts what the provider sent: every call must be in the recording, in order, and
// every recorded call must be asked for. The integration tier records each case again on
// a fleet of its own and fails when what the provider sends no longer matches the file;
// -record-hosts writes the files instead (as root, with make tools done).

var recordHosts = flag.Bool("record-hosts", false, "record the replay cases from host twins into testdata/replay")

// replayCase is one Terraform run over hosts named by their twin names.
type replayCase struct {
	name string
	// hosts are the twins the case reads, by name and profile.
	hosts []hosttwin.HostSpec
	// steps builds the case's steps, given the provider block and each host's address.
	steps func(provider string, addr func(name string) string) []resource.TestStep
}

var replayCases = []replayCase{
	{
		name:  "nic_dcqcn",
		hosts: []hosttwin.HostSpec{{Name: "dcqcn", Profile: "cx7"}},
		steps: func(provider string, addr func(string) string) []resource.TestStep {
			config := func(ai int) string {
				return provider + fmt.Sprintf(`
resource "roce_nic_dcqcn" "gpu" {
  host  = %q
  dcqcn = { ai_rate_mbps = %d, hai_rate_mbps = 100 }
  cnp   = { dscp = 46, priority = 5 }
}
`, addr("dcqcn"), ai)
			}
			const res = "roce_nic_dcqcn.gpu"
			return []resource.TestStep{
				{
					Config: config(10),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(res, plancheck.ResourceActionCreate),
						plancheck.ExpectKnownValue(res, tfjsonpath.New("planned_changes"), knownvalue.NotNull()),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(res, tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
						statecheck.ExpectKnownValue(res, tfjsonpath.New("reboot_required"), knownvalue.Bool(false)),
					},
				},
				{
					Config:           config(10),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}},
				},
				{
					Config: config(20),
					ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{
						plancheck.ExpectResourceAction(res, plancheck.ResourceActionUpdate),
					}},
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue(res, tfjsonpath.New("dcqcn").AtMapKey("ai_rate_mbps"), knownvalue.Int64Exact(20)),
					},
				},
			}
		},
	},
	{
		name:  "host_facts",
		hosts: []hosttwin.HostSpec{{Name: "cx7", Profile: "cx7"}, {Name: "rocky", Profile: "rocky9"}},
		steps: func(provider string, addr func(string) string) []resource.TestStep {
			var checks []statecheck.StateCheck
			for _, h := range []struct{ name, profile, family string }{{"cx7", "cx7", "debian"}, {"rocky", "rocky9", "rhel"}} {
				p, _ := hostprofile.Lookup(h.profile)
				ds := "data.roce_host_facts." + h.name
				checks = append(checks,
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("os_family"), knownvalue.StringExact(h.family)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("ofed_version"), knownvalue.StringExact(p.OFEDVersion)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("nics"), knownvalue.ListSizeExact(p.Ports)),
					statecheck.ExpectKnownValue(ds, tfjsonpath.New("gpus"), knownvalue.ListSizeExact(p.GPUs)),
				)
			}
			// The GID tables are kept only with detail: cx7 asks for them (a v1/v2 pair for the
			// link-local address, then the IPv4 one), rocky does not.
			gids := tfjsonpath.New("nics").AtSliceIndex(0).AtMapKey("gids")
			checks = append(checks,
				statecheck.ExpectKnownValue("data.roce_host_facts.cx7", gids, knownvalue.ListSizeExact(4)),
				statecheck.ExpectKnownValue("data.roce_host_facts.cx7", gids.AtSliceIndex(3), knownvalue.ObjectPartial(map[string]knownvalue.Check{
					"index": knownvalue.Int64Exact(3), "type": knownvalue.StringExact("RoCE v2"),
				})),
				statecheck.ExpectKnownValue("data.roce_host_facts.rocky", gids, knownvalue.Null()),
				statecheck.ExpectKnownValue("data.roce_host_facts.rocky", tfjsonpath.New("nics").AtSliceIndex(0).AtMapKey("roce_v2_ipv4_gid_index"), knownvalue.Int64Exact(3)),
			)
			return []resource.TestStep{{
				Config:            provider + fmt.Sprintf("data \"roce_host_facts\" \"cx7\" {\n  host   = %q\n  detail = true\n}\ndata \"roce_host_facts\" \"rocky\" {\n  host = %q\n}\n", addr("cx7"), addr("rocky")),
				ConfigStateChecks: checks,
			}}
		},
	},
	{
		name:  "nccl_env_profile",
		hosts: []hosttwin.HostSpec{{Name: "nccl", Profile: "cx7"}},
		steps: func(provider string, addr func(string) string) []resource.TestStep {
			config := provider + fmt.Sprintf(`
resource "roce_nccl_env_profile" "rail" {
  host = %q
  hcas = ["mlx5_0", "mlx5_1"]
}
`, addr("nccl"))
			return []resource.TestStep{
				{
					Config: config,
					ConfigStateChecks: []statecheck.StateCheck{
						statecheck.ExpectKnownValue("roce_nccl_env_profile.rail", tfjsonpath.New("path"), knownvalue.StringExact(defaultNCCLConfPath)),
					},
				},
				{Config: config, ConfigPlanChecks: resource.ConfigPlanChecks{PreApply: []plancheck.PlanCheck{plancheck.ExpectEmptyPlan()}}},
			}
		},
	},
}

// replayFile is where a case's recording lives.
func replayFile(name string) string { return filepath.Join("testdata", "replay", name+".json.gz") }

// replayAddress is the address a replayed host goes by.
func replayAddress(name string) string { return name + ".replay:22" }

// factoriesDialing returns provider factories whose hosts are reached through dial.
func factoriesDialing(dial func(address string) (host.Runner, error)) map[string]func() (tfprotov6.ProviderServer, error) {
	return map[string]func() (tfprotov6.ProviderServer, error){
		"roce": providerserver.NewProtocol6WithError(&roceProvider{version: "test", getenv: os.Getenv, dialHost: dial}),
	}
}

// TestReplay runs every case on its recorded hosts.
func TestReplay(t *testing.T) {
	for _, c := range replayCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			rec, err := hostreplay.Load(replayFile(c.name))
			if err != nil {
				t.Fatalf("%v: record the case with `go test ./internal/provider -run TestReplayRecordings -record-hosts` (as root)", err)
			}
			players := map[string]*hostreplay.Player{}
			for _, h := range c.hosts {
				players[replayAddress(h.Name)] = hostreplay.Play(replayAddress(h.Name), rec[h.Name])
			}
			dial := func(address string) (host.Runner, error) {
				if p, ok := players[address]; ok {
					return p, nil
				}
				return nil, fmt.Errorf("no recorded host %s", address)
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factoriesDialing(dial),
				Steps:                    c.steps(replayProvider, replayAddress),
			})
			for _, h := range c.hosts {
				if unused := players[replayAddress(h.Name)].Unused(); len(unused) > 0 {
					t.Errorf("%s: the provider did less than when recorded: %d recorded calls not asked for, the first %+v", h.Name, len(unused), describeCall(unused[0]))
				}
			}
		})
	}
}

// replayProvider is the provider block of the cases, recorded and replayed: dialHost
// reaches the hosts, so the password only satisfies the provider's settings check.
const replayProvider = "provider \"roce\" {\n  ssh = { user = \"root\", password = \"not-dialled\" }\n}\n"

func describeCall(c hostreplay.Call) string {
	s := string(c.Op) + " " + c.Command + c.Path
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// TestReplayRecordings records every case on twins of its own and requires the committed
// recording to hold the same calls; with -record-hosts it writes the recordings.
func TestReplayRecordings(t *testing.T) {
	hosttwintest.SkipShort(t)
	for _, c := range replayCases {
		t.Run(c.name, func(t *testing.T) {
			fleet := hosttwintest.Start(t, hosttwin.Options{Hosts: c.hosts})
			pool, err := ssh.NewPool(ssh.Config{User: "root", PrivateKeyFile: fleet.UserKeyFile(), KnownHostsFile: fleet.KnownHostsFile()})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = pool.Close() })
			var mu sync.Mutex
			recorders := map[string]*hostreplay.Recorder{}
			names := map[string]string{}
			for _, h := range c.hosts {
				names[twinAddress(t, fleet, h.Name)] = h.Name
			}
			dial := func(address string) (host.Runner, error) {
				mu.Lock()
				defer mu.Unlock()
				name, ok := names[address]
				if !ok {
					return nil, fmt.Errorf("no twin %s", address)
				}
				if recorders[name] == nil {
					recorders[name] = hostreplay.Record(host.SSH(pool.Client(address)))
				}
				return recorders[name], nil
			}
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: factoriesDialing(dial),
				Steps:                    c.steps(replayProvider, func(name string) string { return twinAddress(t, fleet, name) }),
			})
			if t.Failed() {
				return
			}
			got := hostreplay.Recording{}
			for name, r := range recorders {
				got[name] = r.Calls()
			}
			if *recordHosts {
				if err := os.MkdirAll(filepath.Dir(replayFile(c.name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := got.Save(replayFile(c.name)); err != nil {
					t.Fatal(err)
				}
				return
			}
			committed, err := hostreplay.Load(replayFile(c.name))
			if err != nil {
				t.Fatalf("%v: run with -record-hosts", err)
			}
			for _, h := range c.hosts {
				if d := firstDifference(committed[h.Name], got[h.Name]); d != "" {
					t.Errorf("%s: %s is stale: %s. Run `go test ./internal/provider -run TestReplayRecordings -record-hosts` and commit it.", h.Name, replayFile(c.name), d)
				}
			}
		})
	}
}

// firstDifference compares what two recordings sent (not what the hosts answered, which a
// twin may word differently from run to run) and describes the first difference.
func firstDifference(want, got []hostreplay.Call) string {
	sent := func(c hostreplay.Call) string {
		return strings.Join([]string{string(c.Op), c.Command, c.Path, fmt.Sprint(c.Sudo), c.Stdin, c.Data}, "\x00")
	}
	for i := range min(len(want), len(got)) {
		if sent(want[i]) != sent(got[i]) {
			return fmt.Sprintf("call %d was %s, is now %s", i+1, describeCall(want[i]), describeCall(got[i]))
		}
	}
	if len(want) != len(got) {
		return fmt.Sprintf("%d calls recorded, %d now", len(want), len(got))
	}
	return ""
}
