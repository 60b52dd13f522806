package switchtwin

import (
	"slices"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const (
	nativeOrigin = "sonic-db"
	configDB     = "CONFIG_DB"
	applDB       = "APPL_DB"
	localhost    = "localhost"
)

// otherDBs are SONiC databases the real server knows but the twin does not
// model.
var otherDBs = []string{"ASIC_DB", "COUNTERS_DB", "LOGLEVEL_DB", "PFC_WD_DB", "FLEX_COUNTER_DB", "STATE_DB", "SNMP_OVERLAY_DB", "APPL_STATE_DB", "DPU_APPL_DB"}

// dbPath is a resolved path of CONFIG_DB, or of APPL_DB where db says so
// (Get only). An empty table is the whole database, an empty key a whole
// table, an empty field a whole entry.
type dbPath struct {
	db, table, key, field string
}

func (p dbPath) String() string {
	db := p.db
	if db == "" {
		db = configDB
	}
	s := db + "/" + localhost
	for _, part := range []string{p.table, p.key, p.field} {
		if part == "" {
			break
		}
		s += "/" + part
	}
	return s
}

// requestOrigin returns the origin of a request, from its prefix or its
// paths, as sonic-gnmi's ParseOrigin does.
func requestOrigin(prefix *gpb.Path, paths []*gpb.Path) (string, error) {
	origin := prefix.GetOrigin()
	for _, p := range paths {
		switch {
		case p.GetOrigin() == "":
		case origin == "":
			origin = p.GetOrigin()
		case origin != p.GetOrigin():
			return "", status.Error(codes.Unimplemented, "Origin conflict in path")
		}
	}
	return origin, nil
}

// resolve turns prefix + path into a CONFIG_DB path, or for a Get an
// APPL_DB one. Errors carry the codes sonic-gnmi uses for the same
// mistakes; forSet selects Set's wording.
func resolve(prefix, p *gpb.Path, forSet bool) (dbPath, error) {
	elems := append(slices.Clone(prefix.GetElem()), p.GetElem()...)
	names := make([]string, len(elems))
	for i, e := range elems {
		if len(e.GetKey()) > 0 {
			return dbPath{}, status.Errorf(codes.InvalidArgument,
				"path element %q has keys; sonic-db paths put a composite key such as Ethernet0|3 in one element name", e.GetName())
		}
		if e.GetName() == "" {
			return dbPath{}, status.Error(codes.InvalidArgument, "empty path element")
		}
		names[i] = e.GetName()
	}
	if len(names) < 2 {
		return dbPath{}, status.Error(codes.Unimplemented, "Invalid elem length")
	}
	switch {
	case names[0] == configDB:
	case (names[0] == applDB || slices.Contains(otherDBs, names[0])) && forSet:
		return dbPath{}, status.Errorf(codes.Unknown, "Set RPC does not support %s", names[0])
	case names[0] == applDB:
	case slices.Contains(otherDBs, names[0]):
		return dbPath{}, status.Errorf(codes.NotFound, "switchtwin models only CONFIG_DB and APPL_DB, not %s", names[0])
	default:
		return dbPath{}, status.Errorf(codes.NotFound, "Invalid target %s", names[0])
	}
	if names[1] != localhost {
		return dbPath{}, status.Errorf(codes.NotFound, "Unsupported namespace/container %s", names[1])
	}
	rest := names[2:]
	if len(rest) > 3 {
		return dbPath{}, status.Errorf(codes.NotFound, "Invalid db table Path %s", strings.Join(names, "/"))
	}
	dp := dbPath{db: names[0]}
	for i, v := range rest {
		switch i {
		case 0:
			dp.table = v
		case 1:
			dp.key = v
		case 2:
			dp.field = v
		}
	}
	return dp, nil
}

// describePath renders a request path for logs: origin:elem/elem.
func describePath(prefix, p *gpb.Path) string {
	origin := p.GetOrigin()
	if origin == "" {
		origin = prefix.GetOrigin()
	}
	var names []string
	for _, e := range append(slices.Clone(prefix.GetElem()), p.GetElem()...) {
		names = append(names, e.GetName())
	}
	s := strings.Join(names, "/")
	if origin != "" {
		s = origin + ":" + s
	}
	return s
}
