package fabric

import (
	"fmt"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-version"
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
// and range, with the rules every NCCL release shares. Unknown names return
// an *UnknownNCCLVarError.
func ValidateNCCLValue(name, value string) error {
	return ValidateNCCLValueFor(name, value, "")
}

// ValidateNCCLValueFor is [ValidateNCCLValue] with the rules of the NCCL
// version ncclVersion ("2.19.3", "2.26.2-1+cuda12.8"): a variable or value
// that version does not read, which it would silently ignore, is an error
// naming the version. An empty version applies only the shared rules.
func ValidateNCCLValueFor(name, value, ncclVersion string) error {
	v, ok := LookupNCCLVar(name)
	if !ok {
		return &UnknownNCCLVarError{Name: name, Suggestion: suggestNCCLVar(name)}
	}
	if err := checkLineValue(value); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	ver, err := ncclCore(ncclVersion)
	if err != nil {
		return err
	}
	if err := v.checkVersion(value, ver); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	err = v.check(value)
	if err != nil && v.Kind != NCCLKindHCAList { // ParseHCAList errors already name the variable
		return fmt.Errorf("%s: %w", name, err)
	}
	return err
}

// ncclCore parses an NCCL version to its core (2.26.2-1+cuda12.8 ->
// 2.26.2); "" is nil, unknown.
func ncclCore(ncclVersion string) (*version.Version, error) {
	if ncclVersion == "" {
		return nil, nil
	}
	v, err := version.NewVersion(ncclVersion)
	if err != nil {
		return nil, fmt.Errorf("nccl version %q is not a version: use a form such as 2.26.2", ncclVersion)
	}
	return v.Core(), nil
}

// before reports whether NCCL ver is older than the minor release since
// ("2.23"); an unknown version or an empty since is never older.
func before(ver *version.Version, since string) bool {
	if ver == nil || since == "" {
		return false
	}
	return ver.LessThan(version.Must(version.NewVersion(since)))
}

// checkVersion refuses what NCCL ver does not read: the variable itself, an
// enum value it does not know, and values whose meaning differs there.
func (v NCCLVar) checkVersion(value string, ver *version.Version) error {
	if before(ver, v.Since) {
		return fmt.Errorf("NCCL %s does not read %s, which exists from NCCL %s on: remove it, or upgrade NCCL", ver, v.Name, v.Since)
	}
	for _, item := range enumItems(v, value) {
		for known, since := range v.ValueSince {
			if strings.EqualFold(item, known) && before(ver, since) {
				return fmt.Errorf("NCCL %s does not know %s, which exists from NCCL %s on (older releases silently ignore it): use another value, or upgrade NCCL", ver, known, since)
			}
		}
	}
	switch v.Name {
	case "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS":
		// src/include/device.h MAXCHANNELS: 32 up to 2.24, 64 from 2.25.
		if n, err := strconv.Atoi(value); err == nil && n > 32 && before(ver, "2.25") {
			return fmt.Errorf("NCCL %s has at most 32 channels (64 from 2.25) and would cut %d down: use 32 or less", ver, n)
		}
	case "NCCL_IB_FIFO_TC":
		// 2.22-2.23 transport/net_ib.cc: "if (ncclParamIbFifoTc() && ...)".
		if value == "0" && ver != nil && before(ver, "2.24") {
			return fmt.Errorf("on NCCL %s the value 0 turns the setting off (from 2.24 it is a traffic class): leave it unset instead", ver)
		}
	}
	if v.Kind == NCCLKindAlgoList && strings.Contains(value, ":") && before(ver, "2.24") {
		return fmt.Errorf("NCCL %s does not read per-collective lists (func:list), which exist from NCCL 2.24 on: give one list", ver)
	}
	return nil
}

// enumItems returns the enum values named by value, for the kinds that have
// them.
func enumItems(v NCCLVar, value string) []string {
	switch v.Kind {
	case NCCLKindEnum, NCCLKindEnumOrInt:
		return []string{value}
	case NCCLKindEnumList:
		return strings.Split(strings.TrimPrefix(value, "^"), ",")
	case NCCLKindAlgoList:
		var out []string
		for _, part := range strings.Split(value, ";") {
			if _, list, ok := strings.Cut(part, ":"); ok {
				part = list
			}
			out = append(out, strings.Split(strings.TrimPrefix(part, "^"), ",")...)
		}
		return out
	}
	return nil
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
	case NCCLKindAlgoList:
		return checkAlgoList(value, v.Values)
	}
	return nil
}

// ncclCollectives are the collective names of per-collective NCCL_ALGO and
// NCCL_PROTO lists (2.24+).
var ncclCollectives = []string{"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"}

// checkAlgoList checks "[^]a,b" or, per collective, "func:[^]a,b;func:...",
// names matched case-insensitively as NCCL does (strcasecmp).
func checkAlgoList(value string, allowed []string) error {
	for _, part := range strings.Split(value, ";") {
		if fn, list, ok := strings.Cut(part, ":"); ok {
			if !slices.ContainsFunc(ncclCollectives, func(c string) bool { return strings.EqualFold(c, fn) }) {
				return fmt.Errorf("list %q: %q is not a collective: use one of %s", value, fn, strings.Join(ncclCollectives, ", "))
			}
			part = list
		}
		for _, item := range strings.Split(strings.TrimPrefix(part, "^"), ",") {
			if !slices.ContainsFunc(allowed, func(a string) bool { return strings.EqualFold(a, item) }) {
				return fmt.Errorf("list %q: %q is not one of %s", value, item, strings.Join(allowed, ", "))
			}
		}
	}
	return nil
}

func checkIntValue(value string, lo, hi int64) error {
	// NCCL_PARAM reads values with strtoll base 0 (src/misc/param.cc): "010" is octal 8.
	if digits := strings.TrimLeft(value, "+-"); len(digits) > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9' {
		return fmt.Errorf("value %q has a leading zero, which NCCL reads as octal: write it without", value)
	}
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
