package cumulus

import (
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/switchcfgtest"
)

// FuzzNVUEObservation does the same with an applied NVUE configuration.
func FuzzNVUEObservation(f *testing.F) {
	f.Add(`{"qos":{"mapping":{"ROCE":{"dscp":{"26":{"switch-priority":3}}}},"pfc":{"ROCE":{"switch-priority":{"3":{}}}}},"interface":{"swp1":{"qos":{"pfc":{"profile":"ROCE"}}}}}`)
	f.Add(`{"qos":{"pfc":{"ROCE":{"switch-priority":{"x":{},"3":{}}}},"traffic-pool":{"default-lossy":{"memory-percent":"a"}}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		tree, err := nvue.DecodeTree([]byte(raw))
		if err != nil {
			return
		}
		switchcfgtest.Exercise(nvueObservation{release: "5.14", qos: nvue.Object(tree, "qos"), ifaces: nvue.Object(tree, "interface")}, cumulusPolicy())
	})
}
