package facts

import "strings"

// ValidIfaceName reports whether s is a name the Linux kernel accepts for a
// network interface: 1 to 15 bytes, no '/', ':', whitespace or NUL, and not
// "." or "..". Facts that put an interface name into a sysfs path check it
// first, so a bad name cannot walk out of /sys/class/net.
func ValidIfaceName(s string) bool {
	if s == "" || len(s) > 15 || s == "." || s == ".." {
		return false
	}
	return !strings.ContainsAny(s, "/: \t\n\r\v\f\x00")
}

// validBDF reports whether s is a PCI address such as "0000:17:00.0" made of
// hex digits, ':' and '.'.
func validBDF(s string) bool {
	if !isPCIAddr(s) || len(s) > 16 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		hex := '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
		if c != ':' && c != '.' && !hex {
			return false
		}
	}
	return true
}
