package cumulus

import (
	"maps"
	"os"
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
