package switchtwin

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// Defaults of Options.
const (
	DefaultRelease     = "202411"
	DefaultPlatform    = "x86_64-nvidia_sn5600-r0"
	DefaultHWSKU       = "Mellanox-SN5600-O128"
	DefaultPorts       = 32
	DefaultIdleTimeout = 5 * time.Second
	DefaultMaxConns    = 100
	// DefaultKeepaliveMinTime is grpc-go's default keepalive EnforcementPolicy.MinTime,
	// which sonic-net/sonic-gnmi telemetry/telemetry.go keeps on branches 202411
	// (d04415890d8b) and 202505 (9e9223d80b85) by setting no policy. Branch 202511
	// (5fe67765feeb) and later allow 20 s and pings without a call in flight; the twin
	// keeps the stricter policy for every release.
	DefaultKeepaliveMinTime = 5 * time.Minute
)

// Options configures a Twin. The zero value is a plaintext, unauthenticated
// SN5600 on SONiC 202411 with 32 ports.
type Options struct {
	// Release is the SONiC release the twin runs, in any form
	// sonic.ParseRelease reads ("202411", "202505", "SONiC.202511.12").
	// It selects the GCU allowlist. Default DefaultRelease.
	Release string
	// BuildVersion is what OTHERS/osversion/build reports. Default
	// "SONiC.<release>.0-switchtwin".
	BuildVersion string
	// Platform is DEVICE_METADATA|localhost platform. Default
	// DefaultPlatform.
	Platform string
	// HWSKU is DEVICE_METADATA|localhost hwsku. It selects the port layout
	// ("ACS-SN5600": 800G ports Ethernet0, 8, 16...; any other SKU: the
	// Mellanox-SN5600-O128 layout of 400G ports Ethernet0, 4, 8...) and the
	// GCU ASIC family. Default DefaultHWSKU.
	HWSKU string
	// Ports is how many front-panel ports exist (a prefix of the SKU's
	// port_config.ini: at most 64 for ACS-SN5600, 128 otherwise). Default
	// DefaultPorts.
	Ports int
	// Username and Password, when set, are required in the gRPC metadata
	// keys "username" and "password" of every RPC.
	Username string
	Password string
	// TLS enables TLS. With ClientCAs set, client certificates are required
	// and verified (mTLS) unless ClientAuth says otherwise. Nil means
	// plaintext.
	TLS *tls.Config
	// IdleTimeout closes connections without RPCs for this long (SONiC
	// --idle_conn_duration). Default DefaultIdleTimeout; negative disables.
	IdleTimeout time.Duration
	// MaxConns caps open connections; further ones are closed on accept
	// (SONiC --threshold). Default DefaultMaxConns; negative disables.
	MaxConns int
	// KeepaliveMinTime is the shortest interval between a client's keepalive pings
	// that the twin tolerates while a call is in flight; pings on a connection without
	// a call offend unless two hours apart (grpc-go's rule without PermitWithoutStream).
	// Like SONiC's grpc-go server, the twin closes a connection with GOAWAY
	// too_many_pings on the third offending ping, failing its calls; anything the server
	// sends clears the count. Tests shorten it to scale the policy down. Default
	// DefaultKeepaliveMinTime; negative is an error.
	KeepaliveMinTime time.Duration
	// Logger receives one record per RPC. Nil discards.
	Logger *slog.Logger
	// RecordRPCs keeps a record of every RPC for RPCLog.
	RecordRPCs bool
	// BufferModel is DEVICE_METADATA buffer_model, which picks the buffer manager:
	// BufferModelTraditional (default; buffermgrd, results in CONFIG_DB) or
	// BufferModelDynamic (buffermgrdyn, results in APPL_DB).
	BufferModel string
	// SparePorts are how many of the last ports are spare: no buffer configuration (the SKU's
	// buffer templates configure active ports only).
	SparePorts int
	// CreateOnlyConfigDBBuffers sets DEVICE_METADATA create_only_config_db_buffers, with which
	// orchagent counts only the queues and priority groups BUFFER_QUEUE and BUFFER_PG
	// configure (sonic-swss orchagent/flexcounterorch.cpp getQueueConfigurations; deploy-cfg
	// sets it on T0 switches); off, every queue and priority group is counted.
	CreateOnlyConfigDBBuffers bool
	// CounterPollInterval, when set, is the POLL_INTERVAL of the PORT, QUEUE, WRED_ECN_QUEUE
	// and PG_DROP flex counter groups (counterpoll <group> interval); unset, they poll as
	// SONiC's defaults do (1 s for ports, 10 s for the rest). COUNTERS_DB moves only when a
	// group polls (PollCounters polls at once).
	CounterPollInterval time.Duration
}

// Buffer models of Options.BufferModel.
const (
	BufferModelTraditional = "traditional"
	BufferModelDynamic     = "dynamic"
)

// settings are Options with defaults applied and the release parsed.
type settings struct {
	Options
	release sonic.Release
}

func (o Options) withDefaults() (settings, error) {
	if o.Release == "" {
		o.Release = DefaultRelease
	}
	rel, err := sonic.ParseRelease(o.Release)
	if err != nil {
		return settings{}, fmt.Errorf("switchtwin options: %w", err)
	}
	if o.BuildVersion == "" {
		o.BuildVersion = "SONiC." + rel.String() + ".0-switchtwin"
	}
	if o.Platform == "" {
		o.Platform = DefaultPlatform
	}
	if o.HWSKU == "" {
		o.HWSKU = DefaultHWSKU
	}
	if o.Ports == 0 {
		o.Ports = DefaultPorts
	}
	if most := layoutFor(o.HWSKU).count; o.Ports < 0 || o.Ports > most {
		return settings{}, fmt.Errorf("switchtwin options: ports %d out of range 1..%d for hwsku %s", o.Ports, most, o.HWSKU)
	}
	if (o.Username == "") != (o.Password == "") {
		return settings{}, errors.New("switchtwin options: username and password must be set together")
	}
	switch o.BufferModel {
	case "":
		o.BufferModel = BufferModelTraditional
	case BufferModelTraditional, BufferModelDynamic:
	default:
		return settings{}, fmt.Errorf("switchtwin options: buffer model %q: use %s or %s", o.BufferModel, BufferModelTraditional, BufferModelDynamic)
	}
	if o.IdleTimeout == 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	if o.MaxConns == 0 {
		o.MaxConns = DefaultMaxConns
	}
	switch {
	case o.KeepaliveMinTime == 0:
		o.KeepaliveMinTime = DefaultKeepaliveMinTime
	case o.KeepaliveMinTime < 0:
		return settings{}, fmt.Errorf("switchtwin options: keepalive min time %s must not be negative", o.KeepaliveMinTime)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return settings{Options: o, release: rel}, nil
}
