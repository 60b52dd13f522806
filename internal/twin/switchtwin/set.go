package switchtwin

import (
	"context"
	"errors"
	"fmt"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// setOp is one decoded operation of a SetRequest.
type setOp struct {
	op    gpb.UpdateResult_Operation
	path  *gpb.Path
	dp    dbPath
	value any // sonic.Table, sonic.Entry or string; nil for delete
}

// Set implements gNMI Set as one GCU transaction: every operation is
// decoded, applied to a copy of CONFIG_DB (deletes, replaces, updates), the
// result is checked against the release's GCU allowlist and the table
// schemas, and committed only when all of it passes.
func (t *Twin) Set(_ context.Context, req *gpb.SetRequest) (*gpb.SetResponse, error) {
	if t.faults.takeReset(false) {
		return nil, &connReset{when: "before the Set was applied"}
	}
	if code, ok := t.faults.takeFailSet(); ok {
		return nil, status.Errorf(code, "switchtwin: injected Set failure (%s); nothing was applied", code)
	}
	ops, err := decodeSet(req)
	if err != nil {
		return nil, err
	}

	t.setMu.Lock()
	defer t.setMu.Unlock()
	if err := t.waitSlow(); err != nil {
		return nil, err
	}
	if err := t.apply(ops); err != nil {
		return nil, status.Error(codes.Unknown, "apply patch: "+err.Error())
	}
	if t.faults.takeReset(true) {
		return nil, &connReset{when: "after the Set was applied"}
	}
	if code, ok := t.faults.takeFailSetApply(); ok {
		return nil, status.Errorf(code, "Failed to apply patch on the following scopes: localhost (switchtwin: injected after the patch was applied, sonic-gnmi#238)")
	}

	resp := &gpb.SetResponse{Prefix: req.GetPrefix(), Timestamp: time.Now().UnixNano()}
	for _, o := range ops {
		resp.Response = append(resp.Response, &gpb.UpdateResult{Path: o.path, Op: o.op})
	}
	return resp, nil
}

// waitSlow sleeps for the SlowSet delay and waits out a HoldSets hold, cut short only by Stop.
func (t *Twin) waitSlow() error {
	d, hold := t.faults.slow()
	if d <= 0 && hold == nil {
		return nil
	}
	t.faults.waiting(1)
	defer t.faults.waiting(-1)
	if d > 0 {
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-t.stopped:
			return status.Error(codes.Unavailable, errStopped.Error())
		}
	}
	if hold != nil {
		select {
		case <-hold:
		case <-t.stopped:
			return status.Error(codes.Unavailable, errStopped.Error())
		}
	}
	return nil
}

// apply runs ops on a copy of CONFIG_DB, checks it and commits it.
func (t *Twin) apply(ops []setOp) error {
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	before := t.db
	after := before.Clone()
	for _, o := range ops {
		if err := applyOp(after, o); err != nil {
			return err
		}
	}
	hwsku := before["DEVICE_METADATA"]["localhost"]["hwsku"]
	if err := errors.Join(
		sonic.Check(t.s.release, hwsku, before, after),
		validateChanges(before, after),
		validateRules(t.s.release, before, after),
	); err != nil {
		return err
	}
	t.bufs.react(before, after)
	t.counters.syncWatchdog(after)
	t.db = after
	return nil
}

func applyOp(db sonic.DB, o setOp) error {
	dp := o.dp
	if o.op == gpb.UpdateResult_REPLACE && o.value != nil {
		if _, found := lookup(db, dp); !found {
			return fmt.Errorf("replace of missing path %s: create it with update", dp)
		}
	}
	switch v := o.value.(type) {
	case nil:
		switch {
		case dp.key == "":
			delete(db, dp.table)
		case dp.field == "":
			db.DeleteEntry(dp.table, dp.key)
		default:
			db.DeleteField(dp.table, dp.key, dp.field)
		}
	case sonic.Table:
		db.SetTable(dp.table, v)
	case sonic.Entry:
		db.SetEntry(dp.table, dp.key, v)
	case string:
		db.SetField(dp.table, dp.key, dp.field, v)
	}
	return nil
}

// decodeSet resolves and decodes every operation, in the order SONiC
// applies them: deletes, replaces, updates.
func decodeSet(req *gpb.SetRequest) ([]setOp, error) {
	paths := append([]*gpb.Path(nil), req.GetDelete()...)
	for _, u := range append(append([]*gpb.Update(nil), req.GetReplace()...), req.GetUpdate()...) {
		paths = append(paths, u.GetPath())
	}
	origin, err := requestOrigin(req.GetPrefix(), paths)
	if err != nil {
		return nil, err
	}
	if origin != nativeOrigin {
		return nil, status.Error(codes.Unimplemented, "Translib write is disabled")
	}
	var ops []setOp
	for _, p := range req.GetDelete() {
		o, err := decodeOp(req.GetPrefix(), gpb.UpdateResult_DELETE, p, nil)
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	for _, u := range req.GetReplace() {
		o, err := decodeOp(req.GetPrefix(), gpb.UpdateResult_REPLACE, u.GetPath(), u.GetVal())
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	for _, u := range req.GetUpdate() {
		if u.GetVal() == nil {
			return nil, status.Errorf(codes.Unknown, "Invalid update %s", describePath(req.GetPrefix(), u.GetPath()))
		}
		o, err := decodeOp(req.GetPrefix(), gpb.UpdateResult_UPDATE, u.GetPath(), u.GetVal())
		if err != nil {
			return nil, err
		}
		ops = append(ops, o)
	}
	return ops, nil
}

func decodeOp(prefix *gpb.Path, op gpb.UpdateResult_Operation, p *gpb.Path, val *gpb.TypedValue) (setOp, error) {
	dp, err := resolve(prefix, p, true)
	if err != nil {
		return setOp{}, err
	}
	if dp.table == "" {
		return setOp{}, status.Error(codes.Unimplemented, "switchtwin: operations on the whole CONFIG_DB (config replace) are not modelled")
	}
	o := setOp{op: op, path: p, dp: dp}
	if val == nil { // delete, or replace without a value, which SONiC treats as delete
		return o, nil
	}
	raw := val.GetJsonIetfVal()
	if len(raw) == 0 {
		return setOp{}, status.Error(codes.Unknown, "Value encoding is not IETF JSON")
	}
	o.value, err = decodeValue(dp, raw)
	if err != nil {
		return setOp{}, status.Error(codes.Unknown, err.Error())
	}
	return o, nil
}
