package switchtwin

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// validators are the entry checks of the tables the provider writes
// (sonic-buildimage src/sonic-yang-models/yang-models). Tables without one
// are accepted as written.
var validators = map[string]entryValidator{
	"DSCP_TO_TC_MAP":                     numberMap("DSCP_TO_TC_MAP", "dscp", 63, "tc"),
	"TC_TO_PRIORITY_GROUP_MAP":           numberMap("TC_TO_PRIORITY_GROUP_MAP", "tc", 7, "priority group"),
	"TC_TO_QUEUE_MAP":                    numberMap("TC_TO_QUEUE_MAP", "tc", 7, "queue"),
	"MAP_PFC_PRIORITY_TO_QUEUE":          numberMap("MAP_PFC_PRIORITY_TO_QUEUE", "priority", 7, "queue"),
	"PFC_PRIORITY_TO_PRIORITY_GROUP_MAP": numberMap("PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", "priority", 7, "priority group"),
	"DOT1P_TO_TC_MAP":                    numberMap("DOT1P_TO_TC_MAP", "dot1p", 7, "tc"),
	"PORT_QOS_MAP":                       portQoSMap.validator(),
	"WRED_PROFILE":                       wredProfile.validator(),
	"SCHEDULER":                          scheduler.validator(),
	"QUEUE":                              queue.validator(),
	"CABLE_LENGTH":                       validateCableLength,
	"PFC_WD":                             validatePFCWD,
	"PORT":                               port.validator(),
	"BUFFER_POOL":                        bufferPool.validator(),
	"BUFFER_PROFILE":                     bufferProfile.validator(),
	"BUFFER_PG":                          bufferPG.validator(),
	"BUFFER_QUEUE":                       bufferQueue.validator(),
}

// mapRefFields are PORT_QOS_MAP's references to map tables.
var mapRefFields = map[string]string{
	"dscp_to_tc_map":   "DSCP_TO_TC_MAP",
	"tc_to_queue_map":  "TC_TO_QUEUE_MAP",
	"tc_to_pg_map":     "TC_TO_PRIORITY_GROUP_MAP",
	"pfc_to_queue_map": "MAP_PFC_PRIORITY_TO_QUEUE",
	"pfc_to_pg_map":    "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP",
	"dot1p_to_tc_map":  "DOT1P_TO_TC_MAP",
	"tc_to_dscp_map":   "TC_TO_DSCP_MAP",
	"scheduler":        "SCHEDULER",
}

// maxMapValue is the largest TC, queue or priority group a map may name:
// Spectrum switches have eight of each.
const maxMapValue = 7

// numberMap validates a map table whose fields and values are small
// integers, e.g. DSCP_TO_TC_MAP "26": "3".
func numberMap(table, from string, maxFrom uint64, to string) entryValidator {
	return func(key string, e sonic.Entry) []error {
		var errs []error
		if !objectName.MatchString(key) {
			errs = append(errs, entryError(table, key, "key: must be a map name of up to 32 letters, digits, '-' or '_', starting with a letter or digit"))
		}
		for _, f := range sortedKeys(e) {
			if p := uintRange(0, maxFrom)(f); p != "" {
				errs = append(errs, fieldError(table, key, f, e[f], fmt.Sprintf("field name must be a %s in 0..%d", from, maxFrom)))
				continue
			}
			if p := uintRange(0, maxMapValue)(e[f]); p != "" {
				errs = append(errs, fieldError(table, key, f, e[f], fmt.Sprintf("value must be a %s in 0..%d", to, maxMapValue)))
			}
		}
		return errs
	}
}

var portQoSMap = func() schema {
	s := schema{
		table: "PORT_QOS_MAP",
		key: func(k string) string {
			if k == "global" || portNameRe.MatchString(k) {
				return ""
			}
			return "must be a port name or global"
		},
		fields: map[string]check{
			"pfc_enable":      matches(priorityList, "a comma list of priorities 0..7, e.g. \"3\" or \"3,4\""),
			"pfcwd_sw_enable": matches(priorityList, "a comma list of priorities 0..7, e.g. \"3\" or \"3,4\""),
		},
	}
	for field, table := range mapRefFields {
		s.fields[field] = refName(table)
	}
	return s
}()

