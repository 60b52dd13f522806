package switchtwin

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// Twin is a SONiC-like gNMI server for one switch. Create it with New, serve
// with Start, end with Stop. Its methods are safe for concurrent use.
type Twin struct {
	gpb.UnimplementedGNMIServer

	s      settings
	rec    *recorder
	faults faults

	dbMu sync.Mutex // guards db
	db   sonic.DB
	bufs bufferDaemon
	// counters is COUNTERS_DB, which traffic (AddPortCounters, AddQueueCounters) moves.
	counters *counterStore

	setMu sync.Mutex // one Set at a time, as GCU's single checkpoint needs

	runMu   sync.Mutex // guards server, lis, addr
	server  *grpc.Server
	lis     *capListener
	addr    string
	stopped chan struct{} // closed by Stop
	served  chan struct{} // closed when Serve returns
}

// New returns a stopped twin with CONFIG_DB seeded with SN5600 defaults.
func New(opts Options) (*Twin, error) {
	s, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	db := seed(s)
	var bufs bufferDaemon = newBufferManager(s.release, db)
	if s.BufferModel == BufferModelDynamic {
		bufs = newDynamicBufferManager(s.release, db)
	}
	counters := newCounterStore(db)
	counters.syncWatchdog(db)
	return &Twin{s: s, rec: newRecorder(s.RecordRPCs), db: db, bufs: bufs, counters: counters, stopped: make(chan struct{})}, nil
}

// bufferDaemon is the buffer manager SONiC runs: buffermgrd.sh starts one, picked by the
// buffer_model at start (a later change takes a config reload, which the twin does not model).
type bufferDaemon interface {
	// react updates after, which a Set has just moved from before, as the daemon would.
	react(before, after sonic.DB)
	Log() []string
	// ApplDB returns the APPL_DB buffer tables the daemon wrote.
	ApplDB() sonic.DB
}

// Start listens on addr ("127.0.0.1:0" when empty) and serves gNMI in the
// background until Stop. It returns the address actually bound.
func (t *Twin) Start(addr string) (string, error) {
	t.runMu.Lock()
	defer t.runMu.Unlock()
	if t.server != nil {
		return "", fmt.Errorf("switchtwin start %s: already started on %s", addr, t.addr)
	}
	select {
	case <-t.stopped:
		return "", fmt.Errorf("switchtwin start %s: twin was stopped", addr)
	default:
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("switchtwin start %s: %w", addr, err)
	}
	t.lis = newCapListener(l, t.s.MaxConns)
	t.server = grpc.NewServer(t.serverOptions()...)
	gpb.RegisterGNMIServer(t.server, t)
	t.addr = l.Addr().String()
	t.served = make(chan struct{})
	go func(srv *grpc.Server, lis net.Listener, done chan<- struct{}) {
		defer close(done)
		_ = srv.Serve(lis) // returns when Stop closes the listener
	}(t.server, t.lis, t.served)
	t.s.Logger.Info("switchtwin started", "addr", t.addr, "release", t.s.release.String(), "hwsku", t.s.HWSKU, "tls", t.s.TLS != nil)
	return t.addr, nil
}

func (t *Twin) serverOptions() []grpc.ServerOption {
	opts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(t.unaryInterceptor),
		grpc.ChainStreamInterceptor(t.streamInterceptor),
		// SONiC 202411 and 202505 set no policy and get exactly this (see
		// DefaultKeepaliveMinTime).
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: t.s.KeepaliveMinTime, PermitWithoutStream: false}),
	}
	if t.s.IdleTimeout > 0 {
		opts = append(opts, grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: t.s.IdleTimeout}))
	}
	if cfg := t.s.TLS; cfg != nil {
		cfg = cfg.Clone()
		if cfg.ClientCAs != nil && cfg.ClientAuth == tls.NoClientCert {
			cfg.ClientAuth = tls.RequireAndVerifyClientCert
		}
		opts = append(opts, grpc.Creds(credentials.NewTLS(cfg)))
	}
	return opts
}

// Addr returns the address the twin listens on, or "" before Start.
func (t *Twin) Addr() string {
	t.runMu.Lock()
	defer t.runMu.Unlock()
	return t.addr
}

// Stop closes the listener and every connection, cancels RPCs in flight
// and waits for the server goroutine to end. It is safe to call more than
// once and before Start.
func (t *Twin) Stop() {
	t.runMu.Lock()
	defer t.runMu.Unlock()
	select {
	case <-t.stopped:
		return
	default:
		close(t.stopped)
	}
	if t.server == nil {
		return
	}
	t.server.Stop()
	<-t.served
	t.s.Logger.Info("switchtwin stopped", "addr", t.addr)
}

// Release returns the SONiC release the twin runs.
func (t *Twin) Release() sonic.Release { return t.s.release }

func (t *Twin) listener() *capListener {
	t.runMu.Lock()
	defer t.runMu.Unlock()
	return t.lis
}

// errStopped is returned by RPCs cut short by Stop.
var errStopped = errors.New("switchtwin stopped")

// BufferManagerLog returns what the twin's buffer manager logged (buffermgrd's messages, such
// as "No PG profile configured for speed 400000 and cable length 10m"), oldest first.
func (t *Twin) BufferManagerLog() []string { return t.bufs.Log() }

// ApplDB returns a copy of the APPL_DB buffer tables (BUFFER_PG_TABLE, BUFFER_PROFILE_TABLE)
// the dynamic buffer manager wrote; empty in the traditional model, which keeps its results in
// CONFIG_DB.
func (t *Twin) ApplDB() sonic.DB { return t.bufs.ApplDB() }
