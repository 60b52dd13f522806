package fabric

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"
)

// ncclMaxLen is the longest name or value NCCL keeps from a config line.
const ncclMaxLen = 1023

// UnknownNCCLVarError reports a variable name missing from NCCLVars.
// Suggestion is the closest known name, or "" when none is close.
type UnknownNCCLVarError struct {
	Name       string
	Suggestion string
}

// Error names the variable and, when one is close, the likely intended name.
func (e *UnknownNCCLVarError) Error() string {
	if !strings.HasPrefix(e.Name, "NCCL_") && e.Suggestion == "" {
		return fmt.Sprintf("%q is not an NCCL variable: NCCL variable names start with NCCL_", e.Name)
	}
	if e.Suggestion != "" {
		return fmt.Sprintf("unknown NCCL variable %q: did you mean %s", e.Name, e.Suggestion)
	}
	return fmt.Sprintf("unknown NCCL variable %q: check the name against the NCCL environment documentation", e.Name)
}

// ValidateNCCLValue checks a value for a known NCCL variable by its kind
// and range. Unknown names return an *UnknownNCCLVarError.
func ValidateNCCLValue(name, value string) error {
	v, ok := LookupNCCLVar(name)
	if !ok {
		return &UnknownNCCLVarError{Name: name, Suggestion: suggestNCCLVar(name)}
	}
	if err := checkLineValue(value); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	err := v.check(value)
	if err != nil && v.Kind != NCCLKindHCAList { // ParseHCAList errors already name the variable
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// checkLineValue applies the limits every /etc/nccl.conf value shares.
func checkLineValue(value string) error {
	if value == "" {
		return fmt.Errorf("value is empty: omit the variable instead")
	}
	if strings.ContainsAny(value, "\n\r\x00") {
		return fmt.Errorf("value %q contains a newline, carriage return or NUL: remove it", value)
	}
	if len(value) > ncclMaxLen {
		return fmt.Errorf("value is %d bytes long: NCCL keeps at most %d", len(value), ncclMaxLen)
	}
	return nil
}

func (v NCCLVar) check(value string) error {
	switch v.Kind {
	case NCCLKindInt:
		return checkIntValue(value, v.Min, v.Max)
	case NCCLKindBool01:
		if value != "0" && value != "1" {
			return fmt.Errorf("value %q is not a boolean: use 0 or 1", value)
		}
	case NCCLKindEnum:
		return checkEnumValue(value, v.Values)
	case NCCLKindEnumOrInt:
		if _, err := strconv.ParseInt(value, 10, 64); err == nil {
			return checkIntValue(value, v.Min, v.Max)
		}
		return checkEnumValue(value, v.Values)
	case NCCLKindEnumList:
		return checkEnumList(value, v.Values)
	case NCCLKindPath:
		if strings.HasPrefix(value, "~") {
			return fmt.Errorf("path %q starts with ~, which NCCL does not expand: use an absolute path", value)
		}
	case NCCLKindCIDR:
		if _, err := netip.ParsePrefix(value); err != nil {
			return fmt.Errorf("value %q is not an IP prefix: use CIDR notation such as 10.0.0.0/16", value)
		}
	case NCCLKindHCAList:
		_, err := ParseHCAList(value)
		return err
	case NCCLKindIfaceList:
		return checkIfaceList(value)
	}
	return nil
}

func checkIntValue(value string, lo, hi int64) error {
	n, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return fmt.Errorf("value %q is not a decimal integer: use %d..%d", value, lo, hi)
	}
	if n < lo || n > hi {
		return fmt.Errorf("value %d is out of range: use %d..%d", n, lo, hi)
	}
	return nil
}

func checkEnumValue(value string, allowed []string) error {
	if slices.Contains(allowed, value) {
		return nil
	}
	for _, a := range allowed {
		if strings.EqualFold(a, value) {
			return fmt.Errorf("value %q is not one of %s: write it as %q", value, strings.Join(allowed, ", "), a)
		}
	}
	return fmt.Errorf("value %q is not one of %s", value, strings.Join(allowed, ", "))
}

func checkEnumList(value string, allowed []string) error {
	for _, item := range strings.Split(strings.TrimPrefix(value, "^"), ",") {
		if err := checkEnumValue(item, allowed); err != nil {
			return fmt.Errorf("list %q: %w", value, err)
		}
	}
	return nil
}

// suggestNCCLVar returns the known name closest to name (case-insensitive
// edit distance of at most 3), or "".
func suggestNCCLVar(name string) string {
	best, bestDist := "", 4
	upper := strings.ToUpper(name)
	for _, v := range ncclVarTable {
		if d := editDistance(upper, v.Name); d < bestDist {
			best, bestDist = v.Name, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
