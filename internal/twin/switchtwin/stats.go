package switchtwin

import (
	"maps"
	"slices"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
)

// Stats are a Twin's counters since New or the last ResetStats.
type Stats struct {
	// RPCs counts calls by method name ("Capabilities", "Get", "Set",
	// "Subscribe"), refused ones included.
	RPCs map[string]int
	// Failed counts calls that returned an error, by method name.
	Failed map[string]int
	// Conns counts TCP connections.
	Conns ConnStats
}

// RPCRecord describes one RPC, for RPCLog.
type RPCRecord struct {
	Start    time.Time
	Duration time.Duration
	Method   string
	Peer     string
	Code     codes.Code
	Message  string
	// Ops lists the paths of the request, one per operation, e.g.
	// "update CONFIG_DB/localhost/WRED_PROFILE/ROCE" or "get ...".
	Ops []string
}

// recorder keeps counters and the optional RPC log.
type recorder struct {
	mu     sync.Mutex
	keep   bool
	rpcs   map[string]int
	failed map[string]int
	log    []RPCRecord
}

func newRecorder(keep bool) *recorder {
	return &recorder{keep: keep, rpcs: map[string]int{}, failed: map[string]int{}}
}

func (r *recorder) add(rec RPCRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rpcs[rec.Method]++
	if rec.Code != codes.OK {
		r.failed[rec.Method]++
	}
	if r.keep {
		r.log = append(r.log, rec)
	}
}

func (r *recorder) reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rpcs, r.failed, r.log = map[string]int{}, map[string]int{}, nil
}

// Stats returns a copy of the twin's counters.
func (t *Twin) Stats() Stats {
	t.rec.mu.Lock()
	s := Stats{RPCs: maps.Clone(t.rec.rpcs), Failed: maps.Clone(t.rec.failed)}
	t.rec.mu.Unlock()
	if l := t.listener(); l != nil {
		s.Conns = l.stats()
	}
	return s
}

// RPCLog returns the RPCs recorded so far (Options.RecordRPCs), oldest first.
func (t *Twin) RPCLog() []RPCRecord {
	t.rec.mu.Lock()
	defer t.rec.mu.Unlock()
	return slices.Clone(t.rec.log)
}

// ResetStats zeroes the RPC counters and the RPC log; connection counters
// are kept.
func (t *Twin) ResetStats() { t.rec.reset() }
