package sonicdb_test

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
)

// A batch prints as plan lines before anything is sent, in the order SONiC
// applies it.
func ExampleBatch_Lines() {
	b := &sonicdb.Batch{}
	b.Update(sonicdb.ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{
		"ecn":                 "ecn_all",
		"green_min_threshold": "102400",
		"green_max_threshold": "256000",
	})
	b.UpdateField(sonicdb.ConfigDBPath("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), "3")
	b.Delete(sonicdb.ConfigDBPath("QUEUE", "Ethernet0|4", ""))
	for _, line := range b.Lines() {
		fmt.Println(line)
	}
	// Output:
	// delete CONFIG_DB/QUEUE/Ethernet0|4
	// update CONFIG_DB/PORT_QOS_MAP/Ethernet0/pfc_enable = 3
	// update CONFIG_DB/WRED_PROFILE/ROCE {ecn=ecn_all, green_max_threshold=256000, green_min_threshold=102400}
}
