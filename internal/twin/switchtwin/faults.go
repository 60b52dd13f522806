package switchtwin

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// faults are the injected failures waiting to happen.
type faults struct {
	mu           sync.Mutex
	failSet      []codes.Code
	failSetApply []codes.Code
	failGet      []codes.Code
	resetSet     []bool // afterApply of each queued ResetNextSet
	slowSet      time.Duration
	hold         chan struct{} // closed by HoldSets' release; nil when Sets are not held
	slowing      int           // Sets now waiting out slowSet or a hold
	// editIn counts the Gets until editAfter runs (EditAfterGets); zero when none is queued.
	editIn    int
	editAfter func()
}

// EditAfterGets writes table|key out of band (as SetEntry) once n more Gets have been
// answered: a second writer that changes the switch between two reads of one client, such
// as a plan's and the apply's.
func (t *Twin) EditAfterGets(n int, table, key string, e sonic.Entry) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	t.faults.editIn, t.faults.editAfter = n, func() { t.SetEntry(table, key, e) }
}

// countGet runs a queued EditAfterGets edit when its Get has been answered.
func (t *Twin) countGet() {
	t.faults.mu.Lock()
	var edit func()
	if t.faults.editIn > 0 {
		if t.faults.editIn--; t.faults.editIn == 0 {
			edit, t.faults.editAfter = t.faults.editAfter, nil
		}
	}
	t.faults.mu.Unlock()
	if edit != nil {
		edit()
	}
}

// FailNextSet makes the next Set fail with code before anything is applied.
// Calls queue: n calls fail the next n Sets.
func (t *Twin) FailNextSet(code codes.Code) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	t.faults.failSet = append(t.faults.failSet, code)
}

// FailNextSetButApply makes the next valid Set commit its changes and then
// fail with code anyway, as sonic-gnmi#238 reports ("Failed to apply patch"
// although the patch was applied). A Set that fails validation fails as
// usual and leaves the fault queued.
func (t *Twin) FailNextSetButApply(code codes.Code) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	t.faults.failSetApply = append(t.faults.failSetApply, code)
}

// ResetNextSet makes the next Set lose its connection: the twin resets the
// client's TCP connection (an RST, not a gRPC status), so the client learns
// only that the transport died, never whether the switch applied the Set, as
// when the gnmi container crashes or a firewall drops the session mid-call.
// With afterApply false the reset comes before anything is applied; with
// afterApply true the Set is committed first and the reset replaces its
// response. A Set that fails validation fails as usual and leaves an
// afterApply fault queued. Calls queue, in order.
func (t *Twin) ResetNextSet(afterApply bool) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	t.faults.resetSet = append(t.faults.resetSet, afterApply)
}

// FailNextGet makes the next Get fail with code. Calls queue.
func (t *Twin) FailNextGet(code codes.Code) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	t.faults.failGet = append(t.faults.failGet, code)
}

// SlowSet makes every following Set take at least d before it applies
// (validated CONFIG_DB Sets take about 20 s on real switches,
// sonic-gnmi#784). Like SONiC, a slow Set still completes when its client
// gives up waiting; it is cut short only by Stop. Zero restores speed.
func (t *Twin) SlowSet(d time.Duration) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	t.faults.slowSet = d
}

// HoldSets makes every following Set wait, before it applies, until release is called: a
// switch whose Set outlives its client, as SONiC's does (GCU keeps going when the client
// gives up), for as long as a test needs. release lets the waiting Sets apply and returns
// once they have. Stop also ends the wait, with nothing applied.
func (t *Twin) HoldSets() (release func()) {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	hold := make(chan struct{})
	t.faults.hold = hold
	return func() {
		t.faults.mu.Lock()
		if t.faults.hold == hold {
			t.faults.hold = nil
		}
		t.faults.mu.Unlock()
		close(hold)
		// A held Set keeps setMu until it has applied.
		t.setMu.Lock()
		t.setMu.Unlock() //nolint:staticcheck // an empty critical section: waiting for the held Set
	}
}

// DropConnections closes every open client connection, as a switch reboot
// or a gnmi container restart would, and returns how many it closed.
// Clients see Unavailable on calls in flight; the twin keeps serving.
func (t *Twin) DropConnections() int {
	if l := t.listener(); l != nil {
		return l.dropAll()
	}
	return 0
}

func pop(q *[]codes.Code) (codes.Code, bool) {
	if len(*q) == 0 {
		return codes.OK, false
	}
	c := (*q)[0]
	*q = (*q)[1:]
	return c, true
}

func (f *faults) takeFailSet() (codes.Code, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return pop(&f.failSet)
}

func (f *faults) takeFailGet() (codes.Code, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return pop(&f.failGet)
}

func (f *faults) takeFailSetApply() (codes.Code, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return pop(&f.failSetApply)
}

// takeReset consumes the queued ResetNextSet when it is due at this point of
// a Set: before applying (afterApply false) or after (true).
func (f *faults) takeReset(afterApply bool) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.resetSet) == 0 || f.resetSet[0] != afterApply {
		return false
	}
	f.resetSet = f.resetSet[1:]
	return true
}

// connReset is what a Set handler returns to have its connection reset. The
// interceptor resets it after recording the RPC, so a test that sees the
// failure also sees it in Stats and RPCLog. The client never receives this
// status: its connection is gone.
type connReset struct{ when string }

func (e *connReset) Error() string { return "switchtwin: injected connection reset " + e.when }

// GRPCStatus is the status the RPC log records.
func (e *connReset) GRPCStatus() *status.Status { return status.New(codes.Unavailable, e.Error()) }

// resetConn resets the connection that carries the RPC of ctx.
func (t *Twin) resetConn(ctx context.Context) {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		if l := t.listener(); l != nil {
			l.reset(p.Addr.String())
		}
	}
}

// SlowSetsWaiting returns how many Sets are now waiting out a SlowSet delay: a test that
// needs a Set in flight waits for it instead of sleeping.
func (t *Twin) SlowSetsWaiting() int {
	t.faults.mu.Lock()
	defer t.faults.mu.Unlock()
	return t.faults.slowing
}

// waiting counts a Set into (+1) or out of (-1) its SlowSet delay.
func (f *faults) waiting(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.slowing += n
}

func (f *faults) slow() (time.Duration, chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.slowSet, f.hold
}
