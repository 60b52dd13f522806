package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/path"
)

func TestFindingPath(t *testing.T) {
	tests := map[string]path.Path{
		"ecn.min_threshold_bytes": path.Root("ecn").AtName("min_threshold_bytes"),
		"rdma.dscp[1]":            path.Root("rdma").AtName("dscp").AtListIndex(1),
		"ports[12]":               path.Root("ports").AtListIndex(12),
		"pfc.ratio_min":           path.Root("pfc").AtName("ratio_min"),
	}
	for in, want := range tests {
		if got := findingPath(rename(in, nil)); !got.Equal(want) {
			t.Errorf("findingPath(%q) = %s, want %s", in, got, want)
		}
	}
	if got := findingPath(rename("ratio_window.min", switchQoSRenames)); !got.Equal(path.Root("pfc").AtName("ratio_min")) {
		t.Errorf("ratio_window.min renamed to %s, want pfc.ratio_min", got)
	}
}
