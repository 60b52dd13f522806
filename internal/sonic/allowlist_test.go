package sonic

import (
	"errors"
	"strings"
	"testing"
)

func TestAllowed(t *testing.T) {
	const sku = "Mellanox-SN5600-O128"
	wred := func(op Op, key, field string, fields ...string) Change {
		return Change{Op: op, Table: "WRED_PROFILE", Key: key, Field: field, Fields: fields}
	}
	tests := []struct {
		name    string
		release string
		hwsku   string
		change  Change
		allowed bool
	}{
		// WRED_PROFILE.
		{"202411 replace azure_lossless green min", "202411", sku, wred(OpReplace, "AZURE_LOSSLESS", "green_min_threshold"), true},
		{"202411 replace other profile", "202411", sku, wred(OpReplace, "ROCE", "green_min_threshold"), false},
		{"202411 replace ecn", "202411", sku, wred(OpReplace, "AZURE_LOSSLESS", "ecn"), false},
		{"202411 add new profile", "202411", sku, wred(OpAdd, "ROCE", "", "ecn", "green_min_threshold"), false},
		{"202411 add field", "202411", sku, wred(OpAdd, "AZURE_LOSSLESS", "green_drop_probability"), false},
		{"202411 on SN5640 (no platform entry)", "202411", "ACS-SN5640", wred(OpReplace, "AZURE_LOSSLESS", "green_min_threshold"), false},
		{"older branch uses 202411 rules", "202305", sku, wred(OpReplace, "AZURE_LOSSLESS", "green_max_threshold"), true},
		{"202505 replace any profile", "202505", sku, wred(OpReplace, "ROCE", "green_max_threshold"), true},
		{"202505 replace on spc5", "SONiC.20250510.3", "ACS-SN5640", wred(OpReplace, "ROCE", "green_drop_probability"), true},
		{"202505 add new profile", "202505", sku, wred(OpAdd, "ROCE", "", "green_min_threshold"), false},
		{"202505 remove profile", "202505", sku, wred(OpRemove, "ROCE", ""), false},
		{"202505 replace ecn", "202505", sku, wred(OpReplace, "ROCE", "ecn"), false},
		{"202511 add new profile", "202511", sku, wred(OpAdd, "ROCE", "", "ecn"), true},
		{"master remove profile", "master", sku, wred(OpRemove, "ROCE", ""), true},
		{"unknown hwsku rejects validated table", "202411", "Force10-S6000", wred(OpReplace, "AZURE_LOSSLESS", "green_min_threshold"), false},

		// BUFFER_POOL.
		{"202411 replace ingress lossless xoff", "202411", sku, Change{Op: OpReplace, Table: "BUFFER_POOL", Key: "ingress_lossless_pool", Field: "xoff"}, true},
		{"202411 replace egress lossless size", "202411", sku, Change{Op: OpReplace, Table: "BUFFER_POOL", Key: "egress_lossless_pool", Field: "size"}, false},
		{"202511 replace ingress lossless xoff", "202511", sku, Change{Op: OpReplace, Table: "BUFFER_POOL", Key: "ingress_lossless_pool", Field: "xoff"}, false},

		// BUFFER_PROFILE.
		{"202411 generated profile xoff", "202411", sku, Change{Op: OpReplace, Table: "BUFFER_PROFILE", Key: "pg_lossless_400000_5m_profile", Field: "xoff"}, true},
		{"202411 named profile dynamic_th (key survives cleaning)", "202411", sku, Change{Op: OpReplace, Table: "BUFFER_PROFILE", Key: "ingress_lossless_profile", Field: "dynamic_th"}, false},
		{"202411 add profile", "202411", sku, Change{Op: OpAdd, Table: "BUFFER_PROFILE", Key: "roce_profile", Fields: []string{"pool", "size"}}, false},
		{"202511 named profile dynamic_th", "202511", sku, Change{Op: OpReplace, Table: "BUFFER_PROFILE", Key: "ingress_lossless_profile", Field: "dynamic_th"}, true},
		{"202511 whole profile add", "202511", sku, Change{Op: OpAdd, Table: "BUFFER_PROFILE", Key: "roce_profile", Fields: []string{"pool", "size", "xon"}}, true},
		{"202511 whole profile remove", "202511", sku, Change{Op: OpRemove, Table: "BUFFER_PROFILE", Key: "roce_profile"}, true},
		{"202511 field size edit", "202511", sku, Change{Op: OpReplace, Table: "BUFFER_PROFILE", Key: "roce_profile", Field: "size"}, false},
		{"202511 add packet_discard_action", "202511", sku, Change{Op: OpAdd, Table: "BUFFER_PROFILE", Key: "q_lossy_profile", Field: "packet_discard_action"}, true},
		{"202511 add dynamic_th field", "202511", sku, Change{Op: OpAdd, Table: "BUFFER_PROFILE", Key: "q_lossy_profile", Field: "dynamic_th"}, false},

		// PFC_WD.
		{"pfcwd add port entry", "202411", sku, Change{Op: OpAdd, Table: "PFC_WD", Key: "Ethernet0", Fields: []string{"action", "detection_time", "restoration_time"}}, true},
		{"pfcwd remove port entry", "202505", sku, Change{Op: OpRemove, Table: "PFC_WD", Key: "Ethernet0"}, true},
		{"pfcwd replace poll interval", "202411", sku, Change{Op: OpReplace, Table: "PFC_WD", Key: "GLOBAL", Field: "POLL_INTERVAL"}, true},
		{"pfcwd remove poll interval is illegal", "202511", sku, Change{Op: OpRemove, Table: "PFC_WD", Key: "GLOBAL", Field: "POLL_INTERVAL"}, false},
		{"pfcwd remove GLOBAL is illegal", "202511", sku, Change{Op: OpRemove, Table: "PFC_WD", Key: "GLOBAL"}, false},
		{"pfcwd pfc_stat_history on 202505", "202505", sku, Change{Op: OpAdd, Table: "PFC_WD", Key: "Ethernet0", Field: "pfc_stat_history"}, false},
		{"pfcwd pfc_stat_history on 202511", "202511", sku, Change{Op: OpAdd, Table: "PFC_WD", Key: "Ethernet0", Field: "pfc_stat_history"}, true},

		// Tables GCU does not validate.
		{"dscp map add", "202411", sku, Change{Op: OpAdd, Table: "DSCP_TO_TC_MAP", Key: "ROCE", Fields: []string{"26"}}, true},
		{"queue remove", "202411", "unknown-sku", Change{Op: OpRemove, Table: "QUEUE", Key: "Ethernet0|3"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rel, err := ParseRelease(tt.release)
			if err != nil {
				t.Fatal(err)
			}
			err = Allowed(rel, tt.hwsku, tt.change)
			if tt.allowed && err != nil {
				t.Errorf("Allowed(%s) = %v, want nil", tt.change, err)
			}
			if !tt.allowed {
				if !errors.Is(err, ErrNotAllowed) {
					t.Fatalf("Allowed(%s) = %v, want ErrNotAllowed", tt.change, err)
				}
				if !strings.Contains(err.Error(), tt.change.Path()) {
					t.Errorf("error %q does not name the path %s", err, tt.change.Path())
				}
			}
		})
	}
}

