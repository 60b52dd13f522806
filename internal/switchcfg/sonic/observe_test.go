package sonic

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/switchcfgtest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

func testPolicy() switchcfg.Policy { return switchcfgtest.Policy() }

// startTwin runs a plaintext switch twin on loopback and returns it with a backend on it.
func startTwin(t *testing.T, opts switchtwin.Options) (*switchtwin.Twin, *Backend) {
	t.Helper()
	opts.RecordRPCs = true
	tw, err := switchtwin.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := tw.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	client, err := gnmi.Dial(gnmi.Config{Address: addr, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = client.Close() })
	return tw, New(sonicdb.New(client), sonicmodel.Release{})
}

func observe(t *testing.T, b *Backend) sonicObservation {
	t.Helper()
	o, err := b.observe(context.Background())
	if err != nil {
		t.Fatalf("observe: %v", err)
	}
	return o
}

// plan returns the Set that makes the switch hold p with no prior policy, refusing what the
// switch's SONiC release would reject. An empty Changes means the switch already holds p.
func (o sonicObservation) plan(p switchcfg.Policy) (*sonicChanges, error) {
	return o.planUpdate(nil, p, nil)
}

func apply(t *testing.T, b *Backend, c switchcfg.Changes) {
	t.Helper()
	if warning, err := b.Apply(context.Background(), c); err != nil || warning != "" {
		t.Fatalf("apply: warning %q, err %v", warning, err)
	}
}

func TestApplyConvergesAndDecodes(t *testing.T) {
	for _, release := range []string{"202411", "202505", "202511"} {
		t.Run(release, func(t *testing.T) {
			tw, b := startTwin(t, switchtwin.Options{Release: release})
			p := testPolicy()
			c, err := observe(t, b).plan(p)
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			if c.Empty() {
				t.Fatal("plan on a stock switch is empty")
			}
			tw.ResetStats()
			apply(t, b, c)
			if got := tw.Stats().RPCs["Set"]; got != 1 {
				t.Errorf("apply sent %d SetRequests, want 1", got)
			}

			o := observe(t, b)
			again, err := o.plan(p)
			if err != nil || !again.Empty() {
				t.Fatalf("re-plan after apply: err %v, lines %v", err, again.Lines())
			}
			// ToS ECN bits, trust and the pause threshold live on hosts or nowhere on the switch.
			prior := switchcfg.Policy{PFC: p.PFC, Class: fabric.TrafficClass{ECNBits: p.Class.ECNBits, Trust: p.Class.Trust}}
			got, err := o.Decode(p.Name, p.Ports, prior)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(p, got); diff != "" {
				t.Errorf("decoded policy (-want +got):\n%s", diff)
			}
			wantWRED := stockWREDProfile
			if release == "202511" {
				wantWRED = "ROCE_LOSSLESS"
			}
			if q, _ := tw.Entry("QUEUE", "Ethernet0|3"); q["wred_profile"] != wantWRED || q["scheduler"] != "ROCE_RDMA" {
				t.Errorf("QUEUE|Ethernet0|3 = %v, want wred_profile %s and scheduler ROCE_RDMA", q, wantWRED)
			}
			if m, _ := tw.Entry("DSCP_TO_TC_MAP", "ROCE"); m["26"] != "3" || m["48"] != "6" {
				t.Errorf("DSCP_TO_TC_MAP|ROCE 26→%s 48→%s, want 3 and 6", m["26"], m["48"])
			}
		})
	}
}

func TestObserveIsOneGetWhateverThePortCount(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{Ports: 64})
	p := testPolicy()
	p.Ports = nil
	for i := range 64 {
		p.Ports = append(p.Ports, "Ethernet"+strconv.Itoa(i*4))
	}
	tw.ResetStats()
	c, err := observe(t, b).plan(p)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, c)
	observe(t, b)
	st := tw.Stats()
	if st.RPCs["Get"] != 2 || st.RPCs["Set"] != 1 {
		t.Errorf("64 ports: %d Gets and %d Sets for observe+apply+observe, want 2 and 1", st.RPCs["Get"], st.RPCs["Set"])
	}
}

func TestDriftIsPlannedBack(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{})
	p := testPolicy()
	c, _ := observe(t, b).plan(p)
	apply(t, b, c)

	wred, _ := tw.Entry("WRED_PROFILE", stockWREDProfile)
	wred["green_min_threshold"] = "150000"
	tw.SetEntry("WRED_PROFILE", stockWREDProfile, wred)
	qos, _ := tw.Entry("PORT_QOS_MAP", "Ethernet8")
	qos["dscp_to_tc_map"] = "AZURE"
	tw.SetEntry("PORT_QOS_MAP", "Ethernet8", qos)

	o := observe(t, b)
	got, err := o.Decode(p.Name, p.Ports, p)
	if err != nil {
		t.Fatal(err)
	}
	if got.ECN.MinBytes != 150000 {
		t.Errorf("decoded ECN min %d, want the drifted 150000", got.ECN.MinBytes)
	}
	fix, err := o.plan(p)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"replace CONFIG_DB/WRED_PROFILE/AZURE_LOSSLESS/green_min_threshold = 102400",
		"update CONFIG_DB/PORT_QOS_MAP/Ethernet8/dscp_to_tc_map = ROCE",
		// The twin's 32 ports have queues 3 and 4 on the stock profile; the policy owns two.
		"shared: CONFIG_DB/WRED_PROFILE/AZURE_LOSSLESS is also the ECN profile of 62 queues this resource does not list (QUEUE Ethernet0|4, Ethernet4|3, Ethernet4|4, Ethernet8|4, Ethernet12|3, Ethernet12|4 and 56 more)",
	}
	if diff := cmp.Diff(want, stripLocalhost(fix.Lines())); diff != "" {
		t.Errorf("drift repair (-want +got):\n%s", diff)
	}
}

