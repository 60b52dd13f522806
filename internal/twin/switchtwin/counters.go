package switchtwin

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// COUNTERS_DB as orchagent lays it out (sonic-swss orchagent/portsorch.cpp
// generateQueueMapPerPort; sonic-swss-common common/schema.h): flat name maps
// whose Redis key is the table name (COUNTERS_PORT_NAME_MAP: port -> oid;
// COUNTERS_QUEUE_NAME_MAP: "Ethernet0:3" -> queue oid; TYPE and INDEX maps
// keyed by queue oid) and one COUNTERS:<oid> hash per object whose fields are
// SAI stat names with decimal string values. Queue hashes of PFC-watchdog
// ports also carry pfcwdorch's PFC_WD_* fields (orchagent/pfcactionhandler.cpp).
const (
	countersDB       = "COUNTERS_DB"
	countersTable    = "COUNTERS"
	portNameMap      = "COUNTERS_PORT_NAME_MAP"
	queueNameMap     = "COUNTERS_QUEUE_NAME_MAP"
	queueTypeMap     = "COUNTERS_QUEUE_TYPE_MAP"
	queueIndexMap    = "COUNTERS_QUEUE_INDEX_MAP"
	queuePortMap     = "COUNTERS_QUEUE_PORT_MAP"
	pgNameMap        = "COUNTERS_PG_NAME_MAP"
	priorityGroups   = 8
	pgOIDBase        = 0x1a000000000000
	unicastQueues    = 8 // UC0..UC7; the twin models no multicast queues
	queueTypeUnicast = "SAI_QUEUE_TYPE_UNICAST"
	portOIDBase      = 0x1000000000000
	queueOIDBase     = 0x15000000000000
	queueOIDsPerPort = 0x40
	pfcwdStatusField = "PFC_WD_STATUS"
	pfcwdOperational = "operational"
	pfcwdStormed     = "stormed"
	pfcwdDetected    = "PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED"
	pfcwdRestored    = "PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED"
)

