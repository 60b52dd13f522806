package gnmi_test

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
)

// A batch prints as plan lines before anything is sent, in the order SONiC
// applies it.
func ExampleBatch_Lines() {
	b := &gnmi.Batch{}
	b.Update(gnmi.ConfigDBPath("WRED_PROFILE", "ROCE", ""), map[string]string{
		"ecn":                 "ecn_all",
		"green_min_threshold": "102400",
		"green_max_threshold": "256000",
	})
	b.UpdateField(gnmi.ConfigDBPath("PORT_QOS_MAP", "Ethernet0", "pfc_enable"), "3")
	b.Delete(gnmi.ConfigDBPath("QUEUE", "Ethernet0|4", ""))
	for _, line := range b.Lines() {
		fmt.Println(line)
	}
	// Output:
	// delete CONFIG_DB/QUEUE/Ethernet0|4
	// update CONFIG_DB/PORT_QOS_MAP/Ethernet0/pfc_enable = 3
	// update CONFIG_DB/WRED_PROFILE/ROCE {ecn=ecn_all, green_max_threshold=256000, green_min_threshold=102400}
}

func ExampleParsePath() {
	p, err := gnmi.ParsePath("sonic-db:CONFIG_DB/localhost/QUEUE/Ethernet0|3/scheduler")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Table(), p.Key(), p.Field())
	// Output: QUEUE Ethernet0|3 scheduler
}
