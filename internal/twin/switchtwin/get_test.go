package switchtwin

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/testing/protocmp"
)

func TestGet(t *testing.T) {
	tw := startTwin(t, Options{Release: "202505", Ports: 2})
	c := dial(t, tw, nil)

	tests := []struct {
		name string
		path *gpb.Path
		want string // JSON
	}{
		{"field", cfg("PORT", "Ethernet4", "mtu"), `"9100"`},
		{"entry", cfg("QUEUE", "Ethernet0|3"), `{"scheduler":"scheduler.1","wred_profile":"AZURE_LOSSLESS"}`},
		{"table", cfg("CABLE_LENGTH"), `{"AZURE":{"Ethernet0":"5m","Ethernet4":"5m"}}`},
		{"version", cfg("VERSIONS", "DATABASE"), `{"VERSION":"version_202505_01"}`},
		{"metadata", cfg("DEVICE_METADATA", "localhost", "platform"), `"x86_64-nvidia_sn5600-r0"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := c.Get(ctxT(t), &gpb.GetRequest{Path: []*gpb.Path{tt.path}, Encoding: gpb.Encoding_JSON_IETF})
			if err != nil {
				t.Fatalf("Get: %v", err)
			}
			want := &gpb.GetResponse{Notification: []*gpb.Notification{{
				Update: []*gpb.Update{{Path: tt.path, Val: ietf(compact(t, tt.want))}},
			}}}
			if diff := cmp.Diff(want, resp, protocmp.Transform(), protocmp.IgnoreFields(&gpb.Notification{}, "timestamp")); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func compact(t *testing.T, js string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(js), &v); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func TestGetErrors(t *testing.T) {
	tw := startTwin(t, Options{})
	c := dial(t, tw, nil)
	tests := []struct {
		name      string
		req       *gpb.GetRequest
		code      codes.Code
		fragments []string
	}{
		{"missing key", &gpb.GetRequest{Path: []*gpb.Path{cfg("WRED_PROFILE", "ROCE")}, Encoding: gpb.Encoding_JSON_IETF},
			codes.NotFound, []string{"No valid entry found for path CONFIG_DB/localhost/WRED_PROFILE/ROCE"}},
		{"missing field", &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT", "Ethernet0", "nope")}, Encoding: gpb.Encoding_JSON_IETF},
			codes.NotFound, []string{"No valid entry found"}},
		{"one missing path fails the Get", &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT", "Ethernet0"), cfg("PORT", "Ethernet1000")}, Encoding: gpb.Encoding_JSON_IETF},
			codes.NotFound, []string{"Ethernet1000"}},
		{"ascii encoding", &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT")}, Encoding: gpb.Encoding_ASCII},
			codes.Unimplemented, []string{"unsupported encoding: ASCII"}},
		{"state type", &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT")}, Type: gpb.GetRequest_STATE, Encoding: gpb.Encoding_JSON_IETF},
			codes.Unimplemented, []string{"unsupported request type"}},
		{"openconfig", &gpb.GetRequest{Path: []*gpb.Path{{Origin: "openconfig", Elem: []*gpb.PathElem{{Name: "qos"}}}}, Encoding: gpb.Encoding_JSON_IETF},
			codes.Unimplemented, []string{"translib"}},
		{"state db", &gpb.GetRequest{Path: []*gpb.Path{{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "STATE_DB"}, {Name: "localhost"}, {Name: "PORT_TABLE"}}}}, Encoding: gpb.Encoding_JSON_IETF},
			codes.NotFound, []string{"only CONFIG_DB"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Get(ctxT(t), tt.req)
			wantCode(t, err, tt.code, tt.fragments...)
		})
	}
}

func TestGetEmptyTableAndOthers(t *testing.T) {
	tw := startTwin(t, Options{Release: "SONiC.20250510.3", BuildVersion: "SONiC.20250510.3"})
	c := dial(t, tw, nil)
	resp, err := c.Get(ctxT(t), &gpb.GetRequest{Path: []*gpb.Path{cfg("NO_SUCH_TABLE")}, Encoding: gpb.Encoding_JSON_IETF})
	if err != nil {
		t.Fatalf("Get empty table: %v", err)
	}
	if len(resp.GetNotification()) != 0 {
		t.Errorf("empty table answered %v, want nothing", resp.GetNotification())
	}

	path := &gpb.Path{Elem: []*gpb.PathElem{{Name: "osversion"}, {Name: "build"}}}
	resp, err = c.Get(ctxT(t), &gpb.GetRequest{Prefix: &gpb.Path{Target: "OTHERS"}, Path: []*gpb.Path{path}, Encoding: gpb.Encoding_JSON_IETF})
	if err != nil {
		t.Fatalf("Get osversion: %v", err)
	}
	got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonIetfVal())
	if want := `{"build_version":"SONiC.20250510.3","error":""}`; got != want {
		t.Errorf("osversion/build = %s, want %s", got, want)
	}
	if tw.Release().String() != "202505" {
		t.Errorf("Release() = %s", tw.Release())
	}

	// JSON (not IETF) Gets answer JSON.
	resp, err = c.Get(ctxT(t), &gpb.GetRequest{Path: []*gpb.Path{cfg("PORT", "Ethernet0", "mtu")}, Encoding: gpb.Encoding_JSON})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(resp.GetNotification()[0].GetUpdate()[0].GetVal().GetJsonVal()); got != `"9100"` {
		t.Errorf("JSON Get = %q", got)
	}
}

func TestCapabilities(t *testing.T) {
	tw := startTwin(t, Options{})
	resp, err := dial(t, tw, nil).Capabilities(ctxT(t), &gpb.CapabilityRequest{})
	if err != nil {
		t.Fatal(err)
	}
	want := []gpb.Encoding{gpb.Encoding_JSON, gpb.Encoding_JSON_IETF, gpb.Encoding_PROTO}
	if diff := cmp.Diff(want, resp.GetSupportedEncodings()); diff != "" {
		t.Errorf("encodings (-want +got):\n%s", diff)
	}
}
