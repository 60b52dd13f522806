package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/terraform"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/drivers"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// TestSwitchQoSThirdOperatingSystem registers a driver the provider has never heard of and
// drives a whole lifecycle through the real CLI with os set to it: the provider needs no
// change for a new switch operating system, only a driver in the registry. The driver's own
// port naming is what validation applies, its import prefix is accepted, and the switch it
// keeps in memory holds the policy after apply and nothing after destroy.
func TestSwitchQoSThirdOperatingSystem(t *testing.T) {
	sw := &fakeSwitch{policies: map[string]string{}}
	defer drivers.Register(fakeDriver{sw: sw})()

	config := `
resource "roce_switch_qos" "leaf" {
  address = "fake-leaf-1"
  os      = "fakeos"
  ports   = %s
  ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc = { pause_threshold_bytes = 256000 }
}`
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		CheckDestroy: func(*terraform.State) error {
			if held := sw.held(); len(held) > 0 {
				return fmt.Errorf("destroy left the fake switch holding %v", held)
			}
			return nil
		},
		Steps: []resource.TestStep{
			{
				Config:      fmt.Sprintf(config, `["Ethernet0"]`),
				ExpectError: regexp.MustCompile(`(?s)ports\[0\] is "Ethernet0"; fakeos names its ports fp<N>`),
			},
			{
				Config: fmt.Sprintf(config, `["fp1", "fp2"]`),
				ConfigStateChecks: []statecheck.StateCheck{
					statecheck.ExpectKnownValue("roce_switch_qos.leaf", tfjsonpath.New("in_sync"), knownvalue.Bool(true)),
					statecheck.ExpectKnownValue("roce_switch_qos.leaf", tfjsonpath.New("planned_operations"),
						knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("store ROCE on fp1,fp2")})),
				},
				Check: func(*terraform.State) error {
					if held := sw.held(); len(held) != 1 || !strings.Contains(held["ROCE"], `"Ports":["fp1","fp2"]`) {
						return fmt.Errorf("the fake switch holds %v, want the policy ROCE on fp1 and fp2", held)
					}
					return nil
				},
			},
			{
				ResourceName:            "roce_switch_qos.leaf",
				ImportState:             true,
				ImportStateId:           "fakeos/fake-leaf-1/ROCE/fp1,fp2",
				ImportStateVerify:       true,
				ImportStateVerifyIgnore: []string{"pfc", "planned_operations", "restore_point", "timeouts"},
			},
		},
	})
}

// fakeDriver is a switch OS that keeps each policy as one JSON record on an in-memory switch.
type fakeDriver struct{ sw *fakeSwitch }

var fakePort = regexp.MustCompile(`^fp[0-9]+$`)

func (fakeDriver) About() switchcfg.About {
	return switchcfg.About{OS: "fakeos", Name: "FakeOS", Transport: switchcfg.TransportGNMI,
		Summary: "On FakeOS the policy is one record.", Reads: "fake read", Writes: "fake write", ReadCall: "read", WriteCall: "write",
		CounterReads: "fake counters", PortExample: "fp1"}
}

func (fakeDriver) CheckPort(name string) string {
	if fakePort.MatchString(name) {
		return ""
	}
	return "fakeos names its ports fp<N>."
}

func (fakeDriver) CheckRelease(string) string { return "fakeos takes no release." }

func (d fakeDriver) Open(switchcfg.Links, string) (switchcfg.Backend, error) { return d.sw, nil }

func (d fakeDriver) Counters(switchcfg.Links) (switchcfg.CounterReader, error) { return d.sw, nil }

func (fakeDriver) Remedy(switchcfg.Stage, error) string { return "Check the fake switch." }

// fakeSwitch is the in-memory switch: policy name → the policy as JSON.
type fakeSwitch struct {
	mu       sync.Mutex
	policies map[string]string
}

func (s *fakeSwitch) held() map[string]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string]string{}
	for k, v := range s.policies {
		out[k] = v
	}
	return out
}

func (s *fakeSwitch) Observe(context.Context) (switchcfg.Observation, error) {
	return fakeObservation{held: s.held()}, nil
}

func (s *fakeSwitch) Apply(_ context.Context, c switchcfg.Changes) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fc, ok := c.(fakeChanges)
	if !ok {
		return "", fmt.Errorf("changes of type %T were not planned by the fake driver", c)
	}
	if fc.remove {
		delete(s.policies, fc.name)
	} else {
		s.policies[fc.name] = fc.record
	}
	return "", nil
}

func (s *fakeSwitch) Sample(context.Context, int) ([]health.SwitchPort, error) { return nil, nil }

func (s *fakeSwitch) Window(context.Context) (time.Duration, string, error) { return 0, "", nil }

type fakeObservation struct{ held map[string]string }

func (fakeObservation) Describe() string { return "FakeOS 1" }

func (fakeObservation) Check(switchcfg.Policy, int) (fabric.Headroom, violation.List) {
	return fabric.Headroom{XonBytes: 1, XoffBytes: 2, SizeBytes: 3}, nil
}

func (fakeObservation) Headroom(switchcfg.Policy, int) fabric.Headroom {
	return fabric.Headroom{XonBytes: 1, XoffBytes: 2, SizeBytes: 3}
}

func (o fakeObservation) PlanUpdate(_ *switchcfg.Policy, p switchcfg.Policy, _ switchcfg.Snapshot) (switchcfg.Changes, error) {
	p.PFC = switchcfg.PFC{} // a design input no switch stores
	raw, err := json.Marshal(p)
	if err != nil {
		return nil, err
	}
	if o.held[p.Name] == string(raw) {
		return fakeChanges{}, nil
	}
	return fakeChanges{name: p.Name, record: string(raw),
		lines: []string{fmt.Sprintf("store %s on %s", p.Name, strings.Join(p.Ports, ","))}}, nil
}

func (fakeObservation) Snapshot(_ *switchcfg.Policy, _ switchcfg.Policy, snap switchcfg.Snapshot) switchcfg.Snapshot {
	if snap == nil {
		return switchcfg.Snapshot{}
	}
	return snap
}

func (fakeObservation) Removal(p switchcfg.Policy, _ switchcfg.Snapshot) (switchcfg.Changes, error) {
	return fakeChanges{name: p.Name, remove: true, lines: []string{"remove " + p.Name}}, nil
}

func (o fakeObservation) Decode(name string, _ []string, prior switchcfg.Policy) (switchcfg.Policy, error) {
	raw, ok := o.held[name]
	if !ok {
		return switchcfg.Policy{}, switchcfg.ErrNotFound
	}
	var p switchcfg.Policy
	if err := json.Unmarshal([]byte(raw), &p); err != nil {
		return switchcfg.Policy{}, err
	}
	p.PFC = prior.PFC
	return p, nil
}

func (fakeObservation) CheckLossless(switchcfg.Policy) []switchcfg.LosslessProblem { return nil }

type fakeChanges struct {
	name, record string
	remove       bool
	lines        []string
}

func (c fakeChanges) Lines() []string { return append([]string{}, c.lines...) }
func (c fakeChanges) Len() int        { return len(c.lines) }
func (c fakeChanges) Empty() bool     { return len(c.lines) == 0 }