func TestCheck(t *testing.T) {
	rel, _ := ParseRelease("202411")
	before := DB{"WRED_PROFILE": {"AZURE_LOSSLESS": {"ecn": "ecn_all", "green_min_threshold": "1048576", "green_max_threshold": "2097152"}}}

	// A whole-entry update that only changes allowlisted fields is fine: GCU
	// validates the difference, not the operation sent.
	after := before.Clone()
	after["WRED_PROFILE"]["AZURE_LOSSLESS"]["green_min_threshold"] = "102400"
	if err := Check(rel, "ACS-SN5600", before, after); err != nil {
		t.Errorf("Check(threshold change) = %v", err)
	}

	after["WRED_PROFILE"]["ROCE"] = Entry{"ecn": "ecn_all"}
	delete(after["WRED_PROFILE"]["AZURE_LOSSLESS"], "ecn")
	err := Check(rel, "ACS-SN5600", before, after)
	if !errors.Is(err, ErrNotAllowed) {
		t.Fatalf("Check = %v, want ErrNotAllowed", err)
	}
	for _, want := range []string{"remove /WRED_PROFILE/AZURE_LOSSLESS/ecn", "add /WRED_PROFILE/ROCE"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Check error %q lacks %q", err, want)
		}
	}
}

func TestASIC(t *testing.T) {
	for sku, want := range map[string]string{
		"ACS-SN5600": ASICSpectrum4, "mellanox-sn5600-v256": ASICSpectrum4,
		"ACS-SN5640": ASICSpectrum5, "ACS-MSN2700": ASICUnknown, "": ASICUnknown,
	} {
		if got := ASIC(sku); got != want {
			t.Errorf("ASIC(%q) = %q, want %q", sku, got, want)
		}
	}
}