// portStatNames are the port hash's fields: the PORT flex group's PFC counters
// (portsorch.cpp port_stat_ids) and the pause durations pfcwd adds on
// Mellanox (orchagent/orchdaemon.cpp).
func portStatNames() []string {
	names := []string{"SAI_PORT_STAT_IF_IN_DISCARDS", "SAI_PORT_STAT_IF_OUT_DISCARDS", "SAI_PORT_STAT_PAUSE_RX_PKTS", "SAI_PORT_STAT_PAUSE_TX_PKTS"}
	for p := range 8 {
		names = append(names, fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PKTS", p), fmt.Sprintf("SAI_PORT_STAT_PFC_%d_TX_PKTS", p),
			fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PAUSE_DURATION_US", p))
	}
	return names
}

// queueStatNames are the QUEUE and WRED_ECN_QUEUE flex groups (portsorch.cpp queue_stat_ids,
// wred_queue_stat_ids).
var queueStatNames = []string{"SAI_QUEUE_STAT_PACKETS", "SAI_QUEUE_STAT_BYTES", "SAI_QUEUE_STAT_DROPPED_PACKETS",
	"SAI_QUEUE_STAT_DROPPED_BYTES", "SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS", "SAI_QUEUE_STAT_WRED_ECN_MARKED_BYTES",
	"SAI_QUEUE_STAT_WRED_DROPPED_PACKETS", "SAI_QUEUE_STAT_WRED_DROPPED_BYTES"}

// pgStatNames are the ingress priority groups' PG_DROP counter (portsorch.cpp
// ingressPriorityGroupDropStatIds; sonic-utilities scripts/pg-drop). The twin serves the PG
// name map as a switch with the PG_DROP or PG_WATERMARK flex counters on does; one with both
// off has none (flexcounterorch.cpp), which readers must take.
var pgStatNames = []string{"SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"}

// counterStore is the twin's COUNTERS_DB. Objects get their oids when the
// twin starts, from the PORT table, as orchagent creates them at port init.
type counterStore struct {
	mu     sync.Mutex
	ports  map[string]string            // port name -> oid
	queues map[string]string            // "Ethernet0:3" -> oid
	pgs    map[string]string            // "Ethernet0:3" -> ingress priority group oid
	stats  map[string]map[string]uint64 // oid -> SAI stat -> value
	// text are the non-counter fields pfcwdorch writes on a watched queue (PFC_WD_ACTION, the
	// times in microseconds, PFC_WD_STATUS) by oid.
	text map[string]map[string]string
	// published are the SAI stats as the last poll of their flex counter group wrote them to
	// COUNTERS_DB (reads see these; traffic moves stats), and polled when each group last ran.
	published map[string]map[string]uint64
	polled    map[string]time.Time
}

// Flex counter groups (CONFIG_DB FLEX_COUNTER_TABLE keys) and their poll intervals when
// POLL_INTERVAL is not set (sonic-swss orchagent/portsorch.cpp: PORT 1000 ms, QUEUE and
// WRED_ECN_QUEUE 10000 ms, PG_DROP 10000 ms). PFC watchdog stats are not flex counters:
// pfcwdorch writes them on its own poll (PFC_WD GLOBAL POLL_INTERVAL, 200 ms by default),
// and the twin serves them as they are.
var flexGroups = map[string]time.Duration{"PORT": time.Second, "QUEUE": 10 * time.Second, "WRED_ECN_QUEUE": 10 * time.Second, "PG_DROP": 10 * time.Second}

// flexGroup is the group that polls stat of an object of kind ("port", "queue", "pg"); "" for
// the watchdog's.
func flexGroup(kind, stat string) string {
	switch {
	case strings.HasPrefix(stat, "PFC_WD_"):
		return ""
	case kind == "port":
		return "PORT"
	case kind == "pg":
		return "PG_DROP"
	case strings.Contains(stat, "_WRED_"):
		return "WRED_ECN_QUEUE"
	}
	return "QUEUE"
}

// poll runs every group whose interval (from intervals, else flexGroups) has passed since its
// last run at now, copying its stats to published; all, when intervals is nil. The caller
// holds c.mu.
func (c *counterStore) poll(now time.Time, intervals map[string]time.Duration) {
	due := map[string]bool{}
	for g, def := range flexGroups {
		every, ok := intervals[g]
		if !ok {
			every = def
		}
		if last := c.polled[g]; intervals == nil || now.Sub(last) >= every {
			due[g] = true
			if intervals == nil || every <= 0 {
				c.polled[g] = now
			} else {
				c.polled[g] = last.Add(time.Duration(int64(now.Sub(last)/every)) * every) // keep the poll's phase
			}
		}
	}
	publish := func(oids map[string]string, kind string) {
		for _, oid := range oids {
			for stat, v := range c.stats[oid] {
				if g := flexGroup(kind, stat); g != "" && due[g] {
					if c.published[oid] == nil {
						c.published[oid] = map[string]uint64{}
					}
					c.published[oid][stat] = v
				}
			}
		}
	}
	publish(c.ports, "port")
	publish(c.queues, "queue")
	publish(c.pgs, "pg")
}

// view is an object's hash as COUNTERS_DB holds it: published SAI stats, live watchdog stats.
func (c *counterStore) view(oid string) map[string]uint64 {
	out := make(map[string]uint64, len(c.stats[oid]))
	for stat, v := range c.stats[oid] {
		if strings.HasPrefix(stat, "PFC_WD_") {
			out[stat] = v
		} else {
			out[stat] = c.published[oid][stat]
		}
	}
	return out
}

// PollCounters runs every flex counter group now, as if each group's poll came due: a test
// that moved counters reads them at once.
func (t *Twin) PollCounters() {
	t.counters.mu.Lock()
	defer t.counters.mu.Unlock()
	t.counters.poll(time.Now(), nil)
}

// pollIntervals are the flex counter groups' POLL_INTERVAL in CONFIG_DB (counterpoll <group>
// interval), where set.
func (t *Twin) pollIntervals() map[string]time.Duration {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	out := map[string]time.Duration{}
	for g := range flexGroups {
		if ms, err := strconv.Atoi(t.db["FLEX_COUNTER_TABLE"][g]["POLL_INTERVAL"]); err == nil {
			out[g] = time.Duration(ms) * time.Millisecond
		}
	}
	return out
}

func newCounterStore(db sonic.DB) *counterStore {
	c := &counterStore{ports: map[string]string{}, queues: map[string]string{}, pgs: map[string]string{}, stats: map[string]map[string]uint64{}, text: map[string]map[string]string{},
		published: map[string]map[string]uint64{}, polled: map[string]time.Time{}}
	for g := range flexGroups {
		c.polled[g] = time.Now()
	}
	names := slices.SortedFunc(maps.Keys(db["PORT"]), sonic.NaturalCompare)
	for i, name := range names {
		poid := fmt.Sprintf("oid:0x%x", portOIDBase+i+1)
		c.ports[name] = poid
		c.stats[poid] = zeroed(portStatNames())
		for q := range unicastQueues {
			qoid := fmt.Sprintf("oid:0x%x", queueOIDBase+i*queueOIDsPerPort+q)
			c.queues[name+":"+strconv.Itoa(q)] = qoid
			c.stats[qoid] = zeroed(queueStatNames)
		}
		for pg := range priorityGroups {
			goid := fmt.Sprintf("oid:0x%x", pgOIDBase+i*queueOIDsPerPort+pg)
			c.pgs[name+":"+strconv.Itoa(pg)] = goid
			c.stats[goid] = zeroed(pgStatNames)
		}
	}
	return c
}

func zeroed(names []string) map[string]uint64 {
	m := make(map[string]uint64, len(names))
	for _, n := range names {
		m[n] = 0
	}
	return m
}

// AddPortCounters adds to port's SAI port stats, as traffic would; an unknown port or stat is an error.
func (t *Twin) AddPortCounters(port string, add map[string]uint64) error {
	return t.counters.add(t.counters.ports, port, "port", add)
}

// AddQueueCounters adds to the SAI queue stats of unicast queue q of port.
func (t *Twin) AddQueueCounters(port string, q int, add map[string]uint64) error {
	for _, f := range []string{pfcwdDetected, pfcwdRestored} {
		if _, ok := add[f]; ok {
			return fmt.Errorf("switchtwin: %s moves only with the storm state: use SetQueueStormed", f)
		}
	}
	return t.counters.add(t.counters.queues, port+":"+strconv.Itoa(q), "queue", add)
}

// AddPGCounters adds to the ingress priority group pg of port (its drops when the port did not
// pause the sender in time).
func (t *Twin) AddPGCounters(port string, pg int, add map[string]uint64) error {
	return t.counters.add(t.counters.pgs, port+":"+strconv.Itoa(pg), "priority group", add)
}

// add adds to the stats of the object names maps to oids; every stat must exist.
func (c *counterStore) add(names map[string]string, name, kind string, add map[string]uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	oid, ok := names[name]
	if !ok {
		return fmt.Errorf("switchtwin: no %s %s", kind, name)
	}
	return addStats(c.stats[oid], name, add)
}

func addStats(st map[string]uint64, object string, add map[string]uint64) error {
	for k := range add {
		if _, ok := st[k]; !ok {
			return fmt.Errorf("switchtwin: %s has no counter %s", object, k)
		}
	}
	for k, v := range add {
		st[k] += v
	}
	return nil
}

// syncWatchdog gives the queues pfcwdorch watches (ports of PFC_WD, priorities of their
// pfc_enable) their PFC_WD_* fields, and takes them from queues it no longer watches, as
// pfcwdorch does when the watchdog is started or stopped on a port.
func (c *counterStore) syncWatchdog(db sonic.DB) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for qname, oid := range c.queues {
		port, idx, _ := strings.Cut(qname, ":")
		wd, watched := db.Entry("PFC_WD", port)
		if watched {
			qm, _ := db.Entry("PORT_QOS_MAP", port)
			watched = slices.Contains(strings.Split(qm["pfc_enable"], ","), idx)
		}
		st := c.stats[oid]
		if !watched {
			delete(st, pfcwdDetected)
			delete(st, pfcwdRestored)
			delete(c.text, oid)
			continue
		}
		if _, has := st[pfcwdDetected]; !has {
			st[pfcwdDetected], st[pfcwdRestored] = 0, 0
		}
		// pfcwdsworch.cpp writes the times in microseconds (CONFIG_DB holds milliseconds).
		t := map[string]string{"PFC_WD_ACTION": wd["action"], pfcwdStatusField: pfcwdOperational,
			"PFC_WD_DETECTION_TIME": msToMicros(wd["detection_time"]), "PFC_WD_RESTORATION_TIME": msToMicros(wd["restoration_time"])}
		if old, ok := c.text[oid]; ok {
			t[pfcwdStatusField] = old[pfcwdStatusField]
		}
		c.text[oid] = t
	}
}

