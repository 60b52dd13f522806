package switchtwin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// portLayout is a SKU's front panel as its port_config.ini describes it
// (sonic-buildimage device/mellanox/x86_64-nvidia_sn5600-r0).
type portLayout struct {
	count int // ports
	lanes int // lanes per port; port N is Ethernet<N*lanes>
	speed int // default speed, Mb/s
	split bool
}

// layoutFor returns ACS-SN5600's 64 × 800G (8 lanes) or, for every other
// SKU, Mellanox-SN5600-O128's 128 × 400G (each OSFP cage split in two).
func layoutFor(hwsku string) portLayout {
	if strings.EqualFold(hwsku, "ACS-SN5600") {
		return portLayout{count: 64, lanes: 8, speed: 800000}
	}
	return portLayout{count: 128, lanes: 4, speed: 400000, split: true}
}

// supportedSpeeds are the speeds a port of n lanes accepts (Mb/s), standing
// in for STATE_DB PORT_TABLE supported_speeds.
func supportedSpeeds(lanes int) []int {
	speeds := []int{10000, 25000, 40000, 50000, 100000, 200000, 400000}
	if lanes >= 8 {
		speeds = append(speeds, 800000)
	}
	return speeds
}

// seed returns CONFIG_DB as SONiC renders it for an SN5600 from
// sonic-buildimage files/build_templates/qos_config.j2 and the SKU's buffer
// templates (device/mellanox/x86_64-nvidia_sn5600-r0/ACS-SN5600), for the
// tables the provider reads or writes.
func seed(s settings) sonic.DB {
	db := sonic.DB{}
	db.SetEntry("DEVICE_METADATA", "localhost", sonic.Entry{
		"hostname":             "sonic",
		"hwsku":                s.HWSKU,
		"platform":             s.Platform,
		"mac":                  "1c:34:da:5a:00:00",
		"type":                 "ToRRouter",
		"buffer_model":         s.BufferModel,
		"default_pfcwd_status": "disable",
		"synchronous_mode":     "enable",
	})
	db.SetEntry("VERSIONS", "DATABASE", sonic.Entry{"VERSION": dbSchemaVersion(s.release)})
	if s.CreateOnlyConfigDBBuffers {
		db["DEVICE_METADATA"]["localhost"]["create_only_config_db_buffers"] = "true"
	}
	for g := range flexGroups {
		e := sonic.Entry{"FLEX_COUNTER_STATUS": "enable"}
		if s.CounterPollInterval > 0 {
			e["POLL_INTERVAL"] = strconv.FormatInt(s.CounterPollInterval.Milliseconds(), 10)
		}
		db.SetEntry("FLEX_COUNTER_TABLE", g, e)
	}
	seedPorts(db, s)
	seedQoSMaps(db)
	seedBuffers(db, s)
	db.SetEntry("PFC_WD", "GLOBAL", sonic.Entry{"POLL_INTERVAL": "200"})
	return db
}

// dbSchemaVersion is db_migrator's CURRENT_VERSION of the branch.
func dbSchemaVersion(rel sonic.Release) string {
	if rel.String() == "202411" {
		return "version_202411_02"
	}
	if rel.IsMaster() {
		return "version_202605_01"
	}
	return "version_" + rel.String() + "_01"
}

func portName(layout portLayout, i int) string { return "Ethernet" + strconv.Itoa(i*layout.lanes) }

