// Package standin holds the host twin's hot hardware stand-in tools in Go:
// show_gids, ibv_devinfo, ibdev2netdev, nvidia-smi, lsmod, cma_roce_tos,
// mlnx_qos, ethtool and mlxconfig. They are Go, unlike the twin's other
// stand-ins, because a fact gather runs them on every host and a shell
// version of each forks dozens of awk, ls and sort processes per call.
// Their behaviour is specified in POSIX sh (dash) and mawk terms: output,
// exit codes and side effects are pinned byte for byte by hostprofile's
// TestStandInOutputGolden, including dash's error messages ("<$0>: <line>:
// ...") where a shell implementation would meet one, so the helpers here
// model the shell, awk and coreutils behaviour those bytes depend on. The
// one exception: mlxconfig refuses device names, parameter names and values
// that a literal shell reading would take and the real tool does not
// (listed at mlxConfig).
//
// Paths go through $TWIN_ROOT as in the sh stand-ins' library common.sh:
// empty inside the twin, the rendered root when tests run the tools from
// outside.
package standin

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

var tools = map[string]func(*ctx, []string) int{
	"cma_roce_tos": cmaRoceTos,
	"ethtool":      ethtool,
	"ibdev2netdev": ibdev2netdev,
	"ibv_devinfo":  ibvDevinfo,
	"lsmod":        lsmod,
	"mlxconfig":    mlxConfig,
	"mlnx_qos":     mlnxQoS,
	"nvidia-smi":   nvidiaSMI,
	"show_gids":    showGIDs,
}

// Run runs stand-in name with args (without the program name) and returns its
// exit status. prog is the tool's $0: the path it was run by; it prefixes
// the shell-style error messages. env looks up the caller's
// environment. An unknown name is refused as a shell would (exit 127).
func Run(name, prog string, args []string, env func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	fn, ok := tools[name]
	out := bufio.NewWriterSize(stdout, 16<<10)
	c := &ctx{prog: prog, env: env, in: stdin, out: out, errw: stderr}
	if !ok {
		c.errf("%s: command not found\n", name)
		return 127
	}
	c.init()
	code := fn(c, args)
	out.Flush()
	return code
}

// ctx is what common.sh sets up for a stand-in: the paths under $R and the
// profile.
type ctx struct {
	prog string
	env  func(string) string
	prof map[string]string
	in   io.Reader // read only by mlxconfig's confirmation prompt
	out  *bufio.Writer
	errw io.Writer

	root, sys, etc, run, lib string
}

func (c *ctx) init() {
	c.root = c.env("TWIN_ROOT")
	c.sys = c.root + "/sys"
	c.etc = c.root + "/etc/twin"
	c.run = c.root + "/run/twin"
	c.lib = c.root + "/usr/local/lib/twin"
	pe := c.etc + "/profile.env"
	if syscall.Access(pe, 4) == nil && !isDir(pe) {
		if b, err := readBounded(pe, 1<<20); err == nil {
			c.prof = ParseProfileEnv(string(b))
		}
	}
	// profile.env is sourced after common.sh set its variables, so it could
	// override them; hostprofile's never does.
	for k, p := range map[string]*string{"SYS": &c.sys, "TWIN_ETC": &c.etc, "TWIN_RUN": &c.run, "TWIN_LIB": &c.lib} {
		if v, ok := c.prof[k]; ok {
			*p = v
		}
	}
}

// get is the shell variable k: profile.env's value, else the caller's.
func (c *ctx) get(k string) string {
	if v, ok := c.prof[k]; ok {
		return v
	}
	return c.env(k)
}

// getDefault is ${k:-def}.
func (c *ctx) getDefault(k, def string) string {
	if v := c.get(k); v != "" {
		return v
	}
	return def
}

func (c *ctx) printf(format string, a ...any) { fmt.Fprintf(c.out, format, a...) }
func (c *ctx) print(s ...string) {
	for _, x := range s {
		_, _ = c.out.WriteString(x) // a write error shows at Flush, which Run ignores as a shell does
	}
}

