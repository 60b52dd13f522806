package provider

import (
	"slices"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
)

// TestChangeLinesGroupsSubjects: the same change on several devices is one line naming each
// device; changes that differ in more than their subject, or have none, stay apart.
func TestChangeLinesGroupsSubjects(t *testing.T) {
	on := func(task, dev, before, after string) host.Change {
		return host.Change{Task: task, Summary: "set DCQCN of " + dev + " through OFED sysfs", Subject: dev, Before: before, After: after}
	}
	rep := host.Report{Tasks: []host.TaskReport{
		{Task: "dcqcn", Changes: []host.Change{
			on("dcqcn", "ens1f0np0", "ai=5", "ai=10"),
			on("dcqcn", "ens2f0np0", "ai=5", "ai=10"),
			on("dcqcn", "ens3f0np0", "ai=7", "ai=10"),
			on("dcqcn", "ens4f0np0", "ai=5", "ai=10"),
		}},
		{Task: "persist", Changes: []host.Change{
			{Task: "persist", Summary: "reload systemd"},
			{Task: "persist", Summary: "reload systemd"},
		}},
		{Task: "host qos", Changes: []host.Change{
			{Task: "host qos", Summary: "set the RoCE traffic class of mlx5_1 (ens2f0np0) to 106", Subject: "mlx5_1 (ens2f0np0)", Before: "none", After: "106"},
		}},
	}}
	want := []string{
		"dcqcn: set DCQCN of ens1f0np0, ens2f0np0, ens4f0np0 through OFED sysfs (ai=5 → ai=10)",
		"dcqcn: set DCQCN of ens3f0np0 through OFED sysfs (ai=7 → ai=10)",
		"persist: reload systemd",
		"persist: reload systemd",
		"host qos: set the RoCE traffic class of mlx5_1 (ens2f0np0) to 106 (none → 106)",
	}
	if got := changeLines(rep); !slices.Equal(got, want) {
		t.Errorf("changeLines:\n got %q\nwant %q", got, want)
	}
}
