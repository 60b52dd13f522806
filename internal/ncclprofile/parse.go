package ncclprofile

import (
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// ncclMaxLen is the longest name or value NCCL keeps from a line: it copies each into a
// 1024-byte buffer with strncpy(..., 1023).
const ncclMaxLen = 1023

// ParseConf reads a configuration file as NCCL's setEnvFile does (src/misc/param.cc, the
// same from v2.21 to v2.30): line by line, a line starting with '#' skipped (2.26 and later;
// older NCCL would define a variable named "#..." from it, which no profile holds, so it is
// skipped here too), the trailing newline dropped and nothing else trimmed (no quotes, no
// "export", a '\r' stays in the value), the name up to the first '=' and the value after
// it, each cut to 1023 bytes, a line without '=' ignored. NCCL sets each variable with
// setenv(name, value, 0), so the first line of a name wins; the later ones are dropped.
// The settings come back in the order of the file.
func ParseConf(text string) []fabric.NCCLSetting {
	var out []fabric.NCCLSetting
	seen := map[string]bool{}
	for _, line := range strings.SplitAfter(text, "\n") {
		line = strings.TrimSuffix(line, "\n")
		if i := strings.IndexByte(line, 0); i >= 0 {
			line = line[:i] // a C string ends at NUL
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		if !ok || name == "" { // setenv refuses an empty name
			continue
		}
		name, value = cut(name, ncclMaxLen), cut(value, ncclMaxLen)
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, fabric.NCCLSetting{Name: name, Value: value})
	}
	return out
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// FromConf returns the profile whose variables are those of the file text (ParseConf), the
// inverse of Settings for what a file can tell: NCCL_IB_HCA in the exact form "=a,b" gives
// HCAs, NCCL_IB_TC of the form DSCP << 2 | ECT(0) gives RDMADSCP, NCCL_IB_GID_INDEX gives
// GIDIndex as the number written (absent: GIDAuto), the other typed variables their fields,
// and every other NCCL_* variable Extra. What a file cannot tell stays empty: NCCLVersion
// (the file names no version; a '#' header only says 2.26 or later) and whether a written GID
// index came from "auto", "detect" or a number.
//
// unheld are the variables the profile cannot hold as written (an HCA list with prefix or
// exclude syntax, a class with other ECN bits, a non-integer count, a name NCCL_* variables
// do not have, an empty value): a profile rendered from the result differs from text there.
// A missing NCCL_IB_TC leaves RDMADSCP at the default, since Settings always writes it.
func FromConf(text string) (p Profile, unheld []fabric.NCCLSetting) {
	p = Profile{RDMADSCP: fabric.DefaultRDMADSCP, GIDIndex: GIDAuto}
	for _, s := range ParseConf(text) {
		if !p.hold(s) {
			unheld = append(unheld, s)
		}
	}
	return p, unheld
}

// hold sets the field of p that s names and reports whether p can hold s as written.
func (p *Profile) hold(s fabric.NCCLSetting) bool {
	v := s.Value
	if v == "" || strings.ContainsRune(v, '\r') {
		return false // an empty value is never written; a '\r' is refused by the renderer
	}
	switch s.Name {
	case "NCCL_IB_HCA":
		list, ok := strings.CutPrefix(v, "=")
		if !ok || list == "" || strings.ContainsAny(list, "=^: \t") {
			return false
		}
		p.HCAs = strings.Split(list, ",")
		for _, h := range p.HCAs {
			if h == "" {
				p.HCAs = nil
				return false
			}
		}
	case "NCCL_SOCKET_IFNAME":
		p.SocketIfname = v
	case "NCCL_IB_TC":
		tc, err := strconv.Atoi(v)
		if err != nil || tc < 0 || tc > 255 || tc&3 != fabric.ECNBitsECT0 || strconv.Itoa(tc) != v {
			return false
		}
		p.RDMADSCP = tc >> 2
	case "NCCL_IB_GID_INDEX":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 255 || strconv.Itoa(n) != v {
			return false
		}
		p.GIDIndex = v
	case "NCCL_IB_QPS_PER_CONNECTION":
		return setInt(&p.QPsPerConnection, v)
	case "NCCL_CROSS_NIC":
		return setInt(&p.CrossNIC, v)
	case "NCCL_NET_GDR_LEVEL":
		p.GDRLevel = v
	case "NCCL_DEBUG":
		p.Debug = v
	case "NCCL_DEBUG_SUBSYS":
		p.DebugSubsys = v
	default:
		if s.Name == "NCCL_CONF_FILE" || fabric.ValidateNCCLName(s.Name) != nil {
			return false
		}
		if p.Extra == nil {
			p.Extra = map[string]string{}
		}
		p.Extra[s.Name] = v
	}
	return true
}

// setInt sets *dst to v when v is an integer written as strconv.Itoa writes it.
func setInt(dst **int, v string) bool {
	n, err := strconv.Atoi(v)
	if err != nil || strconv.Itoa(n) != v {
		return false
	}
	*dst = &n
	return true
}