var wredProfile = func() schema {
	s := schema{
		table:  "WRED_PROFILE",
		key:    matches(wredName, "a profile name matching [a-zA-Z0-9][-a-zA-Z0-9_]{0,31}"),
		fields: map[string]check{"ecn": oneOf("ecn_none", "ecn_green", "ecn_yellow", "ecn_red", "ecn_green_yellow", "ecn_green_red", "ecn_yellow_red", "ecn_all")},
		extra:  wredThresholdOrder,
	}
	for _, color := range []string{"green", "yellow", "red"} {
		s.fields[color+"_min_threshold"] = byteCount
		s.fields[color+"_max_threshold"] = byteCount
		s.fields[color+"_drop_probability"] = uintRange(0, 100)
		s.fields["wred_"+color+"_enable"] = oneOf("true", "false")
	}
	return s
}()

// wredThresholdOrder checks min <= max for each color that has both.
func wredThresholdOrder(key string, e sonic.Entry) []error {
	var errs []error
	for _, color := range []string{"green", "yellow", "red"} {
		minV, okMin := e[color+"_min_threshold"]
		maxV, okMax := e[color+"_max_threshold"]
		if !okMin || !okMax {
			continue
		}
		lo, _ := strconv.ParseUint(minV, 10, 64)
		hi, _ := strconv.ParseUint(maxV, 10, 64)
		if lo > hi {
			errs = append(errs, fieldError("WRED_PROFILE", key, color+"_min_threshold", minV,
				fmt.Sprintf("must not exceed %s_max_threshold %s", color, maxV)))
		}
	}
	return errs
}

var scheduler = schema{
	table: "SCHEDULER",
	// sonic-scheduler.yang has no pattern on the name (sonic-buildimage #9873); only the
	// key separator cannot be part of it.
	key: func(k string) string {
		if k == "" || strings.Contains(k, "|") {
			return "must be a scheduler name without '|'"
		}
		return ""
	},
	fields: map[string]check{
		"type":       oneOf("DWRR", "WRR", "STRICT"),
		"weight":     uintRange(1, 100),
		"priority":   uintRange(0, 9),
		"meter_type": oneOf("packets", "bytes"),
		"cir":        byteCount, "pir": byteCount,
		"cbs": uint32Value, "pbs": uint32Value,
	},
}

var queue = schema{
	table:  "QUEUE",
	key:    matches(portQueueKey, "<port>|<queue 0..15 or a-b>"),
	fields: map[string]check{"scheduler": refName("SCHEDULER"), "wred_profile": refName("WRED_PROFILE")},
}

func validateCableLength(key string, e sonic.Entry) []error {
	var errs []error
	for _, port := range sortedKeys(e) {
		if !portNameRe.MatchString(port) {
			errs = append(errs, fieldError("CABLE_LENGTH", key, port, e[port], "field name must be a port name"))
		}
		if !cableLength.MatchString(e[port]) {
			errs = append(errs, fieldError("CABLE_LENGTH", key, port, e[port], "must be a length in meters such as \"5m\""))
		}
	}
	return errs
}

var (
	// pfcwdGlobal is PFC_WD|GLOBAL: sonic-pfcwd.yang has only POLL_INTERVAL there (its
	// range depends on the release, see validateRules; BIG_RED_SWITCH has no leaf, so GCU
	// refuses it).
	pfcwdGlobal = schema{
		table:  "PFC_WD",
		fields: map[string]check{"POLL_INTERVAL": uintRange(100, 3000)},
	}
	pfcwdPort = schema{
		table: "PFC_WD",
		key:   matches(portNameRe, "a port name or GLOBAL"),
		fields: map[string]check{
			"action":           oneOf("drop", "forward", "alert"),
			"detection_time":   uintRange(100, 5000),
			"restoration_time": uintRange(100, 60000),
			"pfc_stat_history": oneOf("enable", "disable"), // 202511+, see validateRules
		},
	}
)

