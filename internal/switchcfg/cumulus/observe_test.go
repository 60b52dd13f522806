package cumulus

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/switchcfgtest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

func startNVUETwin(t *testing.T, release string) (*nvuetwin.Twin, *Backend) {
	t.Helper()
	tw, ca, err := nvuetwin.StartWithCA(t.TempDir(), nvuetwin.Options{Release: release, Ports: 8, Username: "cumulus", Password: "Passw0rd!"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	c, err := nvue.Dial(nvue.Config{Address: tw.Addr(), Username: "cumulus", Password: "Passw0rd!", CAFile: ca, PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	return tw, New(c)
}

func cumulusPolicy() switchcfg.Policy {
	p := switchcfgtest.Policy()
	p.Ports = []string{"swp1", "swp2"}
	return p
}

func nvueObserve(t *testing.T, b *Backend) switchcfg.Observation {
	t.Helper()
	o, err := b.Observe(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestNVUEApplyConvergesDecodesAndRestores(t *testing.T) {
	for _, rel := range []string{"5.9", "5.12", "5.14"} {
		t.Run(rel, func(t *testing.T) {
			tw, b := startNVUETwin(t, rel)
			before := tw.Applied()
			p := cumulusPolicy()
			if fs := p.Validate(fabric.DefaultRatioWindow(), Driver{}); fs.HasErrors() {
				t.Fatal(fs)
			}
			o := nvueObserve(t, b)
			if got := o.Describe(); got != "Cumulus Linux "+rel {
				t.Errorf("Describe = %q", got)
			}
			if _, fs := o.Check(p, 0); fs.HasErrors() {
				t.Fatal(fs)
			}
			snap := o.Snapshot(nil, p, nil)
			c, err := o.PlanUpdate(nil, p, snap)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.Apply(context.Background(), c); err != nil {
				t.Fatalf("apply: %v\nlines:\n%s", err, strings.Join(c.Lines(), "\n"))
			}
			if tw.Applies() != 1 {
				t.Errorf("%d revisions applied, want 1", tw.Applies())
			}
			o = nvueObserve(t, b)
			again, _ := o.PlanUpdate(nil, p, snap)
			if !again.Empty() {
				t.Errorf("second plan not empty:\n%s", strings.Join(again.Lines(), "\n"))
			}
			got, err := o.Decode(p.Name, p.Ports, p)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, p) {
				t.Errorf("decode (-want +got):\n%s", cmp.Diff(p, got))
			}
			if problems := o.CheckLossless(p); problems != nil {
				t.Errorf("lossless: %+v", problems)
			}
			rm, _ := o.Removal(p, snap)
			if _, err := b.Apply(context.Background(), rm); err != nil {
				t.Fatal(err)
			}
			after := tw.Applied()
			wantJSON, _ := json.Marshal(before)
			gotJSON, _ := json.Marshal(after)
			if string(wantJSON) != string(gotJSON) {
				t.Errorf("removal left the switch different:\n%s", cmp.Diff(before, after))
			}
		})
	}
}

func TestNVUEDriftIsPlannedBack(t *testing.T) {
	tw, b := startNVUETwin(t, "5.12")
	p := cumulusPolicy()
	o := nvueObserve(t, b)
	c, _ := o.PlanUpdate(nil, p, o.Snapshot(nil, p, nil))
	if _, err := b.Apply(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	tw.SetApplied("qos/congestion-control/ROCE/traffic-class/3/min-threshold", 150000.0)
	tw.SetApplied("interface/swp2/qos/pfc", nil)
	o = nvueObserve(t, b)
	if lossless := o.CheckLossless(p); len(lossless) != 1 || lossless[0].Port != "swp2" || !lossless[0].Fatal {
		t.Errorf("lossless after unbinding swp2: %+v", lossless)
	}
	got, _ := o.Decode(p.Name, p.Ports, p)
	if got.ECN.MinBytes != 150000 {
		t.Errorf("decoded ECN min %d", got.ECN.MinBytes)
	}
	fix, _ := o.PlanUpdate(nil, p, nil)
	want := []string{
		"set qos/congestion-control/ROCE/traffic-class/3/min-threshold = 102400",
		"set interface/swp2/qos/pfc/profile = ROCE",
	}
	if diff := cmp.Diff(want, fix.Lines()); diff != "" {
		t.Errorf("drift repair (-want +got):\n%s", diff)
	}
}

func TestNVUECheckRefuses(t *testing.T) {
	tw, b := startNVUETwin(t, "5.12")
	if err := tw.RoCE("lossy"); err != nil {
		t.Fatal(err)
	}
	p := cumulusPolicy()
	p.Ports = []string{"swp1", "swp99"}
	_, fs := nvueObserve(t, b).Check(p, 0)
	text := switchcfgtest.ViolationText(fs)
	for _, want := range []string{`Policy.Ports[1] is "swp99"`, "RoCE mode lossy (nv show qos roce), in which NVUE takes no PFC profile"} {
		if !strings.Contains(text, want) {
			t.Errorf("findings lack %q:\n%s", want, text)
		}
	}
}

func TestNVUELinesShowNumbersInFull(t *testing.T) {
	_, b := startNVUETwin(t, "5.12")
	p := cumulusPolicy()
	p.ECN.MaxBytes = 2000000
	c, err := nvueObserve(t, b).PlanUpdate(nil, p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "set qos/congestion-control/ROCE/traffic-class/3/max-threshold = 2000000"; !slices.Contains(c.Lines(), want) {
		t.Errorf("lines lack %q:\n%s", want, strings.Join(c.Lines(), "\n"))
	}
}

// The applied configuration of a fresh switch lists no ports and has no link speeds (its
// speed is "auto" unless someone set one): a port exists, and runs at its speed, in the
// operational state, which the observation reads besides.
func TestNVUEPortsAndSpeedsFromTheOperationalState(t *testing.T) {
	tw, b := startNVUETwin(t, "5.14")
	if _, listed := nvue.Lookup(tw.Applied(), "interface", "swp1"); listed {
		t.Fatal("the twin's applied configuration lists swp1 before anything configured it")
	}
	o := nvueObserve(t, b)
	p := cumulusPolicy()
	h, fs := o.Check(p, 0)
	if fs.HasErrors() {
		t.Fatalf("check of ports the switch has: %v", fs)
	}
	if want := o.Headroom(p, 400); h != want || h.SizeBytes == 0 {
		t.Errorf("headroom %+v, want the 400G one %+v", h, want)
	}
	p.Ports = []string{"swp1", "swp99"}
	if _, fs := o.Check(p, 0); !fs.HasErrors() || !strings.Contains(switchcfgtest.Detail(fs.Errors()[0]), `"swp99"`) {
		t.Errorf("check of a port the switch lacks: %v", fs)
	}
}

// A port's congestion-control profile replaces default-global, whose ECN on traffic class 0
// the rest of the traffic would lose: the policy's profile keeps it.
func TestNVUEProfileKeepsTrafficClassZeroECN(t *testing.T) {
	_, b := startNVUETwin(t, "5.14")
	c, err := nvueObserve(t, b).PlanUpdate(nil, cumulusPolicy(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(c.Lines(), "\n")
	for _, want := range []string{
		"set qos/congestion-control/ROCE/traffic-class/0/ecn = enable",
		"set qos/congestion-control/ROCE/traffic-class/0/min-threshold = 150000",
		"set qos/congestion-control/ROCE/traffic-class/0/max-threshold = 1500000",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("plan lacks %q:\n%s", want, lines)
		}
	}
}

// TestNVUESnapshotAfterAnInterruptedCreate is the same on Cumulus: once the policy's profiles
// are on the switch, the shared settings may hold the policy's values, so the restore point
// is Cumulus' defaults, and the removal leaves the switch as it was.
func TestNVUESnapshotAfterAnInterruptedCreate(t *testing.T) {
	tw, b := startNVUETwin(t, "5.14")
	before := tw.Applied()
	p := cumulusPolicy()
	o := nvueObserve(t, b)
	c, err := o.PlanUpdate(nil, p, o.Snapshot(nil, p, nil))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Apply(context.Background(), c); err != nil {
		t.Fatal(err)
	}

	o = nvueObserve(t, b)
	snap := o.Snapshot(nil, p, nil)
	rm, _ := o.Removal(p, snap)
	if _, err := b.Apply(context.Background(), rm); err != nil {
		t.Fatal(err)
	}
	wantJSON, _ := json.Marshal(before)
	gotJSON, _ := json.Marshal(tw.Applied())
	if string(wantJSON) != string(gotJSON) {
		t.Errorf("removal with the restore point taken after the interrupted create left the switch different:\n%s", cmp.Diff(before, tw.Applied()))
	}
}