func msToMicros(ms string) string {
	n, err := strconv.Atoi(ms)
	if err != nil {
		return ms
	}
	return strconv.Itoa(n * 1000)
}

// ErrNotWatched is SetQueueStormed's error for a queue the PFC watchdog does not watch.
var ErrNotWatched = errors.New("the PFC watchdog does not watch this queue")

// SetQueueStormed puts a watched queue in the PFC watchdog's storm state or takes it out,
// counting the detection or the restoration as pfcwdorch does (pfcactionhandler.cpp).
func (t *Twin) SetQueueStormed(port string, q int, stormed bool) error {
	c := t.counters
	c.mu.Lock()
	defer c.mu.Unlock()
	oid, ok := c.queues[port+":"+strconv.Itoa(q)]
	if !ok {
		return fmt.Errorf("switchtwin: no queue %s:%d", port, q)
	}
	tx, watched := c.text[oid]
	if !watched {
		return fmt.Errorf("switchtwin: queue %s:%d: %w (no PFC_WD|%s or priority %d not in pfc_enable)", port, q, ErrNotWatched, port, q)
	}
	was := tx[pfcwdStatusField] == pfcwdStormed
	switch {
	case stormed && !was:
		c.stats[oid][pfcwdDetected]++
		tx[pfcwdStatusField] = pfcwdStormed
	case !stormed && was:
		c.stats[oid][pfcwdRestored]++
		tx[pfcwdStatusField] = pfcwdOperational
	}
	return nil
}