func seedPorts(db sonic.DB, s settings) {
	layout := layoutFor(s.HWSKU)
	cable := sonic.Entry{}
	for i := range s.Ports {
		name := portName(layout, i)
		lanes := make([]string, layout.lanes)
		for l := range lanes {
			lanes[l] = strconv.Itoa(i*layout.lanes + l)
		}
		index, alias := i+1, "etp"+strconv.Itoa(i+1)
		if layout.split {
			index = i/2 + 1
			alias = "etp" + strconv.Itoa(index) + string(rune('a'+i%2))
		}
		db.SetEntry("PORT", name, sonic.Entry{
			"admin_status": "up",
			"alias":        alias,
			"index":        strconv.Itoa(index),
			"lanes":        strings.Join(lanes, ","),
			"mtu":          "9100",
			"speed":        strconv.Itoa(layout.speed),
			"fec":          "rs",
		})
		cable[name] = "5m"
		db.SetEntry("PORT_QOS_MAP", name, sonic.Entry{
			"dscp_to_tc_map":   "AZURE",
			"tc_to_queue_map":  "AZURE",
			"tc_to_pg_map":     "AZURE",
			"pfc_to_queue_map": "AZURE",
			"pfc_to_pg_map":    "AZURE",
			"pfc_enable":       "3,4",
			"pfcwd_sw_enable":  "3,4",
		})
		for q := range 7 {
			entry := sonic.Entry{"scheduler": "scheduler.0"}
			if q == 3 || q == 4 {
				entry = sonic.Entry{"scheduler": "scheduler.1", "wred_profile": "AZURE_LOSSLESS"}
			}
			db.SetEntry("QUEUE", name+"|"+strconv.Itoa(q), entry)
		}
		if i >= s.Ports-s.SparePorts {
			continue // a spare port: no buffers
		}
		db.SetEntry("BUFFER_PG", name+"|0", sonic.Entry{"profile": "ingress_lossy_profile"})
		lossless := lossless5m(layout.speed)
		if s.BufferModel == BufferModelDynamic {
			lossless = "NULL" // buffermgrdyn computes it
		}
		db.SetEntry("BUFFER_PG", name+"|3-4", sonic.Entry{"profile": lossless})
		db.SetEntry("BUFFER_QUEUE", name+"|0-2", sonic.Entry{"profile": "q_lossy_profile"})
		db.SetEntry("BUFFER_QUEUE", name+"|3-4", sonic.Entry{"profile": "egress_lossless_profile"})
		db.SetEntry("BUFFER_QUEUE", name+"|5-6", sonic.Entry{"profile": "q_lossy_profile"})
		// ACS-MSN2700 buffers_defaults_objects.j2 (used by ACS-SN5600 and O128): the
		// profile lists of an active port.
		db.SetEntry("BUFFER_PORT_INGRESS_PROFILE_LIST", name, sonic.Entry{"profile_list": "ingress_lossless_profile,ingress_lossy_profile"})
		db.SetEntry("BUFFER_PORT_EGRESS_PROFILE_LIST", name, sonic.Entry{"profile_list": "egress_lossless_profile,egress_lossy_profile"})
	}
	db.SetEntry("CABLE_LENGTH", "AZURE", cable)
	db.SetEntry("PORT_QOS_MAP", "global", sonic.Entry{"dscp_to_tc_map": "AZURE"})
}