func validatePFCWD(key string, e sonic.Entry) []error {
	if key == "GLOBAL" {
		return pfcwdGlobal.validator()(key, e)
	}
	return pfcwdPort.validator()(key, e)
}

var port = schema{
	table:    "PORT",
	open:     true,
	required: []string{"lanes"},
	fields: map[string]check{
		"lanes":        matches(laneList, "a comma list of lane numbers"),
		"mtu":          uintRange(68, 9216),
		"admin_status": oneOf("up", "down"),
		"pfc_asym":     oneOf("on", "off"),
		"fec":          oneOf("rs", "fc", "none", "auto"),
		"autoneg":      oneOf("on", "off"),
		"index":        uintRange(0, 1024),
		"speed":        uintRange(1, 1600000),
	},
	extra: portSpeed,
}

// portSpeed checks speed against what the port's lanes support, like GCU's
// port_config_update_validator does with STATE_DB supported_speeds.
func portSpeed(key string, e sonic.Entry) []error {
	speed, ok := e["speed"]
	if !ok {
		return nil
	}
	n, _ := strconv.Atoi(speed)
	supported := supportedSpeeds(len(strings.Split(e["lanes"], ",")))
	for _, s := range supported {
		if s == n {
			return nil
		}
	}
	list := make([]string, len(supported))
	for i, s := range supported {
		list[i] = strconv.Itoa(s)
	}
	return []error{fieldError("PORT", key, "speed", speed, "not a supported speed of this port ("+strings.Join(list, ", ")+")")}
}

var bufferPool = schema{
	table:    "BUFFER_POOL",
	key:      matches(objectName, "a pool name"),
	required: []string{"type", "mode"},
	fields: map[string]check{
		"type":       oneOf("ingress", "egress", "both"),
		"mode":       oneOf("static", "dynamic"),
		"size":       byteCount,
		"xoff":       byteCount,
		"percentage": uintRange(0, 100),
	},
}

var bufferProfile = schema{
	table:    "BUFFER_PROFILE",
	key:      matches(objectName, "a profile name"),
	required: []string{"pool", "size"},
	fields: map[string]check{
		"pool":                  refName("BUFFER_POOL"),
		"size":                  byteCount,
		"dynamic_th":            intRange(-8, 7),
		"static_th":             byteCount,
		"xon":                   byteCount,
		"xoff":                  byteCount,
		"xon_offset":            byteCount,
		"headroom_type":         oneOf("static", "dynamic"),
		"packet_discard_action": oneOf("drop", "trim"),
	},
	extra: func(key string, e sonic.Entry) []error {
		_, dyn := e["dynamic_th"]
		_, static := e["static_th"]
		if dyn == static {
			return []error{entryError("BUFFER_PROFILE", key, "exactly one of dynamic_th and static_th is required")}
		}
		return nil
	},
}

// bufferProfileRef accepts a BUFFER_PROFILE name or "NULL" (let the dynamic
// buffer manager compute the profile).
func bufferProfileRef(v string) string {
	if v == "NULL" {
		return ""
	}
	return refName("BUFFER_PROFILE")(v)
}

var (
	bufferPG = schema{
		table:    "BUFFER_PG",
		key:      matches(portPGKey, "<port>|<priority group 0..7 or a-b>"),
		required: []string{"profile"},
		fields:   map[string]check{"profile": bufferProfileRef},
	}
	bufferQueue = schema{
		table:    "BUFFER_QUEUE",
		key:      matches(portQueueKey, "<port>|<queue 0..15 or a-b>"),
		required: []string{"profile"},
		fields:   map[string]check{"profile": bufferProfileRef},
	}
)