// getCounters answers a Get whose prefix target is COUNTERS_DB, as sonic-gnmi's DB client
// does (sonic_data_client/db_client.go): the name maps as flat hashes, COUNTERS/<oid> as one
// object's hash, COUNTERS/<port name> through the port name map, and a single field of one
// object as a string. Values are json_ietf_val whatever JSON encoding was asked for. The client
// loads the alias map from every CONFIG_DB PORT entry for any COUNTERS_DB path (parsePath,
// virtual_db.go GetAliasMap), so one port without an alias fails every such Get.
func (t *Twin) getCounters(req *gpb.GetRequest) (*gpb.GetResponse, error) {
	if ns := strings.TrimPrefix(req.GetPrefix().GetTarget(), countersDB); ns != "" {
		return nil, status.Errorf(codes.NotFound, "switchtwin: namespace %s is not modelled (single-ASIC switch)", strings.TrimPrefix(ns, "/"))
	}
	if err := t.requireAliases(); err != nil { // before counters.mu: Set holds dbMu while it takes counters.mu
		return nil, err
	}
	counted, intervals := t.countedBuffers(), t.pollIntervals()
	t.counters.mu.Lock()
	defer t.counters.mu.Unlock()
	t.counters.poll(time.Now(), intervals)
	resp := &gpb.GetResponse{}
	for _, p := range req.GetPath() {
		var names []string
		for _, e := range append(slices.Clone(req.GetPrefix().GetElem()), p.GetElem()...) {
			names = append(names, e.GetName())
		}
		val, err := t.counterValue(names, counted)
		if err != nil {
			return nil, err
		}
		resp.Notification = append(resp.Notification, &gpb.Notification{
			Timestamp: time.Now().UnixNano(), Prefix: req.GetPrefix(),
			Update: []*gpb.Update{{Path: p, Val: val}},
		})
	}
	return resp, nil
}