// seedQoSMaps writes qos_config.j2's AZURE maps, schedulers and WRED profile.
func seedQoSMaps(db sonic.DB) {
	dscp := sonic.Entry{}
	for d := range 64 {
		tc := "1"
		switch d {
		case 3:
			tc = "3"
		case 4:
			tc = "4"
		case 5: // files/build_templates/qos_config.j2 (202411: line 201, master: 276)
			tc = "2"
		case 8:
			tc = "0"
		case 46:
			tc = "5"
		case 48:
			tc = "6"
		}
		dscp[strconv.Itoa(d)] = tc
	}
	db.SetEntry("DSCP_TO_TC_MAP", "AZURE", dscp)

	tcToPG, identity := sonic.Entry{}, sonic.Entry{}
	for tc := range 8 {
		pg := "0"
		if tc == 3 || tc == 4 || tc == 7 {
			pg = strconv.Itoa(tc)
		}
		tcToPG[strconv.Itoa(tc)] = pg
		identity[strconv.Itoa(tc)] = strconv.Itoa(tc)
	}
	db.SetEntry("TC_TO_PRIORITY_GROUP_MAP", "AZURE", tcToPG)
	db.SetEntry("TC_TO_QUEUE_MAP", "AZURE", identity)
	db.SetEntry("MAP_PFC_PRIORITY_TO_QUEUE", "AZURE", identity)
	db.SetEntry("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "AZURE", sonic.Entry{"3": "3", "4": "4"})

	db.SetEntry("SCHEDULER", "scheduler.0", sonic.Entry{"type": "DWRR", "weight": "14"})
	db.SetEntry("SCHEDULER", "scheduler.1", sonic.Entry{"type": "DWRR", "weight": "15"})

	wred := sonic.Entry{"ecn": "ecn_all"}
	for _, color := range []string{"green", "yellow", "red"} {
		wred["wred_"+color+"_enable"] = "true"
		wred[color+"_min_threshold"] = "1048576"
		wred[color+"_max_threshold"] = "2097152"
		wred[color+"_drop_probability"] = "5"
	}
	db.SetEntry("WRED_PROFILE", "AZURE_LOSSLESS", wred)
}

// seedBuffers writes ACS-SN5600 buffers_defaults_t0.j2 pools and profiles (through
// ACS-MSN2700 buffers_defaults_objects.j2 and files/build_templates/buffers_config.j2). In the
// traditional model they come with the pg_lossless profiles buffermgrd generates for 5 m
// cables (pg_profile_lookup.ini); in the dynamic model the ingress and egress lossy pools
// have no size (buffermgrdyn sizes them) and LOSSLESS_TRAFFIC_PATTERN joins the parameters.
func seedBuffers(db sonic.DB, s settings) {
	dynamic := s.BufferModel == BufferModelDynamic
	pool := func(typ, size string, sizedByDaemon bool) sonic.Entry {
		e := sonic.Entry{"type": typ, "mode": "dynamic"}
		if !dynamic || !sizedByDaemon {
			e["size"] = size
		}
		return e
	}
	db.SetEntry("BUFFER_POOL", "ingress_lossless_pool", pool("ingress", "67737959", true))
	db.SetEntry("BUFFER_POOL", "ingress_lossy_pool", pool("ingress", "67737959", true))
	db.SetEntry("BUFFER_POOL", "egress_lossless_pool", pool("egress", "158229504", false))
	db.SetEntry("BUFFER_POOL", "egress_lossy_pool", pool("egress", "67737959", true))

	profile := func(pool, size, th string) sonic.Entry {
		return sonic.Entry{"pool": pool, "size": size, "dynamic_th": th}
	}
	db.SetEntry("BUFFER_PROFILE", "ingress_lossless_profile", profile("ingress_lossless_pool", "0", "7"))
	db.SetEntry("BUFFER_PROFILE", "ingress_lossy_profile", profile("ingress_lossy_pool", "0", "3"))
	db.SetEntry("BUFFER_PROFILE", "egress_lossless_profile", profile("egress_lossless_pool", "0", "7"))
	db.SetEntry("BUFFER_PROFILE", "egress_lossy_profile", profile("egress_lossy_pool", "9216", "7"))
	db.SetEntry("BUFFER_PROFILE", "q_lossy_profile", profile("egress_lossy_pool", "0", "3"))
	db.SetEntry("DEFAULT_LOSSLESS_BUFFER_PARAMETER", "AZURE", sonic.Entry{"default_dynamic_th": "0"})
	if dynamic {
		db.SetEntry("LOSSLESS_TRAFFIC_PATTERN", "AZURE", sonic.Entry{"mtu": "1024", "small_packet_percentage": "50"})
		return
	}

	// size / xon / xoff in bytes for 5 m cables.
	lossless := map[int][3]string{
		400000: {"250880", "19456", "231424"},
		800000: {"304128", "38912", "257024"},
	}
	speed := layoutFor(s.HWSKU).speed
	v := lossless[speed]
	db.SetEntry("BUFFER_PROFILE", lossless5m(speed), sonic.Entry{
		"pool": "ingress_lossless_pool", "size": v[0], "xon": v[1], "xoff": v[2], "dynamic_th": "0",
	})
}

func lossless5m(speed int) string { return fmt.Sprintf("pg_lossless_%d_5m_profile", speed) }
