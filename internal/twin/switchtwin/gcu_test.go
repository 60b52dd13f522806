package switchtwin

import (
	"testing"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
)

func TestGCUAllowlistPerRelease(t *testing.T) {
	newWRED := upd(cfg("WRED_PROFILE", "ROCE"), `{"ecn":"ecn_all","green_min_threshold":"81920","green_max_threshold":"122880"}`)
	azureMin := upd(cfg("WRED_PROFILE", "AZURE_LOSSLESS", "green_min_threshold"), `"102400"`)
	azureECN := upd(cfg("WRED_PROFILE", "AZURE_LOSSLESS", "ecn"), `"ecn_green"`)
	poolSize := upd(cfg("BUFFER_POOL", "ingress_lossless_pool", "size"), `"60000000"`)
	profileTh := upd(cfg("BUFFER_PROFILE", "ingress_lossless_profile", "dynamic_th"), `"1"`)
	profileSize := upd(cfg("BUFFER_PROFILE", "ingress_lossless_profile", "size"), `"1024"`)
	newProfile := upd(cfg("BUFFER_PROFILE", "roce_profile"), `{"pool":"ingress_lossless_pool","size":"0","dynamic_th":"1"}`)
	pfcwdPort := upd(cfg("PFC_WD", "Ethernet0"), `{"action":"drop","detection_time":"200","restoration_time":"200"}`)

	tests := []struct {
		release string
		name    string
		update  *gpb.Update
		replace bool // send as replace instead of update
		reject  string
	}{
		{"202411", "new WRED profile", newWRED, false, "add /WRED_PROFILE/ROCE"},
		{"202411", "AZURE_LOSSLESS threshold", azureMin, true, ""},
		{"202411", "AZURE_LOSSLESS threshold sent as update", azureMin, false, ""}, // GCU sees a replace in the diff
		{"202411", "AZURE_LOSSLESS ecn", azureECN, true, "replace /WRED_PROFILE/AZURE_LOSSLESS/ecn"},
		{"202411", "ingress lossless pool size", poolSize, true, ""},
		{"202411", "named profile dynamic_th", profileTh, true, "replace /BUFFER_PROFILE/ingress_lossless_profile/dynamic_th"},
		{"202411", "pfc watchdog on a port", pfcwdPort, false, ""},
		{"202505", "new WRED profile", newWRED, false, "add /WRED_PROFILE/ROCE"},
		{"202505", "AZURE_LOSSLESS threshold", azureMin, true, ""},
		{"202505", "AZURE_LOSSLESS ecn", azureECN, true, "replace /WRED_PROFILE/AZURE_LOSSLESS/ecn"},
		{"202511", "new WRED profile", newWRED, false, ""},
		{"202511", "ingress lossless pool size", poolSize, true, "replace /BUFFER_POOL/ingress_lossless_pool/size"},
		{"202511", "named profile dynamic_th", profileTh, true, ""},
		{"202511", "profile size field", profileSize, true, "replace /BUFFER_PROFILE/ingress_lossless_profile/size"},
		{"202511", "whole new profile", newProfile, false, ""},
		{"master", "ingress lossless pool size", poolSize, true, "replace /BUFFER_POOL/ingress_lossless_pool/size"},
	}
	for _, tt := range tests {
		t.Run(tt.release+"/"+tt.name, func(t *testing.T) {
			tw := startTwin(t, Options{Release: tt.release})
			req := &gpb.SetRequest{Update: []*gpb.Update{tt.update}}
			if tt.replace {
				req = &gpb.SetRequest{Replace: []*gpb.Update{tt.update}}
			}
			_, err := dial(t, tw, nil).Set(ctxT(t), req)
			if tt.reject == "" {
				if err != nil {
					t.Fatalf("Set: %v", err)
				}
				return
			}
			wantCode(t, err, codes.Unknown, tt.reject, "not allowed by sonic gcu", "sonic "+tt.release)
		})
	}
}

func TestGCUUnknownSKU(t *testing.T) {
	tw := startTwin(t, Options{Release: "202511", HWSKU: "Force10-S6000"})
	_, err := dial(t, tw, nil).Set(ctxT(t), &gpb.SetRequest{Update: []*gpb.Update{
		upd(cfg("PFC_WD", "GLOBAL", "POLL_INTERVAL"), `"400"`),
	}})
	wantCode(t, err, codes.Unknown, "Force10-S6000", "not in gcu's asic lists")
}
