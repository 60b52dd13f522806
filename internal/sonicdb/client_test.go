package sonicdb

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// client is the SONiC database client over a fresh gNMI client of cfg.
func client(t *testing.T, cfg gnmi.Config) *Client { return New(gnmitest.Client(t, cfg)) }

func TestSetNotSentIsNotApplied(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	addr := tw.Addr()
	tw.Stop()
	cfg := gnmitest.Fast(addr)
	cfg.Retries, cfg.DialTimeout = 1, 100*time.Millisecond
	_, err := client(t, cfg).Set(gnmitest.Ctx(t), (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9000"))
	var se *SetError
	if !errors.As(err, &se) || !se.NotSent || se.Code != codes.Unavailable || se.Applied == nil || *se.Applied {
		t.Fatalf("err = %v, want a SetError not sent, Unavailable, applied false", err)
	}
	var ge *gnmi.SetError
	if !errors.As(err, &ge) || status.Code(err) != codes.Unavailable {
		t.Errorf("err = %v: the transport's SetError and gRPC code are not reachable", err)
	}
	if !strings.HasSuffix(err.Error(), "; nothing was sent") {
		t.Errorf("err = %q", err)
	}
}

func TestSetAndGet(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{Release: "202511"})
	c := client(t, gnmitest.Fast(tw.Addr()))
	ctx := gnmitest.Ctx(t)

	b := &Batch{}
	b.Update(ConfigDBPath("SCHEDULER", "scheduler.1", ""), map[string]string{"type": "STRICT"})
	b.UpdateField(ConfigDBPath("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), "3")
	b.Delete(ConfigDBPath("WRED_PROFILE", "NOT_THERE", ""))
	res, err := c.Set(ctx, b)
	if err != nil {
		t.Fatalf("Set: %v", err)
	}
	if res.Attempts != 1 || len(res.Response.GetResponse()) != 3 {
		t.Errorf("result = %+v", res)
	}

	// Update replaced the whole entry: weight vanished.
	got, err := c.GetEntry(ctx, "SCHEDULER", "scheduler.1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sonic.Entry{"type": "STRICT"}, got); diff != "" {
		t.Errorf("SCHEDULER|scheduler.1 (-want +got):\n%s", diff)
	}
	// The field update left the other fields alone.
	qos, err := c.GetEntry(ctx, "PORT_QOS_MAP", "Ethernet0")
	if err != nil {
		t.Fatal(err)
	}
	if qos["pfc_enable"] != "3" || qos["pfcwd_sw_enable"] != "3,4" || qos["dscp_to_tc_map"] != "AZURE" {
		t.Errorf("PORT_QOS_MAP|Ethernet0 = %v", qos)
	}

	values, err := c.Get(ctx, ConfigDBPath("PORT", "Ethernet0", "mtu"), ConfigDBPath("NO_TABLE", "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string]string{"sonic-db:CONFIG_DB/localhost/PORT/Ethernet0/mtu": `"9100"`}, rawStrings(values)); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}

	db, err := c.GetTables(ctx, "SCHEDULER", "NO_TABLE")
	if err != nil {
		t.Fatal(err)
	}
	if len(db) != 1 || len(db["SCHEDULER"]) != 2 {
		t.Errorf("GetTables = %v", db)
	}
}

func rawStrings[V ~[]byte](m map[string]V) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = string(v)
	}
	return out
}

func TestBuildVersion(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{Release: "202505", BuildVersion: "SONiC.202505.77-abc"})
	c := client(t, gnmitest.Fast(tw.Addr()))
	v, err := c.BuildVersion(gnmitest.Ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	rel, err := sonic.ParseRelease(v)
	if err != nil || rel.String() != "202505" {
		t.Errorf("BuildVersion = %q → %v, %v", v, rel, err)
	}
}

func TestSetValidationErrorIsNotApplied(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{Release: "202511"})
	c := client(t, gnmitest.Fast(tw.Addr()))
	before := tw.Snapshot()
	b := &Batch{}
	b.Update(ConfigDBPath("SCHEDULER", "roce", ""), map[string]string{"type": "DWRR", "weight": "50"})
	b.Update(ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{"green_min_threshold": "300", "green_max_threshold": "200"})
	_, err := c.Set(gnmitest.Ctx(t), b)

	var se *SetError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SetError", err)
	}
	if se.Code != codes.Unknown || se.Applied == nil || *se.Applied || se.NotSent {
		t.Errorf("SetError = %+v, want Unknown, applied false", se)
	}
	wantMismatch := []string{"CONFIG_DB/SCHEDULER/roce", "CONFIG_DB/WRED_PROFILE/ROCE"}
	if diff := cmp.Diff(wantMismatch, se.Mismatches); diff != "" {
		t.Errorf("mismatches (-want +got):\n%s", diff)
	}
	for _, f := range []string{"gnmi set " + tw.Addr(), "WRED_PROFILE|ROCE", "not on the switch"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("err %q lacks %q", err, f)
		}
	}
	if diff := cmp.Diff(before, tw.Snapshot()); diff != "" {
		t.Errorf("CONFIG_DB changed (-before +after):\n%s", diff)
	}
	if n := tw.Stats().RPCs["Set"]; n != 1 {
		t.Errorf("Set sent %d times, want 1", n)
	}
}