// counterValue resolves one path of COUNTERS_DB; counted, when not nil, are the only queues
// and priority groups the name maps list. The caller holds t.counters.mu.
func (t *Twin) counterValue(names []string, counted map[string]bool) (*gpb.TypedValue, error) {
	c := t.counters
	notFound := func() error {
		return status.Errorf(codes.NotFound, "No valid entry found on %s with key %s", countersDB, strings.Join(names, ":"))
	}
	if len(names) == 0 {
		return nil, status.Error(codes.NotFound, "switchtwin: empty COUNTERS_DB path")
	}
	if len(names) == 1 {
		var m map[string]string
		switch names[0] {
		case portNameMap:
			m = maps.Clone(c.ports)
		case queueNameMap:
			m = onlyCounted(c.queues, counted, "BUFFER_QUEUE")
		case pgNameMap:
			m = onlyCounted(c.pgs, counted, "BUFFER_PG")
		case queueTypeMap, queueIndexMap, queuePortMap:
			m = map[string]string{}
			for qname, oid := range c.queues {
				port, idx, _ := strings.Cut(qname, ":")
				m[oid] = map[string]string{queueTypeMap: queueTypeUnicast, queueIndexMap: idx, queuePortMap: c.ports[port]}[names[0]]
			}
		default:
			return nil, notFound()
		}
		return jsonIETF(m)
	}
	if len(names) > 3 || names[0] != countersTable {
		return nil, notFound()
	}
	oid := names[1]
	if !strings.HasPrefix(oid, "oid:") {
		var ok bool
		if oid, ok = c.ports[names[1]]; !ok {
			return nil, status.Errorf(codes.NotFound, "%s not a valid port name", names[1])
		}
	}
	if _, ok := c.stats[oid]; !ok {
		return nil, notFound()
	}
	st := c.view(oid)
	if len(names) == 3 {
		v, ok := st[names[2]]
		if !ok {
			return nil, notFound()
		}
		return &gpb.TypedValue{Value: &gpb.TypedValue_StringVal{StringVal: strconv.FormatUint(v, 10)}}, nil
	}
	m := make(map[string]string, len(st)+1)
	for k, v := range st {
		m[k] = strconv.FormatUint(v, 10)
	}
	maps.Copy(m, c.text[oid])
	return jsonIETF(m)
}

// countedBuffers are, while DEVICE_METADATA create_only_config_db_buffers is "true", the
// BUFFER_QUEUE and BUFFER_PG objects that have a profile, as "BUFFER_QUEUE|Ethernet0:3";
// nil while it is off, when orchagent counts every queue and priority group
// (sonic-swss orchagent/flexcounterorch.cpp getQueueConfigurations, getPgConfigurations).
// Keys are "<port>|<index or a-b range>", a port list allowed ("Ethernet0,Ethernet4|3-4").
func (t *Twin) countedBuffers() map[string]bool {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	if t.db["DEVICE_METADATA"]["localhost"]["create_only_config_db_buffers"] != "true" {
		return nil
	}
	out := map[string]bool{}
	for _, table := range []string{"BUFFER_QUEUE", "BUFFER_PG"} {
		for key, e := range t.db[table] {
			if e["profile"] == "" {
				continue
			}
			ports, idx, ok := strings.Cut(key, "|")
			if !ok {
				continue
			}
			lo, hi, isRange := strings.Cut(idx, "-")
			if !isRange {
				hi = lo
			}
			a, errA := strconv.Atoi(lo)
			b, errB := strconv.Atoi(hi)
			if errA != nil || errB != nil {
				continue
			}
			for _, port := range strings.Split(ports, ",") {
				for i := a; i <= b; i++ {
					out[table+"|"+port+":"+strconv.Itoa(i)] = true
				}
			}
		}
	}
	return out
}

// onlyCounted is the name map m ("Ethernet0:3" -> oid) with only the objects of table that
// counted lists; all of m when counted is nil.
func onlyCounted(m map[string]string, counted map[string]bool, table string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		if counted == nil || counted[table+"|"+k] {
			out[k] = v
		}
	}
	return out
}

// requireAliases fails as sonic-gnmi's COUNTERS_DB client does when a CONFIG_DB PORT entry has
// no alias (sonic_data_client/virtual_db.go GetAliasMap).
func (t *Twin) requireAliases() error {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	for name, e := range t.db["PORT"] {
		if e["alias"] == "" {
			return status.Errorf(codes.NotFound, "alias field not found for port %s in CONFIG_DB", name)
		}
	}
	return nil
}

func jsonIETF(v any) (*gpb.TypedValue, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encode: %v", err)
	}
	return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}, nil
}
