package gnmi

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// SONiC native path constants.
const (
	// OriginSonicDB is the origin of SONiC's native database paths; without
	// it SONiC routes a Set to translib, which is disabled on default
	// builds.
	OriginSonicDB = "sonic-db"
	// ConfigDB is the first element of CONFIG_DB paths.
	ConfigDB = "CONFIG_DB"
	// ApplDB is the first element of APPL_DB paths, which the switch's daemons write (the
	// dynamic buffer manager's results); a client only reads them.
	ApplDB = "APPL_DB"
	// Localhost is the namespace element of a single-ASIC switch.
	Localhost = "localhost"
)

// Path is a gNMI path: an origin and element names. SONiC paths use no
// element keys: a composite CONFIG_DB key such as "Ethernet0|3" is one
// element. Treat a Path as immutable.
type Path struct {
	Origin string
	Elems  []string
}

// ConfigDBPath returns the CONFIG_DB path of a table, an entry (key set) or
// a field (key and field set):
// sonic-db:CONFIG_DB/localhost/TABLE[/KEY[/field]].
func ConfigDBPath(table, key, field string) Path { return DBPath(ConfigDB, table, key, field) }

// DBPath is ConfigDBPath for any SONiC database: sonic-db:<db>/localhost/TABLE[/KEY[/field]].
// Keys use the database's separator ("|" in CONFIG_DB, ":" in APPL_DB).
func DBPath(db, table, key, field string) Path {
	elems := []string{db, Localhost, table}
	if key != "" || field != "" {
		elems = append(elems, key)
	}
	if field != "" {
		elems = append(elems, field)
	}
	return Path{Origin: OriginSonicDB, Elems: elems}
}

// IsConfigDB reports whether p is a sonic-db CONFIG_DB path of a table,
// entry or field.
func (p Path) IsConfigDB() bool {
	return p.Origin == OriginSonicDB && len(p.Elems) >= 3 && len(p.Elems) <= 5 &&
		p.Elems[0] == ConfigDB && p.Elems[1] == Localhost
}

// isDBPath reports whether p is a sonic-db path of a table, entry or field of any database.
func (p Path) isDBPath() bool {
	return p.Origin == OriginSonicDB && len(p.Elems) >= 3 && len(p.Elems) <= 5 && p.Elems[1] == Localhost
}

// Table returns the table of a database path, or "".
func (p Path) Table() string { return p.dbElem(2) }

// Key returns the entry key of a database path, or "".
func (p Path) Key() string { return p.dbElem(3) }

// Field returns the field of a database path, or "".
func (p Path) Field() string { return p.dbElem(4) }

func (p Path) dbElem(i int) string {
	if !p.isDBPath() || i >= len(p.Elems) {
		return ""
	}
	return p.Elems[i]
}

// validate checks that p is a CONFIG_DB path with non-empty elements.
func (p Path) validate() error {
	if !p.IsConfigDB() {
		return fmt.Errorf("path %s: want %s:%s/%s/TABLE[/KEY[/field]]", p, OriginSonicDB, ConfigDB, Localhost)
	}
	if slices.Contains(p.Elems, "") {
		return fmt.Errorf("path %s: empty element", p)
	}
	return nil
}

// String returns the readable form "sonic-db:CONFIG_DB/localhost/QUEUE/Ethernet0|3";
// "/" and "\" inside an element are escaped with "\". ParsePath reads it
// back.
func (p Path) String() string {
	var b strings.Builder
	if p.Origin != "" {
		b.WriteString(p.Origin)
		b.WriteByte(':')
	}
	for i, e := range p.Elems {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(strings.NewReplacer(`\`, `\\`, `/`, `\/`).Replace(e))
	}
	return b.String()
}

// short is the plan form of a CONFIG_DB path, without origin and
// namespace: "CONFIG_DB/QUEUE/Ethernet0|3".
func (p Path) short() string {
	if !p.IsConfigDB() {
		return p.String()
	}
	return Path{Elems: append([]string{ConfigDB}, p.Elems[2:]...)}.String()
}

// ParsePath reads the String form, with or without a leading "/":
// "sonic-db:CONFIG_DB/localhost/QUEUE/Ethernet0|3". The origin is what
// precedes a ":" in the first element.
func ParsePath(s string) (Path, error) {
	rest := strings.TrimPrefix(s, "/")
	if rest == "" {
		return Path{}, errors.New("parse gnmi path: empty")
	}
	var elems []string
	var cur strings.Builder
	for i := 0; i < len(rest); i++ {
		switch c := rest[i]; c {
		case '\\':
			if i+1 == len(rest) {
				return Path{}, fmt.Errorf("parse gnmi path %q: trailing backslash", s)
			}
			i++
			cur.WriteByte(rest[i])
		case '/':
			elems = append(elems, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	elems = append(elems, cur.String())
	p := Path{Elems: elems}
	if origin, first, ok := strings.Cut(elems[0], ":"); ok {
		p.Origin, p.Elems[0] = origin, first
	}
	if slices.Contains(p.Elems, "") {
		return Path{}, fmt.Errorf("parse gnmi path %q: empty element", s)
	}
	return p, nil
}

// Proto returns p as a gNMI path.
func (p Path) Proto() *gpb.Path {
	out := &gpb.Path{Origin: p.Origin, Elem: make([]*gpb.PathElem, len(p.Elems))}
	for i, e := range p.Elems {
		out.Elem[i] = &gpb.PathElem{Name: e}
	}
	return out
}

// PathFromProto returns prefix + p as a Path; the origin of p wins over the
// prefix's. Element keys are ignored, as SONiC ignores them.
func PathFromProto(prefix, p *gpb.Path) Path {
	out := Path{Origin: p.GetOrigin()}
	if out.Origin == "" {
		out.Origin = prefix.GetOrigin()
	}
	for _, e := range append(slices.Clone(prefix.GetElem()), p.GetElem()...) {
		out.Elems = append(out.Elems, e.GetName())
	}
	return out
}
