package sonic

import (
	"encoding/json"
	"testing"

	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/switchcfgtest"
)

// FuzzSONiCObservation decodes CONFIG_DB as a switch could answer it and runs everything a
// plan does with it: nothing may panic, whatever the tables hold.
func FuzzSONiCObservation(f *testing.F) {
	f.Add(`{"DEVICE_METADATA":{"localhost":{"hwsku":"Mellanox-SN5600-O128","buffer_model":"traditional"}},"PORT":{"Ethernet0":{"speed":"400000","mtu":"9100"}}}`)
	f.Add(`{"PORT":{"Ethernet0":{"speed":"x"}},"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,,4"}},"CABLE_LENGTH":{"AZURE":{"Ethernet0":"5"}}}`)
	f.Add(`{"BUFFER_POOL":{"ingress_lossless_pool":{"size":"-1"}},"BUFFER_PG":{"Ethernet0|3-4":{"profile":"pg_lossless_400000_5m_profile"}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var db sonicmodel.DB
		if json.Unmarshal([]byte(raw), &db) != nil {
			return
		}
		facts, err := factsFrom(db, sonicmodel.Release{})
		if err != nil {
			return
		}
		switchcfgtest.Exercise(sonicObservation{Facts: facts, db: db}, testPolicy())
	})
}