func TestRemovalRestoresTheSwitch(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{Release: "202511"})
	before := tw.Snapshot()
	p := testPolicy()
	o := observe(t, b)
	snap := o.Snapshot(nil, p, nil)
	c, _ := o.plan(p)
	apply(t, b, c)

	rm, err := observe(t, b).removal(p, snap)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, rm)
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("switch after removal differs from before (-before +after):\n%s", diff)
	}
}

func TestUpdateRestoresWhatThePolicyNoLongerSets(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{})
	before := tw.Snapshot()
	p := testPolicy()
	o := observe(t, b)
	snap := o.Snapshot(nil, p, nil)
	c, _ := o.plan(p)
	apply(t, b, c)

	next := p
	next.Class.CNPPriority, next.Watchdog = 5, nil
	o = observe(t, b)
	snap = o.Snapshot(&p, next, snap)
	c, err := o.planUpdate(&p, next, snap)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, c)
	after := tw.Snapshot()
	if diff := cmp.Diff(before["QUEUE"]["Ethernet0|6"], after["QUEUE"]["Ethernet0|6"]); diff != "" {
		t.Errorf("QUEUE|Ethernet0|6 not restored when CNP moved to priority 5 (-before +after):\n%s", diff)
	}
	if _, ok := after["PFC_WD"]["Ethernet0"]; ok {
		t.Errorf("PFC_WD|Ethernet0 survived dropping the watchdog: %v", after["PFC_WD"]["Ethernet0"])
	}
	if q := after["QUEUE"]["Ethernet0|5"]; q["scheduler"] != "ROCE_CNP" {
		t.Errorf("QUEUE|Ethernet0|5 = %v, want scheduler ROCE_CNP", q)
	}

	rm, err := observe(t, b).removal(next, snap)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, rm)
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("switch after update and removal differs from before (-before +after):\n%s", diff)
	}
}

func TestRemovalAfterImportRestoresStockMaps(t *testing.T) {
	tw, b := startTwin(t, switchtwin.Options{})
	p := testPolicy()
	p.Watchdog = nil
	c, _ := observe(t, b).plan(p)
	apply(t, b, c)

	rm, err := observe(t, b).removal(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	apply(t, b, rm)
	if q, _ := tw.Entry("PORT_QOS_MAP", "Ethernet0"); q["dscp_to_tc_map"] != "AZURE" || q["pfc_enable"] != "3,4" {
		t.Errorf("PORT_QOS_MAP|Ethernet0 after removal = %v, want the stock AZURE map and pfc_enable 3,4", q)
	}
	if _, ok := tw.Snapshot()["DSCP_TO_TC_MAP"]["ROCE"]; ok {
		t.Error("DSCP_TO_TC_MAP|ROCE survived the removal")
	}
}

func TestPlanRefusesWhatTheReleaseRejects(t *testing.T) {
	// GCU rejects WRED edits on chips it does not know; the provider must say so at plan time.
	_, b := startTwin(t, switchtwin.Options{HWSKU: "Unknown-SKU-X"})
	_, err := observe(t, b).plan(testPolicy())
	if err == nil || !strings.Contains(err.Error(), "would reject") || !strings.Contains(err.Error(), "WRED_PROFILE") {
		t.Fatalf("plan on an unknown SKU: %v, want a refusal naming WRED_PROFILE", err)
	}
}

func TestFactsHeadroomAndCapacity(t *testing.T) {
	_, b := startTwin(t, switchtwin.Options{Ports: 128})
	o := observe(t, b)
	p := testPolicy()
	h, fs := o.Facts.Headroom(p, 0)
	if fs.HasErrors() {
		t.Fatalf("2 ports: %v", fs)
	}
	if h.XonBytes != 19456 || h.XoffBytes < 230400 || h.XoffBytes > 232448 {
		t.Errorf("headroom of a 400G 5 m port = %+v", h)
	}
	p.Ports = nil
	for i := range 128 {
		p.Ports = append(p.Ports, "Ethernet"+strconv.Itoa(i*4))
	}
	p.PFC.PauseThresholdBytes = 400000
	_, fs = o.Facts.Headroom(p, 0)
	if !fs.HasErrors() || !strings.Contains(switchcfgtest.Detail(fs.Errors()[0]), "67737959") {
		t.Errorf("128 ports × (headroom + 400000 B) should overflow the ingress pool: %v", fs)
	}
	if _, fs := o.Facts.Headroom(testPolicy(), 300); len(fs) != 1 || fs[0].At != switchcfg.FieldSpeedOverride {
		t.Errorf("an unsupported speed override: %v, want one error at port_speed_gbps", fs)
	}
	if bad := o.Facts.CheckPorts([]string{"Ethernet0", "Ethernet999"}); len(bad) != 1 || bad[0].At != switchcfg.FieldPorts.Elem(1) {
		t.Errorf("CheckPorts = %v, want one error at ports[1]", bad)
	}
}

func stripLocalhost(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Replace(l, "CONFIG_DB/localhost/", "CONFIG_DB/", 1)
	}
	return out
}
