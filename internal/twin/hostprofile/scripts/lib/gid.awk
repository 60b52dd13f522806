# gid.awk - awk functions for GIDs in sysfs form (8 groups of 4 hex digits),
# prepended to the programs of the host-twin stand-ins.

# hexval returns the value of a string of hex digits.
function hexval(s,    i, v) {
	s = tolower(s)
	v = 0
	for (i = 1; i <= length(s); i++)
		v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v
}

# nullgid is true when the interface id (the last 8 bytes) is zero, as
# rdma-core's null_gid() decides.
function nullgid(g,    n, a) {
	n = split(g, a, ":")
	return n == 8 && a[5] a[6] a[7] a[8] == "0000000000000000"
}

# ipv4mapped is true for ::ffff:a.b.c.d.
function ipv4mapped(g) {
	return substr(g, 1, 30) == "0000:0000:0000:0000:0000:ffff:"
}

# dotted returns the IPv4 address in the last 4 bytes.
function dotted(g,    a) {
	split(g, a, ":")
	return hexval(substr(a[7], 1, 2)) "." hexval(substr(a[7], 3, 2)) "." \
		hexval(substr(a[8], 1, 2)) "." hexval(substr(a[8], 3, 2))
}

# ntop returns the text inet_ntop(AF_INET6) gives: leading zeros dropped,
# the longest run of two or more zero groups as "::", IPv4-mapped dotted.
function ntop(g,    n, a, i, h, best, bestlen, cur, curlen, out) {
	if (ipv4mapped(g))
		return "::ffff:" dotted(g)
	n = split(g, a, ":")
	for (i = 1; i <= n; i++) {
		h = tolower(a[i])
		sub(/^0+/, "", h)
		a[i] = h == "" ? "0" : h
	}
	best = 0; bestlen = 0; curlen = 0
	for (i = 1; i <= n; i++) {
		if (a[i] == "0") {
			if (curlen == 0) cur = i
			curlen++
			if (curlen > bestlen) { best = cur; bestlen = curlen }
		} else
			curlen = 0
	}
	if (bestlen < 2) best = 0
	out = ""
	for (i = 1; i <= n; i++) {
		if (best && i == best) {
			out = out "::"
			i += bestlen - 1
			continue
		}
		if (out != "" && substr(out, length(out)) != ":") out = out ":"
		out = out a[i]
	}
	return out
}

# sysread returns the first line of file f and sets sysread_ok and
# sysread_found: an empty file gives "" with sysread_ok false, as twin_cat
# fails on it; a missing one also leaves sysread_found false. It reads
# in-process: the stand-ins read hundreds of GID files per call.
function sysread(f,    l, r) {
	l = ""
	r = (getline l < f)
	close(f)
	sysread_ok = r > 0
	sysread_found = r >= 0
	return sysread_ok ? l : ""
}