func TestSetGCURejection(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{Release: "202411"})
	c := client(t, gnmitest.Fast(tw.Addr()))
	b := (&Batch{}).Update(ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{"ecn": "ecn_all"})
	_, err := c.Set(gnmitest.Ctx(t), b)
	if status.Code(err) != codes.Unknown || !strings.Contains(err.Error(), "not allowed by sonic gcu") {
		t.Fatalf("err = %v, want a GCU rejection", err)
	}
}

func TestSetInvalidBatchSendsNothing(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	c := client(t, gnmitest.Fast(tw.Addr()))
	b := (&Batch{}).Update(ConfigDBPath("PORT", "Ethernet0", "mtu"), map[string]string{"mtu": "1"})
	if _, err := c.Set(gnmitest.Ctx(t), b); err == nil || !strings.Contains(err.Error(), "gnmi batch") {
		t.Fatalf("err = %v, want the batch error", err)
	}
	if _, err := c.Set(gnmitest.Ctx(t), &Batch{}); err == nil {
		t.Fatal("empty batch was sent")
	}
	if n := tw.Stats().RPCs["Set"]; n != 0 {
		t.Errorf("Set sent %d times", n)
	}
}

func TestFailedButApplied(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{Release: "202511"})
	c := client(t, gnmitest.Fast(tw.Addr()))
	tw.FailNextSetButApply(codes.Unknown)
	b := (&Batch{}).Update(ConfigDBPath("SCHEDULER", "roce", ""), map[string]string{"type": "DWRR", "weight": "50"})
	_, err := c.Set(gnmitest.Ctx(t), b)
	var se *SetError
	if !errors.As(err, &se) {
		t.Fatalf("err = %v, want *SetError", err)
	}
	if se.Applied == nil || !*se.Applied {
		t.Fatalf("Applied = %v (%v), want true", se.Applied, se.VerifyErr)
	}
	if !strings.Contains(err.Error(), "holds the change anyway") {
		t.Errorf("err = %q", err)
	}
}

func TestSetTimeoutWhileSwitchStillApplies(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.SetTimeout = 100 * time.Millisecond
	c := client(t, cfg)
	tw.SlowSet(400 * time.Millisecond)
	_, err := c.Set(gnmitest.Ctx(t), (&Batch{}).UpdateField(ConfigDBPath("PORT", "Ethernet0", "mtu"), "9000"))
	var se *SetError
	if !errors.As(err, &se) || se.Code != codes.DeadlineExceeded || se.NotSent || se.Applied == nil || *se.Applied {
		t.Fatalf("err = %v, want DeadlineExceeded, sent, not applied yet", err)
	}
	// Like GCU, the switch finishes the patch after the client gave up.
	deadline := time.Now().Add(3 * time.Second)
	for {
		if e, _ := tw.Entry("PORT", "Ethernet0"); e["mtu"] == "9000" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the slow Set never applied")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
