package switchtwin

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// entryValidator checks one entry of a table; it returns every problem.
type entryValidator func(key string, e sonic.Entry) []error

// check returns a problem with a value, or "".
type check func(v string) string

// schema describes the fields of a table like its sonic-yang model does.
type schema struct {
	table    string
	key      check
	fields   map[string]check
	required []string
	// open tables accept fields the schema does not list (PORT has dozens).
	open  bool
	extra func(key string, e sonic.Entry) []error
}

func (s schema) validator() entryValidator {
	return func(key string, e sonic.Entry) []error {
		var errs []error
		if s.key != nil {
			if p := s.key(key); p != "" {
				errs = append(errs, entryError(s.table, key, "key: "+p))
			}
		}
		for _, f := range s.required {
			if _, ok := e[f]; !ok {
				errs = append(errs, entryError(s.table, key, "field "+f+" is mandatory"))
			}
		}
		for _, f := range sortedKeys(e) {
			c, known := s.fields[f]
			switch {
			case !known && !s.open:
				errs = append(errs, fieldError(s.table, key, f, e[f], "unknown field"))
			case known:
				if p := c(e[f]); p != "" {
					errs = append(errs, fieldError(s.table, key, f, e[f], p))
				}
			}
		}
		if s.extra != nil && len(errs) == 0 {
			errs = append(errs, s.extra(key, e)...)
		}
		return errs
	}
}

func uintRange(lo, hi uint64) check {
	return func(v string) string {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("must be an integer in %d..%d", lo, hi)
		}
		return ""
	}
}

func intRange(lo, hi int64) check {
	return func(v string) string {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < lo || n > hi {
			return fmt.Sprintf("must be an integer in %d..%d", lo, hi)
		}
		return ""
	}
}

// byteCount is a uint64 byte count.
var byteCount check = func(v string) string {
	if _, err := strconv.ParseUint(v, 10, 64); err != nil {
		return "must be an unsigned integer (bytes)"
	}
	return ""
}

var uint32Value = uintRange(0, 1<<32-1)

func oneOf(values ...string) check {
	return func(v string) string {
		if slices.Contains(values, v) {
			return ""
		}
		return "must be one of " + strings.Join(values, ", ")
	}
}

func matches(re *regexp.Regexp, what string) check {
	return func(v string) string {
		if re.MatchString(v) {
			return ""
		}
		return "must be " + what
	}
}

// legacyRef is the pre-202012 reference format "[TABLE|name]", which
// db_migrator rewrote to bare names and today's YANG leafrefs reject.
var legacyRef = regexp.MustCompile(`^\[([A-Z_]+)\|(.*)\]$`)

// refName checks a leafref to an entry of table: a bare entry name.
func refName(table string) check {
	return func(v string) string {
		if m := legacyRef.FindStringSubmatch(v); m != nil {
			return fmt.Sprintf("legacy reference format; SONiC expects the bare name %q of a %s entry", m[2], table)
		}
		if v == "" {
			return "must name a " + table + " entry"
		}
		return ""
	}
}

var (
	// objectName is the name pattern of the map tables, SCHEDULER and WRED_PROFILE in
	// sonic-yang-models (202411 to master): no dots, 32 characters at most.
	objectName   = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}$`)
	wredName     = regexp.MustCompile(`^[a-zA-Z0-9][-a-zA-Z0-9_]{0,31}$`)
	priorityList = regexp.MustCompile(`^([0-7](,[0-7])*)?$`)
	portQueueKey = regexp.MustCompile(`^Ethernet[0-9]+\|([0-9]|1[0-5])(-([0-9]|1[0-5]))?$`)
	portPGKey    = regexp.MustCompile(`^Ethernet[0-9]+\|[0-7](-[0-7])?$`)
	portNameRe   = regexp.MustCompile(`^Ethernet[0-9]+$`)
	cableLength  = regexp.MustCompile(`^[0-9]+m$`)
	laneList     = regexp.MustCompile(`^[0-9]+(,[0-9]+)*$`)
)
