package sonicdb

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
)

// sonic-gnmi's native database paths (sonic-gnmi sonic_data_client/mixed_db_client.go).
const (
	// OriginSonicDB is the origin of SONiC's native database paths; without it SONiC routes
	// a Set to translib, which is disabled on default builds.
	OriginSonicDB = "sonic-db"
	// ConfigDB is the database a client writes.
	ConfigDB = "CONFIG_DB"
	// ApplDB is the database the switch's daemons write (the dynamic buffer manager's
	// results); a client only reads it.
	ApplDB = "APPL_DB"
	// localhost is the namespace element of a single-ASIC switch.
	localhost = "localhost"
)

// Path names a table, an entry (Key set) or a field (Key and Field set) of one database.
// Keys use the database's separator ("|" in CONFIG_DB, ":" in APPL_DB).
type Path struct {
	DB, Table, Key, Field string
}

// ConfigDBPath returns the CONFIG_DB path of a table, an entry or a field.
func ConfigDBPath(table, key, field string) Path { return Path{ConfigDB, table, key, field} }

// GNMI returns p as sonic-gnmi addresses it: sonic-db:<DB>/localhost/TABLE[/KEY[/field]].
func (p Path) GNMI() gnmi.Path {
	elems := []string{p.DB, localhost, p.Table}
	if p.Key != "" || p.Field != "" {
		elems = append(elems, p.Key)
	}
	if p.Field != "" {
		elems = append(elems, p.Field)
	}
	return gnmi.Path{Origin: OriginSonicDB, Elems: elems}
}

// String is the plan form, without origin and namespace: "CONFIG_DB/QUEUE/Ethernet0|3".
func (p Path) String() string {
	elems := p.GNMI().Elems
	return gnmi.Path{Elems: append([]string{p.DB}, elems[2:]...)}.String()
}

// validate checks that p is a CONFIG_DB path a Set may write.
func (p Path) validate() error {
	switch {
	case p.DB != ConfigDB:
		return fmt.Errorf("path %s: a Set writes %s only", p, ConfigDB)
	case p.Table == "", p.Field != "" && p.Key == "":
		return fmt.Errorf("path %s: empty element", p)
	}
	return nil
}
