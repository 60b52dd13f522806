package sonic

import (
	"context"
	"errors"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	sonicmodel "github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/sonicdb"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// Backend is the backend for switches running SONiC: it reads and writes CONFIG_DB over gNMI.
type Backend struct {
	client  *sonicdb.Client
	release sonicmodel.Release
}

// New returns a backend on client. release, when not zero, is used instead of the
// release the switch reports.
func New(client *sonicdb.Client, release sonicmodel.Release) *Backend {
	return &Backend{client: client, release: release}
}

// sonicObservation is one refresh of a SONiC switch: the CONFIG_DB tables a policy touches and
// the facts read from them, plus in the dynamic buffer model the APPL_DB groups and profiles
// buffermgrdyn derived. Everything a plan needs comes from it, so a refresh is one Get
// whatever the number of ports (two in the dynamic model: one Get reads one database).
type sonicObservation struct {
	Facts Facts
	db    sonicmodel.DB
	appl  sonicmodel.DB
}

// Observe reads the switch.
func (s *Backend) Observe(ctx context.Context) (switchcfg.Observation, error) {
	o, err := s.observe(ctx)
	if err != nil {
		return nil, err
	}
	return o, nil
}

func (s *Backend) observe(ctx context.Context) (sonicObservation, error) {
	db, err := s.client.GetTables(ctx, observedTables...)
	if err != nil {
		return sonicObservation{}, fmt.Errorf("read CONFIG_DB of %s: %w", s.client.Address(), err)
	}
	f, err := factsFrom(db, s.release)
	if err != nil {
		return sonicObservation{}, fmt.Errorf("switch %s: %w", s.client.Address(), err)
	}
	o := sonicObservation{Facts: f, db: db}
	if f.BufferModel == BufferModelDynamic {
		if o.appl, err = s.client.GetDBTables(ctx, sonicdb.ApplDB, applBufferPG, applBufferProfile); err != nil {
			return sonicObservation{}, fmt.Errorf("read APPL_DB buffer tables of %s (dynamic buffer model): %w", s.client.Address(), err)
		}
	}
	return o, nil
}

// Describe names the release, SKU and buffer model: "SONiC 202411, Mellanox-SN5600-O128,
// traditional buffer model".
func (o sonicObservation) Describe() string {
	return fmt.Sprintf("SONiC %s, %s, %s buffer model", o.Facts.Release, o.Facts.HWSKU, o.Facts.BufferModel)
}

// Check applies the rules that need the switch: the ports exist, the watchdog times meet the
// switch's poll interval, the RDMA priority is among the ports' lossless ones (or they have
// none), the buffer manager can build a lossless group for the cable length, the shared WRED
// profile, the ECN band for the fastest port, and headroom plus the pause threshold fit the
// platform's lossless pool. Unknown ports stop the rest.
func (o sonicObservation) Check(p switchcfg.Policy, speedOverride int) (fabric.Headroom, violation.List) {
	f := o.Facts
	fs := f.CheckPorts(p.Ports)
	if fs.HasErrors() {
		return fabric.Headroom{}, fs
	}
	fs = append(fs, f.CheckWatchdog(p)...)
	fs = append(fs, f.CheckPFCEnable(p)...)
	fs = append(fs, f.CheckSharedWRED(p)...)
	fs = append(fs, f.CheckClassECN(p)...)
	fs = append(fs, f.CheckCableLength(p, speedOverride)...)
	h, hfs := f.Headroom(p, speedOverride)
	fs = append(fs, hfs...)
	fs = append(fs, fabric.CheckECNForSpeed(p.ECN.MinBytes, f.FastestPort(p.Ports, speedOverride))...)
	return h, fs
}

// Headroom is Check's headroom alone.
func (o sonicObservation) Headroom(p switchcfg.Policy, speedOverride int) fabric.Headroom {
	h, _ := o.Facts.Headroom(p, speedOverride)
	return h
}

// PlanUpdate returns the Set that moves the switch from policy prior (nil when there is none)
// to p: what p asks, plus the restore, from snap, of shared fields prior set and p no longer
// does (a moved CNP queue, a dropped watchdog).
func (o sonicObservation) PlanUpdate(prior *switchcfg.Policy, p switchcfg.Policy, snap switchcfg.Snapshot) (switchcfg.Changes, error) {
	c, err := o.planUpdate(prior, p, snap)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (o sonicObservation) planUpdate(prior *switchcfg.Policy, p switchcfg.Policy, snap switchcfg.Snapshot) (*sonicChanges, error) {
	next := desiredFor(p, o.Facts)
	c := newChanges(o.db)
	if prior != nil {
		c.restore(desiredFor(*prior, o.Facts).without(next), snap)
	}
	c.converge(next)
	if err := c.checkRelease(o.db, o.Facts); err != nil {
		return nil, err
	}
	c.noteShared(o.db, o.Facts, p)
	return c, nil
}

// Decode reads back the policy called name on ports; see decode.
func (o sonicObservation) Decode(name string, ports []string, prior switchcfg.Policy) (switchcfg.Policy, error) {
	return decode(o.db, o.Facts, name, ports, prior)
}

// Snapshot returns snap (a new one when nil) plus the current values of the shared fields
// that p is about to set for the first time: all of them for a new resource (prior nil), those
// prior did not set for an update. A field absent from the snapshot did not exist. An update
// of an imported resource (prior set, snap nil) starts from the stock values of what prior
// set, which its removal would otherwise restore.
func (o sonicObservation) Snapshot(prior *switchcfg.Policy, p switchcfg.Policy, snap switchcfg.Snapshot) switchcfg.Snapshot {
	out := switchcfg.Snapshot{}
	if snap == nil && prior != nil {
		out = stockSnapshot(desiredFor(*prior, o.Facts), o.db)
	}
	for k, v := range snap {
		out[k] = v
	}
	fresh := desiredFor(p, o.Facts)
	if prior != nil {
		fresh = fresh.without(desiredFor(*prior, o.Facts))
	}
	record(out, fresh, o.db, prior == nil)
	return out
}

// Removal returns the Set that removes p's objects and restores the shared fields from snap;
// a nil snap (an imported resource) restores SONiC's stock maps.
func (o sonicObservation) Removal(p switchcfg.Policy, snap switchcfg.Snapshot) (switchcfg.Changes, error) {
	c, err := o.removal(p, snap)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (o sonicObservation) removal(p switchcfg.Policy, snap switchcfg.Snapshot) (*sonicChanges, error) {
	d := desiredFor(p, o.Facts)
	if snap == nil {
		snap = stockSnapshot(d, o.db)
	}
	c := newChanges(o.db)
	c.restore(d, snap)
	if err := c.checkRelease(o.db, o.Facts); err != nil {
		return nil, err
	}
	c.noteShared(o.db, o.Facts, p)
	return c, nil
}

// Apply sends c as one SetRequest: SONiC applies it as one transaction, so the switch holds
// either all of it or none. When the switch reports a failure although it holds everything c
// sent (sonic-gnmi#238), Apply succeeds and returns a warning saying so.
func (s *Backend) Apply(ctx context.Context, changes switchcfg.Changes) (warning string, err error) {
	c, ok := changes.(*sonicChanges)
	if !ok {
		return "", fmt.Errorf("switch %s: changes of type %T were not planned by the SONiC backend", s.client.Address(), changes)
	}
	if c.Empty() {
		return "", nil
	}
	_, err = s.client.Set(ctx, c.Batch)
	var setErr *sonicdb.SetError
	if errors.As(err, &setErr) && setErr.Applied != nil && *setErr.Applied {
		return fmt.Sprintf("the Set to switch %s ended with %v, but a read-back shows every change in place (SONiC can report a failure after applying, and a lost connection hides the reply); nothing else to do", s.client.Address(), setErr.Err), nil
	}
	if err != nil {
		return "", &switchcfg.ApplyError{Err: err, Unsettled: setErr != nil && setErr.Unsettled()}
	}
	return "", nil
}