// errf writes to standard error after what standard output holds so far, so
// the two keep their order when they share a pipe.
func (c *ctx) errf(format string, a ...any) {
	c.out.Flush()
	fmt.Fprintf(c.errw, format, a...)
}

// shErr is an error message of dash in a script: "$0: LINE: msg".
func (c *ctx) shErr(line int, msg string) { c.errf("%s: %d: %s\n", c.prog, line, msg) }

// requireOFED is twin_require_ofed: without an OFED stack's ofed_info the
// OFED tools do not exist.
func (c *ctx) requireOFED(name string) bool {
	if c.ofedInstalled() {
		return true
	}
	c.errf("%s: command not found\n", name)
	return false
}

// ofedInstalled is [ -x "$R/usr/bin/ofed_info" ] (faccessat with the
// effective ids, as dash's test does).
func (c *ctx) ofedInstalled() bool {
	const atEAccess = 0x200
	return syscall.Faccessat(-100 /* AT_FDCWD */, c.root+"/usr/bin/ofed_info", 1, atEAccess) == nil
}

// readBounded reads at most limit bytes of file p.
func readBounded(p string, limit int64) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, limit))
}

// readLine is twin_read/twin_cat: the first line of p, which must end in a
// newline (read fails at end of file otherwise); NUL bytes dropped as dash's
// read does.
func readLine(p string) (string, bool) {
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	var line []byte
	buf := make([]byte, 512)
	for {
		n, err := f.Read(buf)
		if i := slices.Index(buf[:n], '\n'); i >= 0 {
			line = append(line, buf[:i]...)
			return strings.ReplaceAll(string(line), "\x00", ""), true
		}
		line = append(line, buf[:n]...)
		if err != nil || len(line) > 1<<20 {
			return "", false
		}
	}
}

// awkGetline is awk's (getline l < p): the first record and 1, 0 for an empty
// file, -1 when p cannot be read. A last line without a newline is a record.
func awkGetline(p string) (string, int) {
	f, err := os.Open(p)
	if err != nil {
		return "", -1
	}
	defer f.Close()
	var line []byte
	buf := make([]byte, 512)
	for {
		n, err := f.Read(buf)
		if i := slices.Index(buf[:n], '\n'); i >= 0 {
			return string(append(line, buf[:i]...)), 1
		}
		line = append(line, buf[:n]...)
		if err == io.EOF {
			if len(line) == 0 {
				return "", 0
			}
			return string(line), 1
		}
		if err != nil {
			if len(line) == 0 {
				return "", -1
			}
			return string(line), 1
		}
		if len(line) > 1<<20 {
			return string(line), 1
		}
	}
}

// exists is [ -e p ]: stat follows symbolic links.
func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// globNames are the names "$dir/"* expands to: no dot files, sorted by
// bytes; none when dir cannot be read (the loops then test the literal
// pattern, which does not exist).
func globNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	names, _ := f.Readdirnames(-1)
	names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") })
	slices.Sort(names)
	return names
}

// globExisting are the entries of "$dir/"* for which [ -e ] holds.
func globExisting(dir string) []string {
	return slices.DeleteFunc(globNames(dir), func(n string) bool { return !exists(dir + "/" + n) })
}

// ls is "ls DIR" with its output captured: the names, one a line, in C-locale
// order, or GNU ls's complaint on standard error.
func (c *ctx) ls(dir string) string {
	f, err := os.Open(dir)
	if err == nil {
		var names []string
		names, err = f.Readdirnames(-1)
		f.Close()
		if err == nil {
			names = slices.DeleteFunc(names, func(n string) bool { return strings.HasPrefix(n, ".") })
			slices.Sort(names)
			return strings.Join(names, "\n")
		}
		c.errf("ls: cannot open directory '%s': %s\n", dir, errText(err))
		return ""
	}
	if st, serr := os.Stat(dir); serr == nil && !st.IsDir() && !strings.HasSuffix(dir, "/") {
		return dir
	}
	verb := "access"
	if exists(dir) {
		verb = "open directory"
	}
	c.errf("ls: cannot %s '%s': %s\n", verb, dir, errText(err))
	return ""
}

