package facts

import (
	"regexp"
	"strconv"
	"strings"
)

// lines splits command output into lines with ANSI escape sequences removed
// and a trailing carriage return dropped from each line. A final newline does
// not produce an empty last line.
func lines(out string) []string {
	out = stripANSI(out)
	out = strings.TrimSuffix(out, "\n")
	if out == "" {
		return nil
	}
	ls := strings.Split(out, "\n")
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// stripANSI removes terminal escape sequences: CSI sequences (ESC [ ...
// final byte), OSC strings (ESC ] ... BEL or ESC \) and other escapes
// (ESC, intermediate bytes, final byte).
func stripANSI(s string) string {
	if strings.IndexByte(s, 0x1b) < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != 0x1b {
			b.WriteByte(c)
			continue
		}
		if i+1 >= len(s) {
			break
		}
		switch s[i+1] {
		case '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j // skip the final byte too
		case ']':
			j := i + 2
			for j < len(s) && s[j] != 0x07 && !isStringTerminator(s, j) {
				j++
			}
			if j < len(s) && s[j] == 0x1b {
				j++
			}
			i = j
		default:
			// ESC, intermediate bytes (0x20-0x2f), one final byte: ESC ( B.
			j := i + 1
			for j < len(s) && s[j] >= 0x20 && s[j] <= 0x2f {
				j++
			}
			i = j
		}
	}
	return b.String()
}

// cutKV splits "key: value" at the first colon and trims both sides. ok is
// false when there is no colon.
func cutKV(line string) (key, value string, ok bool) {
	k, v, ok := strings.Cut(line, ":")
	if !ok {
		return "", "", false
	}
	return strings.TrimSpace(k), strings.TrimSpace(v), true
}

// atoi parses a decimal int that must fit in 32 bits, so values can be used as
// indexes and sizes without overflow checks elsewhere.
func atoi(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	return int(n), err
}

// notFound reports whether a line is a shell's "command not found" message
// (bash: "bash: x: command not found", dash: "sh: 1: x: not found", zsh:
// "zsh: command not found: x").
func notFound(line string) bool {
	return strings.Contains(line, "command not found") || strings.HasSuffix(strings.TrimSpace(line), ": not found")
}

// isStringTerminator reports whether s[j:] starts with ESC \, which ends an OSC sequence.
func isStringTerminator(s string, j int) bool {
	return s[j] == 0x1b && j+1 < len(s) && s[j+1] == '\\'
}

// sgrRemnant is what an SGR escape ("ESC [ 4 m", "ESC [ 0 m") leaves when a
// terminal, a paste or a log collector drops the ESC byte.
var sgrRemnant = regexp.MustCompile(`\[[0-9;]{0,12}m`)

// stripSGRRemnants removes the visible remains of SGR escapes whose ESC byte
// was lost. Only for outputs where "[<digits>m" cannot be real text.
func stripSGRRemnants(s string) string {
	if strings.IndexByte(s, '[') < 0 {
		return s
	}
	return sgrRemnant.ReplaceAllString(s, "")
}
