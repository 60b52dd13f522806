package standin

import (
	"strconv"
	"strings"
)

// The GID helpers work on GIDs in sysfs form (8 groups of 4 hex digits),
// with awk's string semantics kept for odd input.

// hexval is the value of a string of hex digits; a non-hex byte counts -1,
// as awk's index("0123456789abcdef", c) - 1 gives.
func hexval(s string) int64 {
	s = strings.ToLower(s)
	var v int64
	for i := 0; i < len(s); i++ {
		v = v*16 + int64(strings.IndexByte("0123456789abcdef", s[i]))
	}
	return v
}

// awkSplit is split(s, a, ":"): an empty s has no fields.
func awkSplit(s, sep string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, sep)
}

// at is a[i] of an awk array from split (1-based), "" when absent.
func at(a []string, i int) string {
	if i >= 1 && i <= len(a) {
		return a[i-1]
	}
	return ""
}

// substr is awk's substr(s, m, n) for m >= 1, n >= 0.
func substr(s string, m, n int) string {
	from := m - 1
	if from >= len(s) {
		return ""
	}
	to := min(from+n, len(s))
	return s[from:to]
}

// nullGID: the interface id (the last 8 bytes) is zero, as rdma-core's
// null_gid() decides.
func nullGID(g string) bool {
	a := awkSplit(g, ":")
	return len(a) == 8 && a[4]+a[5]+a[6]+a[7] == "0000000000000000"
}

func ipv4Mapped(g string) bool { return substr(g, 1, 30) == "0000:0000:0000:0000:0000:ffff:" }

// dotted is the IPv4 address in the last 4 bytes.
func dotted(g string) string {
	a := awkSplit(g, ":")
	a7, a8 := at(a, 7), at(a, 8)
	return strconv.FormatInt(hexval(substr(a7, 1, 2)), 10) + "." + strconv.FormatInt(hexval(substr(a7, 3, 2)), 10) + "." +
		strconv.FormatInt(hexval(substr(a8, 1, 2)), 10) + "." + strconv.FormatInt(hexval(substr(a8, 3, 2)), 10)
}

// ntop is the text inet_ntop(AF_INET6) gives: leading zeros dropped, the
// longest run of two or more zero groups as "::", IPv4-mapped dotted.
func ntop(g string) string {
	if ipv4Mapped(g) {
		return "::ffff:" + dotted(g)
	}
	a := awkSplit(g, ":")
	for i, h := range a {
		h = strings.TrimLeft(strings.ToLower(h), "0")
		if h == "" {
			h = "0"
		}
		a[i] = h
	}
	best, bestLen, cur, curLen := -1, 0, 0, 0
	for i, h := range a {
		if h != "0" {
			curLen = 0
			continue
		}
		if curLen == 0 {
			cur = i
		}
		curLen++
		if curLen > bestLen {
			best, bestLen = cur, curLen
		}
	}
	if bestLen < 2 {
		best = -1
	}
	var out strings.Builder
	for i := 0; i < len(a); i++ {
		if i == best {
			out.WriteString("::")
			i += bestLen - 1
			continue
		}
		if s := out.String(); s != "" && s[len(s)-1] != ':' {
			out.WriteByte(':')
		}
		out.WriteString(a[i])
	}
	return out.String()
}

// sysread reads a sysfs attribute as awk's getline does: the first line,
// and whether there was one (ok) and whether the file could be opened
// (found).
func sysread(p string) (line string, ok, found bool) {
	l, r := awkGetline(p)
	if r <= 0 {
		l = ""
	}
	return l, r > 0, r >= 0
}

// showGIDs imitates mlnx-tools' show_gids (OFED only): tab-separated, all-zero
// and bare fe80:: GIDs skipped, an IPv4 column for GIDs that start with 0000,
// VER from the type string, entries in ls order, then n_gids_found=N.
func showGIDs(c *ctx, args []string) int {
	if !c.requireOFED("show_gids") {
		return 127
	}
	c.print("DEV\tPORT\tINDEX\tGID\t\t\t\t\tIPv4  \t\tVER\tDEV\n",
		"---\t----\t-----\t---\t\t\t\t\t------------  \t---\t---\n")
	var devs string
	if len(args) > 0 {
		devs = args[0]
	}
	if devs == "" {
		devs = c.ls(c.sys + "/class/infiniband/")
	}
	// The entries are printed at the end, after every complaint of ls, as
	// the output of a final awk in a pipeline reaches the pipe at its exit.
	var body strings.Builder
	n := 0
	for _, d := range fields(devs) {
		for _, p := range fields(c.ls(c.sys + "/class/infiniband/" + d + "/ports/")) {
			pd := c.sys + "/class/infiniband/" + d + "/ports/" + p
			list := c.ls(pd + "/gids/")
			if list == "" {
				continue
			}
			for _, name := range strings.Split(list, "\n") {
				gid, ok, _ := sysread(pd + "/gids/" + name)
				if !ok {
					continue
				}
				nd, _, _ := sysread(pd + "/gid_attrs/ndevs/" + name)
				ty, _, _ := sysread(pd + "/gid_attrs/types/" + name)
				// Split each entry on tabs as awk -F '\t' does, so a tab
				// inside a value moves the fields the same way.
				f := strings.Split(d+"\t"+p+"\t"+name+"\t"+gid+"\t"+ty+"\t"+nd, "\t")
				if f[3] == "0000:0000:0000:0000:0000:0000:0000:0000" || f[3] == "fe80:0000:0000:0000:0000:0000:0000:0000" {
					continue
				}
				ver := ""
				if i := strings.IndexAny(f[4], "Vv"); i >= 0 {
					ver = f[4][i:]
				}
				if substr(f[3], 1, 4) == "0000" {
					body.WriteString(f[0] + "\t" + f[1] + "\t" + f[2] + "\t" + f[3] + "\t" + dotted(f[3]) + "  \t" + ver + "\t" + f[5] + "\n")
				} else {
					body.WriteString(f[0] + "\t" + f[1] + "\t" + f[2] + "\t" + f[3] + "\t\t\t" + ver + "\t" + f[5] + "\n")
				}
				n++
			}
		}
	}
	c.print(body.String())
	c.printf("n_gids_found=%d\n", n)
	return 0
}
