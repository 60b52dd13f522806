package facts

import (
	"regexp"
	"strconv"
	"strings"
)

// NVParam is one parameter of a mlxconfig query: its values as mlxconfig
// prints them, e.g. "48", "ETH(2)", "True(1)" or "Array[0..7]". Default and
// Current are empty in a query without -e.
type NVParam struct {
	Default, Current, Next string
}

// DefaultValue is the number of Default (see [NVValue]).
func (p NVParam) DefaultValue() (int64, bool) { return NVValue(p.Default) }

// CurrentValue is the number of Current, the value the firmware runs with
// (see [NVValue]).
func (p NVParam) CurrentValue() (int64, bool) { return NVValue(p.Current) }

// NextValue is the number of Next, the value of the next boot (see
// [NVValue]).
func (p NVParam) NextValue() (int64, bool) { return NVValue(p.Next) }

// NVConfig is the NV configuration of one PCI function by parameter name,
// with its port suffix ("ROCE_CC_PRIO_MASK_P1", "CNP_DSCP_P2").
type NVConfig map[string]NVParam

// nvEnumRE is an enumeration value as mlxconfig prints it: "ETH(2)".
var nvEnumRE = regexp.MustCompile(`^[A-Za-z0-9_]*\((\d+)\)$`)

// NVValue returns the number of an mlxconfig value: "48" → 48, "0x30" → 48,
// "ETH(2)" → 2, "True(1)" → 1. ok is false for values without one
// ("Array[0..7]", "").
func NVValue(s string) (int64, bool) {
	if m := nvEnumRE.FindStringSubmatch(s); m != nil {
		s = m[1]
	}
	base := 10
	if h, ok := strings.CutPrefix(s, "0x"); ok {
		s, base = h, 16
	}
	if s == "" || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, base, 64)
	return n, err == nil
}

// ValidPCIAddr reports whether s is a PCI address such as "0000:17:00.0".
func ValidPCIAddr(s string) bool { return validBDF(s) }

// nvNameRE is an NV configuration parameter name, possibly an array element.
var nvNameRE = regexp.MustCompile(`^[A-Z][A-Z0-9_]*(\[\d+\])?$`)

// ParseMlxconfigQuery reads the output of mlxconfig -d <dev> [-e] q: a
// device header, then
//
//	Configurations:                              Default   Current   Next Boot
//	*        ROCE_CC_PRIO_MASK_P1                255       255       8
//	         CNP_DSCP_P1                         48        48        48
//
// (without -e only the "Next Boot" column). The '*' marks a next-boot value
// that differs. Lines after the table that do not start with a parameter
// name (the "The '*' shows ..." footer) are skipped; a parameter line with
// the wrong number of values is an error.
func ParseMlxconfigQuery(out string) (NVConfig, error) {
	const fact = "mlxconfig"
	res := NVConfig{}
	cols := 0
	for i, line := range lines(out) {
		trimmed := strings.TrimSpace(line)
		if rest, ok := strings.CutPrefix(trimmed, "Configurations:"); ok {
			if cols != 0 {
				return nil, lineError(fact, i+1, line, "a second device: query one device (-d) at a time")
			}
			switch h := strings.Join(strings.Fields(rest), " "); h {
			case "Default Current Next Boot":
				cols = 3
			case "Next Boot":
				cols = 1
			default:
				return nil, lineError(fact, i+1, line, "unknown columns %q: want \"Default Current Next Boot\" or \"Next Boot\"", h)
			}
			continue
		}
		if cols == 0 {
			continue // the device header
		}
		f := strings.Fields(strings.TrimPrefix(trimmed, "*"))
		if len(f) == 0 || !nvNameRE.MatchString(f[0]) {
			continue
		}
		if len(f) != 1+cols {
			return nil, lineError(fact, i+1, line, "want the parameter and %d values", cols)
		}
		if _, dup := res[f[0]]; dup {
			return nil, lineError(fact, i+1, line, "parameter %s listed twice", f[0])
		}
		p := NVParam{Next: f[cols]}
		if cols == 3 {
			p.Default, p.Current = f[1], f[2]
		}
		res[f[0]] = p
	}
	if cols == 0 {
		if strings.TrimSpace(out) == "" {
			return nil, emptyError(fact)
		}
		return nil, &ParseError{Fact: fact, Msg: "no \"Configurations:\" table"}
	}
	return res, nil
}
