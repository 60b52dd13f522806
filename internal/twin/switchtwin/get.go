package switchtwin

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// Get implements gNMI Get for CONFIG_DB and APPL_DB (origin sonic-db) and
// for OTHERS/osversion/build. Values come back JSON_IETF (JSON when asked).
// One Get reads one database: sonic-gnmi's mixed-schema client answers
// paths of two with "Target conflict in path" (sonic-gnmi
// sonic_data_client/mixed_db_client.go ParseDatabase).
func (t *Twin) Get(_ context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	defer t.countGet() // after the answer: it runs once dbMu is released
	if code, ok := t.faults.takeFailGet(); ok {
		return nil, status.Errorf(code, "switchtwin: injected Get failure (%s)", code)
	}
	if req.GetType() != gpb.GetRequest_ALL {
		return nil, status.Errorf(codes.Unimplemented, "unsupported request type: %s", req.GetType())
	}
	switch req.GetEncoding() {
	case gpb.Encoding_JSON, gpb.Encoding_JSON_IETF:
	case gpb.Encoding_PROTO:
		return nil, status.Error(codes.Unimplemented, "switchtwin: PROTO encoding is not modelled; use JSON_IETF")
	default:
		return nil, status.Errorf(codes.Unimplemented, "unsupported encoding: %s", req.GetEncoding())
	}
	if req.GetPrefix().GetTarget() == "OTHERS" {
		return t.getOthers(req)
	}
	if strings.HasPrefix(req.GetPrefix().GetTarget(), countersDB) {
		return t.getCounters(req)
	}
	origin, err := requestOrigin(req.GetPrefix(), req.GetPath())
	if err != nil {
		return nil, err
	}
	if origin != nativeOrigin {
		return nil, status.Errorf(codes.Unimplemented, "switchtwin serves origin %s only; translib (OpenConfig) paths are not modelled", nativeOrigin)
	}

	now := time.Now().UnixNano()
	resp := &gpb.GetResponse{}
	// Reads see the last committed CONFIG_DB: a Set in progress works on a
	// copy, as SONiC answers Gets from its checkpoint during a Set.
	t.dbMu.Lock()
	defer t.dbMu.Unlock()
	target := ""
	for _, p := range req.GetPath() {
		dp, err := resolve(req.GetPrefix(), p, false)
		if err != nil {
			return nil, err
		}
		if target != "" && target != dp.db {
			return nil, status.Error(codes.Unimplemented, "Target conflict in path")
		}
		target = dp.db
		db := t.db
		if dp.db == applDB {
			db = t.bufs.ApplDB()
		}
		value, found := lookup(db, dp)
		if !found {
			if dp.key == "" {
				continue // an empty table answers nothing
			}
			return nil, status.Errorf(codes.NotFound, "No valid entry found for path %s", dp)
		}
		raw, err := json.Marshal(value)
		if err != nil {
			return nil, status.Errorf(codes.Internal, "encode %s: %v", dp, err)
		}
		resp.Notification = append(resp.Notification, &gpb.Notification{
			Timestamp: now,
			Prefix:    req.GetPrefix(),
			Update:    []*gpb.Update{{Path: p, Val: jsonValue(req.GetEncoding(), raw)}},
		})
	}
	return resp, nil
}

// lookup returns the value at dp and whether it exists.
func lookup(db sonic.DB, dp dbPath) (any, bool) {
	switch {
	case dp.table == "":
		return db, true
	case dp.key == "":
		t, ok := db[dp.table]
		return t, ok
	case dp.field == "":
		return db.Entry(dp.table, dp.key)
	}
	e, ok := db.Entry(dp.table, dp.key)
	if !ok {
		return nil, false
	}
	v, ok := e[dp.field]
	return v, ok
}

func jsonValue(enc gpb.Encoding, raw []byte) *gpb.TypedValue {
	if enc == gpb.Encoding_JSON {
		return &gpb.TypedValue{Value: &gpb.TypedValue_JsonVal{JsonVal: raw}}
	}
	return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: raw}}
}

// getOthers answers the non-DB target; only osversion/build is modelled.
func (t *Twin) getOthers(req *gpb.GetRequest) (*gpb.GetResponse, error) {
	resp := &gpb.GetResponse{}
	for _, p := range req.GetPath() {
		if describePath(req.GetPrefix(), p) != "osversion/build" {
			return nil, status.Errorf(codes.NotFound, "switchtwin: OTHERS/%s is not modelled", describePath(req.GetPrefix(), p))
		}
		raw, _ := json.Marshal(map[string]string{"build_version": t.s.BuildVersion, "error": ""})
		resp.Notification = append(resp.Notification, &gpb.Notification{
			Timestamp: time.Now().UnixNano(),
			Prefix:    req.GetPrefix(),
			Update:    []*gpb.Update{{Path: p, Val: jsonValue(req.GetEncoding(), raw)}},
		})
	}
	return resp, nil
}
