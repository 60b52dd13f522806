package provider

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/tasks"
)

// TestExpectedHostFactsCoverTheResources: the first gather on a host reads the files and
// facts the host resources' tasks and undo read with their defaults, so a second resource on
// the host is served from it.
func TestExpectedHostFactsCoverTheResources(t *testing.T) {
	got := expectedHostFacts()
	pin := tasks.OFEDPin{Version: "25.07-0.9.7"}
	want := []host.Want{
		host.AllFacts(),
		host.Want{}.WithFiles(defaultNCCLConfPath, tasks.AptSourcePath, tasks.AptPreferencesPath, tasks.AptAuthPath, tasks.DnfRepoPath),
		pin.Needs(), pin.Undo().Needs(),
		tasks.GPUDirect{}.Needs(), tasks.GPUDirect{Mode: tasks.GPUDirectPeermem}.Undo().Needs(),
		dcqcnPersistence(tasks.DCQCN{}, tasks.HostQoS{}).Needs(),
		dcqcnPersistence(tasks.DCQCN{}, tasks.HostQoS{}).Undo().Needs(),
	}
	for _, w := range want {
		if !got.Covers(w) {
			t.Errorf("expectedHostFacts() = %s does not cover %s", got, w)
		}
	}
}
