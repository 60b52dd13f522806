package standin

import (
	"math"
	"strconv"
	"strings"
)

// These model the parts of mawk's (Debian's awk) value semantics that the
// stand-ins' pinned output depends on.

// awkVal is an awk value: a number, a string, a string from input that looks
// numeric (strnum: fields, split() elements, -v values) or uninitialized.
type awkVal struct {
	kind int
	s    string
	n    float64
}

const (
	awkUninit = iota
	awkNum
	awkStr
	awkStrnum
)

// awkInput is a value read from input: strnum when it looks like a number.
func awkInput(s string) awkVal {
	if n, ok := awkLooksNumeric(s); ok {
		return awkVal{kind: awkStrnum, s: s, n: n}
	}
	return awkVal{kind: awkStr, s: s}
}

func awkNumber(n float64) awkVal { return awkVal{kind: awkNum, n: n} }

// str is the value as a string (CONVFMT %.6g, integers exactly).
func (v awkVal) str() string {
	switch v.kind {
	case awkUninit:
		return ""
	case awkNum:
		if v.n == math.Trunc(v.n) && math.Abs(v.n) < 1e15 {
			return strconv.FormatFloat(v.n, 'f', 0, 64)
		}
		return strconv.FormatFloat(v.n, 'g', 6, 64)
	}
	return v.s
}

// awkEqual is a == b: numeric when neither is a plain string, else the
// strings compared.
func awkEqual(a, b awkVal) bool {
	if a.kind != awkStr && b.kind != awkStr {
		return a.n == b.n
	}
	return a.str() == b.str()
}

// awkLooksNumeric reports whether s, blanks around it ignored, is wholly a
// number as mawk decides: decimal or C hex (0x1, 0x1p4) with a sign, not inf
// or nan.
func awkLooksNumeric(s string) (float64, bool) {
	t := strings.Trim(s, " \t\n")
	if t == "" {
		return 0, false
	}
	n, rest := awkStrtod(t)
	return n, rest == "" && len(rest) < len(t)
}

// awkToNum is awk's string-to-number conversion: the leading number, 0 if none.
func awkToNum(s string) float64 {
	n, _ := awkStrtod(strings.TrimLeft(s, " \t\n\r\v\f"))
	return n
}

// awkStrtod parses the leading decimal or hex number of s (no inf/nan) and
// returns it with the rest; rest == s when there is none.
func awkStrtod(s string) (float64, string) {
	i := 0
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := func(j int, hex bool) int {
		for j < len(s) && (s[j] >= '0' && s[j] <= '9' || hex && hexDigit(s[j]) >= 0) {
			j++
		}
		return j
	}
	var v float64
	end := -1
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		j := i + 2
		k := digits(j, true)
		mant, exp := 0.0, 0
		for _, ch := range []byte(s[j:k]) {
			mant = mant*16 + float64(hexDigit(ch))
		}
		some := k > j
		if k < len(s) && s[k] == '.' {
			f := digits(k+1, true)
			for _, ch := range []byte(s[k+1 : f]) {
				mant = mant*16 + float64(hexDigit(ch))
				exp -= 4
			}
			some = some || f > k+1
			k = f
		}
		if some {
			end = k
			if k < len(s) && (s[k] == 'p' || s[k] == 'P') {
				e := k + 1
				if e < len(s) && (s[e] == '+' || s[e] == '-') {
					e++
				}
				if f := digits(e, false); f > e {
					x, _ := strconv.Atoi(s[k+1 : f])
					exp += x
					end = f
				}
			}
			v = math.Ldexp(mant, exp)
		}
	}
	if end < 0 {
		k := digits(i, false)
		some := k > i
		if k < len(s) && s[k] == '.' {
			f := digits(k+1, false)
			some = some || f > k+1
			k = f
		}
		if !some {
			return 0, s
		}
		if k < len(s) && (s[k] == 'e' || s[k] == 'E') {
			e := k + 1
			if e < len(s) && (s[e] == '+' || s[e] == '-') {
				e++
			}
			if f := digits(e, false); f > e {
				k = f
			}
		}
		end = k
		v, _ = strconv.ParseFloat(s[i:end], 64) // out of range gives ±Inf, as strtod's HUGE_VAL
	}
	if neg {
		v = -v
	}
	return v, s[end:]
}

// awkInt is mawk's %d conversion: clamped to ±(2^31-1), NaN the lower bound.
func awkInt(n float64) int64 {
	const maxInt = 1<<31 - 1
	switch {
	case n >= maxInt:
		return maxInt
	case n > -maxInt:
		return int64(n)
	}
	return -maxInt
}
