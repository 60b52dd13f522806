package cumulus

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

func TestCumulusQoSMaps(t *testing.T) {
	raw, err := os.ReadFile("testdata/counters/qos-applied-roce.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name        string
		qos         string
		queue, pgOf map[int]int
	}{
		// Nothing set: the guide's defaults, priority n on queue n, every cos in bulk (0).
		{"defaults", `{}`, map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}, map[int]int{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0}},
		// RoCE lossless mode: 3 and 6 keep their classes, the rest share 0; 3 leaves bulk for
		// the roce-reserved pools.
		{"roce", `{"roce":{"enable":"on"}}`, map[int]int{0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}, map[int]int{0: 0, 1: 0, 2: 0, 4: 0, 5: 0, 6: 0, 7: 0}},
		{"roce lossy", `{"roce":{"enable":"on","mode":"lossy"}}`, map[int]int{0: 0, 1: 0, 2: 0, 3: 3, 4: 0, 5: 0, 6: 6, 7: 0}, map[int]int{0: 0, 1: 0, 2: 0, 3: 0, 4: 0, 5: 0, 6: 0, 7: 0}},
		// The RoCE page's remaps: 2 to class 3, 3 to 0 and back in default-lossy, 4 to the
		// roce-lossy pool, PFC on 2.
		{"remapped", string(raw), map[int]int{0: 0, 1: 0, 2: 3, 3: 0, 4: 0, 5: 0, 6: 6, 7: 0}, map[int]int{0: 0, 1: 0, 3: 0, 5: 0, 6: 0, 7: 0}},
		// The guide's traffic pool example (mc-lossy is service2) and a lossy group set by hand.
		{"pools", `{"traffic-pool":{"default-lossy":{"switch-priority":{"0":{},"1":{},"3":{},"4":{},"5":{},"6":{},"7":{}}},"mc-lossy":{"switch-priority":{"2":{}}}},` +
			`"advance-buffer-config":{"default-global":{"ingress-lossy-buffer":{"priority-group":{"service5":{"switch-priority":{"5":{}}}}}}}}`,
			map[int]int{0: 0, 1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6, 7: 7}, map[int]int{0: 0, 1: 0, 2: 2, 3: 0, 4: 0, 5: 5, 6: 0, 7: 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			qos, err := nvue.DecodeTree([]byte(tc.qos))
			if err != nil {
				t.Fatal(err)
			}
			queue, pg, err := QoSMaps(qos)
			if err != nil || !maps.Equal(queue, tc.queue) || !maps.Equal(pg, tc.pgOf) {
				t.Errorf("queues %v, priority groups %v, err %v; want %v and %v", queue, pg, err, tc.queue, tc.pgOf)
			}
		})
	}
	for _, bad := range []string{
		`{"egress-queue-mapping":{"default-global":{"switch-priority":{"9":{"traffic-class":1}}}}}`,
		`{"egress-queue-mapping":{"default-global":{"switch-priority":{"2":{"traffic-class":8}}}}}`,
		`{"advance-buffer-config":{"default-global":{"ingress-lossy-buffer":{"priority-group":{"control":{"switch-priority":{"7":{}}}}}}}}`,
	} {
		qos, _ := nvue.DecodeTree([]byte(bad))
		if _, _, err := QoSMaps(qos); err == nil || !strings.Contains(err.Error(), "qos ") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// TestPFCPriorities: each port is judged on the priorities of its own PFC profile, else the
// global one, else RoCE lossless mode's; a port with none leaves the judge its own priority.
func TestPFCPriorities(t *testing.T) {
	member := map[string]any{}
	qos := nvue.Tree{"pfc": map[string]any{
		"ROCE":           map[string]any{"switch-priority": map[string]any{"3": member, "4": member}},
		"default-global": map[string]any{"switch-priority": map[string]any{"2": member}},
	}}
	ifaces := nvue.Tree{"swp1": map[string]any{"qos": map[string]any{"pfc": map[string]any{"profile": "ROCE"}}}}
	roce := nvue.Tree{"roce": map[string]any{"enable": "on", "mode": "lossless"}}
	roceMoved := nvue.Tree{"roce": map[string]any{"enable": "on", "pfc": map[string]any{"pfc-priority": 2.0}}}
	lossy := nvue.Tree{"roce": map[string]any{"enable": "on", "mode": "lossy"}}
	for _, c := range []struct {
		name string
		qos  nvue.Tree
		port string
		want []int
	}{
		{"own profile, two lossless classes", qos, "swp1", []int{3, 4}},
		{"global profile", qos, "swp2", []int{2}},
		{"RoCE lossless mode", roce, "swp2", []int{3}},
		{"RoCE lossless mode, moved priority", roceMoved, "swp2", []int{2}},
		{"RoCE lossy mode", lossy, "swp2", nil},
		{"nothing", nvue.Tree{}, "swp2", nil},
	} {
		if got := PFCPriorities(c.qos, ifaces, c.port); !slices.Equal(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
