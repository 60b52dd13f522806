package switchcfg

import (
	"encoding/json"
	"testing"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// FuzzSONiCObservation decodes CONFIG_DB as a switch could answer it and runs everything a
// plan does with it: nothing may panic, whatever the tables hold.
func FuzzSONiCObservation(f *testing.F) {
	f.Add(`{"DEVICE_METADATA":{"localhost":{"hwsku":"Mellanox-SN5600-O128","buffer_model":"traditional"}},"PORT":{"Ethernet0":{"speed":"400000","mtu":"9100"}}}`)
	f.Add(`{"PORT":{"Ethernet0":{"speed":"x"}},"PORT_QOS_MAP":{"Ethernet0":{"pfc_enable":"3,,4"}},"CABLE_LENGTH":{"AZURE":{"Ethernet0":"5"}}}`)
	f.Add(`{"BUFFER_POOL":{"ingress_lossless_pool":{"size":"-1"}},"BUFFER_PG":{"Ethernet0|3-4":{"profile":"pg_lossless_400000_5m_profile"}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		var db sonic.DB
		if json.Unmarshal([]byte(raw), &db) != nil {
			return
		}
		facts, err := factsFrom(db, sonic.Release{})
		if err != nil {
			return
		}
		exercise(sonicObservation{Facts: facts, db: db}, testPolicy())
	})
}

// exercise runs on o everything a plan, an apply and a destroy ask of an observation.
func exercise(o Observation, p Policy) {
	o.Check(p, 0)
	snap := o.Snapshot(nil, p, nil)
	_, _ = o.PlanUpdate(nil, p, snap)
	_, _ = o.Removal(p, snap)
	_, _ = o.Decode(p.Name, p.Ports, p)
	o.CheckLossless(p)
}

// FuzzNVUEObservation does the same with an applied NVUE configuration.
func FuzzNVUEObservation(f *testing.F) {
	f.Add(`{"qos":{"mapping":{"ROCE":{"dscp":{"26":{"switch-priority":3}}}},"pfc":{"ROCE":{"switch-priority":{"3":{}}}}},"interface":{"swp1":{"qos":{"pfc":{"profile":"ROCE"}}}}}`)
	f.Add(`{"qos":{"pfc":{"ROCE":{"switch-priority":{"x":{},"3":{}}}},"traffic-pool":{"default-lossy":{"memory-percent":"a"}}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		tree, err := nvue.DecodeTree([]byte(raw))
		if err != nil {
			return
		}
		exercise(nvueObservation{release: "5.14", qos: nvue.Object(tree, "qos"), ifaces: nvue.Object(tree, "interface")}, cumulusPolicy())
	})
}
