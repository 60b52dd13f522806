package sonic

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// COUNTERS_DB, as orchagent writes it and sonic-gnmi's DB client serves it (a Get whose prefix
// target is "COUNTERS_DB"): flat name maps whose Redis key is the table name, and one
// COUNTERS:<oid> hash per port or queue with SAI stat names as fields and decimal strings as
// values (sonic-swss orchagent/portsorch.cpp generateQueueMapPerPort; sonic-swss-common
// common/schema.h; sonic-gnmi sonic_data_client/db_client.go, where every table of
// COUNTERS_DB but COUNTERS and PORT_PHY_ATTR is key-less).
const (
	CountersDB           = "COUNTERS_DB"
	CountersTable        = "COUNTERS"
	CountersPortNameMap  = "COUNTERS_PORT_NAME_MAP"
	CountersQueueNameMap = "COUNTERS_QUEUE_NAME_MAP"
	CountersPGNameMap    = "COUNTERS_PG_NAME_MAP"
	PFCWatchdogStatus    = "PFC_WD_STATUS"
	PFCWatchdogStormed   = "stormed"
)

// NameMap is a COUNTERS_DB name map: COUNTERS_PORT_NAME_MAP (port -> oid) or
// COUNTERS_QUEUE_NAME_MAP ("Ethernet0:3" -> oid).
type NameMap map[string]string

// DecodeNameMap reads a name map's JSON and checks that every value is an oid.
func DecodeNameMap(table string, raw []byte) (NameMap, error) {
	var m NameMap
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s %s: %w", CountersDB, table, err)
	}
	for k, v := range m {
		if !strings.HasPrefix(v, "oid:0x") {
			return nil, fmt.Errorf("%s %s: %s maps to %q, not an oid", CountersDB, table, k, v)
		}
	}
	return m, nil
}

// ObjectOID returns the oid of queue or priority group q of port in a COUNTERS_QUEUE_NAME_MAP
// or COUNTERS_PG_NAME_MAP, whose fields are "<port>:<index>" (the ":" is portsorch's literal,
// not the database separator).
func (m NameMap) ObjectOID(port string, q int) (string, bool) {
	oid, ok := m[port+":"+strconv.Itoa(q)]
	return oid, ok
}

// CounterHash is one COUNTERS:<oid> hash: the numeric fields as counters, the rest (PFC_WD_STATUS,
// PFC_WD_ACTION) as text.
type CounterHash struct {
	Counters map[string]uint64
	Text     map[string]string
}

// DecodeCounterHash reads a COUNTERS:<oid> hash's JSON. Every value is a string; one that is a
// decimal is a counter. A field that looks numeric but overflows is an error, not text.
func DecodeCounterHash(object string, raw []byte) (CounterHash, error) {
	var m map[string]string
	if err := json.Unmarshal(raw, &m); err != nil {
		return CounterHash{}, fmt.Errorf("%s COUNTERS:%s: %w", CountersDB, object, err)
	}
	h := CounterHash{Counters: map[string]uint64{}, Text: map[string]string{}}
	for k, v := range m {
		if v == "" || strings.TrimLeft(v, "0123456789") != "" {
			h.Text[k] = v
			continue
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return CounterHash{}, fmt.Errorf("%s COUNTERS:%s: field %s: %w", CountersDB, object, k, err)
		}
		h.Counters[k] = n
	}
	return h, nil
}