// errText is strerror's text for err: Go's errno strings are glibc's with
// the first letter lowered.
func errText(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		err = pe.Err
	}
	if se, ok := err.(*os.SyscallError); ok {
		err = se.Err
	}
	s := err.Error()
	if s != "" && s[0] >= 'a' && s[0] <= 'z' {
		s = string(s[0]-'a'+'A') + s[1:]
	}
	return s
}

// fields is the shell's word splitting of s with the default IFS.
func fields(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' })
}

// rdmaDevs is $(twin_rdma_devs) split into words: the RDMA devices as sort
// -t_ -k2 -n orders them, mlx5_2 before mlx5_10.
func (c *ctx) rdmaDevs() []string {
	devs := globExisting(c.sys + "/class/infiniband")
	slices.SortFunc(devs, func(a, b string) int {
		if r := numCompare(sortKey(a), sortKey(b)); r != 0 {
			return r
		}
		return strings.Compare(a, b) // sort's last-resort comparison
	})
	return fields(strings.Join(devs, "\n"))
}

// sortKey is the key of -t_ -k2: from the first '_' on, or nothing.
func sortKey(s string) string {
	if i := strings.IndexByte(s, '_'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// numCompare compares the leading numbers of a and b as GNU sort -n does
// (blanks, an optional '-', digits and a '.' fraction; no number is 0),
// without converting them so that no length overflows.
func numCompare(a, b string) int {
	na, ia, fa := numParts(a)
	nb, ib, fb := numParts(b)
	za, zb := ia == "" && fa == "", ib == "" && fb == ""
	if za {
		na = false
	}
	if zb {
		nb = false
	}
	if na != nb {
		if na {
			return -1
		}
		return 1
	}
	r := cmpMagnitude(ia, fa, ib, fb)
	if na {
		return -r
	}
	return r
}

// numParts returns the sign, the integer digits without leading zeros and
// the fraction digits without trailing zeros of s's leading number.
func numParts(s string) (neg bool, ip, fp string) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	ip = strings.TrimLeft(s[i:j], "0")
	if j < len(s) && s[j] == '.' {
		k := j + 1
		for k < len(s) && s[k] >= '0' && s[k] <= '9' {
			k++
		}
		fp = strings.TrimRight(s[j+1:k], "0")
	}
	return neg, ip, fp
}

func cmpMagnitude(ia, fa, ib, fb string) int {
	if len(ia) != len(ib) {
		if len(ia) < len(ib) {
			return -1
		}
		return 1
	}
	if r := strings.Compare(ia, ib); r != 0 {
		return r
	}
	return strings.Compare(fa, fb)
}

// netdev is twin_netdev: the first netdev of RDMA device dev.
func (c *ctx) netdev(dev string) (string, bool) {
	names := globExisting(c.sys + "/class/infiniband/" + dev + "/device/net")
	if len(names) == 0 {
		return "", false
	}
	return names[0], true
}

// bdf is $(twin_bdf dev): the PCI address of RDMA device dev, "" when its
// device link cannot be read.
func (c *ctx) bdf(dev string) string {
	l, err := os.Readlink(c.sys + "/class/infiniband/" + dev + "/device")
	if err != nil {
		return ""
	}
	return l[strings.LastIndexByte(l, '/')+1:]
}

// pad is printf's %-Ns (left) or %Ns: widths count bytes, as dash's and
// awk's printf do, not runes as Go's fmt does.
func pad(s string, w int, left bool) string {
	if len(s) >= w {
		return s
	}
	sp := strings.Repeat(" ", w-len(s))
	if left {
		return s + sp
	}
	return sp + s
}

// strtoimax is C's strtoimax(s, &end, base) for base 0 or 10: the value
// (clamped), the unconverted rest and whether it overflowed.
func strtoimax(s string, base int) (v int64, rest string, overflow bool) {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	b := uint64(10)
	if base == 0 {
		switch {
		case i+2 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') && hexDigit(s[i+2]) >= 0:
			b = 16
			i += 2
		case i < len(s) && s[i] == '0':
			b = 8
		}
	}
	start := i
	var u uint64
	for i < len(s) {
		d := hexDigit(s[i])
		if d < 0 || uint64(d) >= b {
			break
		}
		if u > (1<<64-1-uint64(d))/b {
			overflow = true
		} else {
			u = u*b + uint64(d)
		}
		i++
	}
	if i == start {
		return 0, s, false
	}
	limit := uint64(1<<63 - 1)
	if neg {
		limit = 1 << 63
	}
	if overflow || u > limit {
		if neg {
			return -1 << 63, s[i:], true
		}
		return 1<<63 - 1, s[i:], true
	}
	if neg {
		return int64(-u), s[i:], false //nolint:gosec // u <= 1<<63
	}
	return int64(u), s[i:], false //nolint:gosec // u <= 1<<63-1
}

func isSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }

func hexDigit(b byte) int {
	switch {
	case b >= '0' && b <= '9':
		return int(b - '0')
	case b >= 'a' && b <= 'f':
		return int(b-'a') + 10
	case b >= 'A' && b <= 'F':
		return int(b-'A') + 10
	}
	return -1
}

// printfInt is dash's printf conversion of a %d/%X argument: the value, and a
// warning "$0: LINE: printf: ..." when s is not wholly a number (the value is
// then what converted; printf goes on).
func (c *ctx) printfInt(line int, s string) int64 {
	if s != "" && (s[0] == '\'' || s[0] == '"') {
		if len(s) > 1 {
			return int64(s[1])
		}
		return 0
	}
	v, rest, overflow := strtoimax(s, 0)
	switch {
	case rest != "" && rest == s:
		c.shErr(line, "printf: "+s+": expected numeric value")
	case rest != "":
		c.shErr(line, "printf: "+s+": not completely converted")
	case overflow:
		c.shErr(line, "printf: "+s+": Numerical result out of range")
	}
	return v
}

// testInt is an operand of test's -eq/-gt...: decimal, blanks around allowed.
// A bad one is test's error (status 2, "[: Illegal number: X").
func (c *ctx) testInt(line int, s string, quiet bool) (int64, bool) {
	v, rest, overflow := strtoimax(s, 10)
	if rest == s || strings.TrimLeft(rest, " \t\n\r\v\f") != "" || overflow {
		if !quiet {
			c.shErr(line, "[: Illegal number: "+s)
		}
		return 0, false
	}
	return v, true
}

// arithVar is a variable's value inside $((...)): empty is 0, C constants
// (0x.., 0..) allowed, blanks around allowed. A bad one ends the shell:
// "$0: LINE: Illegal number: X", exit 2.
func (c *ctx) arithVar(line int, s string) (int64, bool) {
	if s == "" {
		return 0, true
	}
	v, rest, overflow := strtoimax(s, 0)
	if rest == s || strings.TrimLeft(rest, " \t\n\r\v\f") != "" || overflow {
		c.shErr(line, "Illegal number: "+s)
		return 0, false
	}
	return v, true
}

// echo is dash's echo "$s": backslash escapes are interpreted, \c ends the
// output.
func echo(s string) string {
	if s == "-n" {
		return "" // dash's echo takes a first argument -n as its option
	}
	if !strings.Contains(s, `\`) {
		return s + "\n"
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'c':
			return b.String()
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\':
			b.WriteByte('\\')
		case '0':
			v, j := 0, i+1
			for ; j < len(s) && j < i+4 && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// itoa formats an int64.
func itoa(v int64) string { return strconv.FormatInt(v, 10) }
