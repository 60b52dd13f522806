package standin

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// mlxConfig imitates mlxconfig (mstflint/MFT) for the NV configuration of the
// twin's NICs. "set" stores next-boot values in $TWIN_ETC/nvconfig/<PF BDF>
// (firmware NV memory survives reboots, as KEY=VALUE lines, the last one
// winning); hostprofile.ResetRuntime copies them to $TWIN_RUN/nvconfig, the
// current values, and boots the DCQCN and trust state from them. The
// parameters, their defaults and enum labels are $TWIN_LIB/nvconfig.db.
//
// Output, prompts and exit codes follow NVIDIA's MFT documentation
// (https://docs.nvidia.com/networking/display/mftv4330/
// examples+of+mlxconfig+usage): -d takes an mst device such as
// /dev/mst/mt4117_pciconf0 or a PCI address, "q" prints the Next Boot
// column, --enable_verbosity (-e) adds Default and Current and marks with
// '*' what differs, "s" asks to apply unless -y, "r" resets to the
// defaults, and changes take effect at the next boot; a VF cannot be
// opened. Input the real tool refuses is refused, even where a literal
// shell reading would take it:
//   - -d takes an RDMA device listed in /sys/class/infiniband, a PCI address
//     equal to one of theirs (0000:17:00.0 or 17:00.0) or
//     /dev/mst/mt<id>_pciconf<N> for the N-th device; not addresses with
//     wildcard or regular-expression characters, paths through the device
//     names or pciconf suffixes with junk after the number;
//   - a parameter name is one argument matched exactly against the table:
//     query arguments are not split on blanks ("" is an unknown name, not
//     everything), the table's comment marker "#" is no name for set, and
//     names and values are matched with no backslash escapes expanded.
//
// It is more lenient than the real tool elsewhere: unknown options are
// ignored, and a value is not checked against the parameter's width or its
// enum (any decimal number is stored).
func mlxConfig(c *ctx, args []string) int {
	o, code, done := mlxParseArgs(c, args)
	if done {
		return code
	}
	switch o.cmd {
	case "q", "query", "s", "set", "r", "reset":
	case "":
		mlxUsage(c)
		return 1
	default:
		c.errf("%s", echo("-E- Unknown command: "+o.cmd))
		return 1
	}
	devs := c.mlxDevices()
	var targets []mlxDevice
	if o.dev != "" {
		bdf, ok := mlxResolve(devs, o.dev)
		if !ok {
			c.errf("%s", echo("-E- Failed to open device: "+o.dev+". No such file or directory"))
			return 1
		}
		targets = []mlxDevice{{name: o.dev, bdf: bdf}}
	} else {
		if o.cmd != "q" && o.cmd != "query" {
			c.errf("-E- Please specify a device using -d\n")
			return 1
		}
		for _, d := range devs {
			targets = append(targets, mlxDevice{name: d.bdf, bdf: d.bdf})
		}
	}
	db := c.nvConfigDB()
	rc := 0
	for i, t := range targets {
		if exists(c.sys + "/bus/pci/devices/" + t.bdf + "/physfn") {
			c.errf("%s", echo("-E- Failed to open the device: "+t.name+". Operation not permitted (virtual function)"))
			rc = 1
			continue
		}
		next, cur := c.etc+"/nvconfig/"+t.bdf, c.run+"/nvconfig/"+t.bdf
		switch o.cmd {
		case "q", "query":
			if !c.mlxQuery(db, o, i+1, t.name, next, cur) {
				rc = 1
			}
		case "s", "set":
			if code, ok := c.mlxSet(db, o, i+1, t.name, next); !ok {
				return code
			}
		default:
			if code, ok := c.mlxReset(o, i+1, t.name, next); !ok {
				return code
			}
		}
	}
	return rc
}

// mlxOpts are mlxconfig's options, its command and the command's arguments.
type mlxOpts struct {
	dev, cmd     string
	yes, verbose bool
	params       []string
}

// mlxParseArgs reads the options up to the command. done means exit with
// code now: -h, or an option that wanted an argument and had none (dash's
// "shift: can't shift that many", which ends sh).
func mlxParseArgs(c *ctx, args []string) (o mlxOpts, code int, done bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-d" || a == "--dev" || a == "-b" || a == "--db" || a == "-f" || a == "--file":
			if i+1 >= len(args) {
				c.shErr(30, "shift: can't shift that many")
				return o, 2, true
			}
			if a == "-d" || a == "--dev" {
				o.dev = args[i+1]
			}
			i++
		case strings.HasPrefix(a, "--dev="):
			o.dev = a[len("--dev="):]
		case a == "-y" || a == "--yes":
			o.yes = true
		case a == "-e" || a == "--enable_verbosity":
			o.verbose = true
		case a == "-h" || a == "--help":
			mlxUsage(c)
			return o, 0, true
		case strings.HasPrefix(a, "-"):
		default:
			o.cmd, o.params = a, args[i+1:]
			return o, 0, false
		}
	}
	return o, 0, false
}

func mlxUsage(c *ctx) {
	c.print("NAME:\n        mlxconfig\nSYNOPSIS:\n",
		"        mlxconfig [-d <device>] [-y] [-e] <q[uery]|s[et]|r[eset]> [<PARAM>[=<VAL>] ...]\n")
}

// mlxDevice is a device mlxconfig can open: its name as given (or listed)
// and its PCI address.
type mlxDevice struct{ name, bdf string }

// mlxDevices are the RDMA devices with their PCI addresses, in
// twin_rdma_devs order ("" for a device whose link cannot be read).
func (c *ctx) mlxDevices() []mlxDevice {
	names := c.rdmaDevs()
	devs := make([]mlxDevice, len(names))
	for i, n := range names {
		devs[i] = mlxDevice{name: n, bdf: c.bdf(n)}
	}
	return devs
}

// mlxResolve is the PCI address that -d dev names, if it names a listed
// device.
func mlxResolve(devs []mlxDevice, dev string) (string, bool) {
	if n, ok := mstIndex(dev); ok {
		if n < len(devs) && devs[n].bdf != "" {
			return devs[n].bdf, true
		}
		return "", false
	}
	var bdf string
	switch {
	case strings.HasPrefix(dev, "mlx5_"):
	case len(dev) == 12 && dev[4] == ':' && dev[7] == ':' && dev[10] == '.':
		bdf = dev
	case len(dev) == 7 && dev[2] == ':' && dev[5] == '.':
		bdf = "0000:" + dev
	default:
		return "", false
	}
	for _, d := range devs {
		if d.bdf != "" && (bdf == "" && dev == d.name || bdf == d.bdf) {
			return d.bdf, true
		}
	}
	return "", false
}

// mstIndex is N of an mst device path /dev/mst/mt<id>_pciconf<N>.
func mstIndex(dev string) (int, bool) {
	rest, ok := strings.CutPrefix(dev, "/dev/mst/mt")
	if !ok {
		return 0, false
	}
	id, num, ok := strings.Cut(rest, "_pciconf")
	if !ok || !allDigits(id) || !allDigits(num) || len(num) > 1 && num[0] == '0' || len(num) > 6 {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}

// nvParam is a line of nvconfig.db: name, default and "N=LABEL,..." labels.
type nvParam struct{ name, def, labels string }

// nvDB is nvconfig.db in its order, with an index by name.
type nvDB struct {
	params []nvParam
	byName map[string]int
}

// nvConfigDB reads $TWIN_LIB/nvconfig.db: blank-separated fields, comment
// lines (#) and empty lines skipped; none when it cannot be read.
func (c *ctx) nvConfigDB() nvDB {
	db := nvDB{byName: map[string]int{}}
	b, err := readBounded(c.lib+"/nvconfig.db", 1<<20)
	if err != nil {
		return db
	}
	for _, l := range awkRecords(string(b)) {
		f := fields(l)
		if strings.HasPrefix(l, "#") || len(f) == 0 {
			continue
		}
		if _, dup := db.byName[f[0]]; dup {
			continue // hostprofile writes each name once
		}
		db.byName[f[0]] = len(db.params)
		db.params = append(db.params, nvParam{name: f[0], def: at(f, 2), labels: at(f, 3)})
	}
	return db
}

func (db nvDB) lookup(name string) (nvParam, bool) {
	i, ok := db.byName[name]
	if !ok {
		return nvParam{}, false
	}
	return db.params[i], true
}

// labelOf splits a labels element "N=LABEL" as awk's split(e, kv, "=")
// does: kv[1] and kv[2].
func labelOf(e string) (num, label string) {
	num, rest, _ := strings.Cut(e, "=")
	label, _, _ = strings.Cut(rest, "=")
	return num, label
}

// showQuery is how a query prints value v of p: LABEL(v) for an enum value
// (the same string, or the same number when both are all digits), else v.
func showQuery(p nvParam, v string) string {
	out := v
	if p.labels == "" {
		return out
	}
	for _, e := range strings.Split(p.labels, ",") {
		num, label := labelOf(e)
		if num == v || allDigits(num) && allDigits(v) && awkToNum(num) == awkToNum(v) {
			out = label + "(" + v + ")"
		}
	}
	return out
}

// showSet is how set prints value v of p: like showQuery, but compared as
// awk compares a -v value with a label (numbers as numbers, whatever their
// form).
func showSet(p nvParam, v string) string {
	v = mawkVar(v)
	out := v
	if p.labels == "" {
		return cmdSubst(out)
	}
	val := awkInput(v)
	for _, e := range strings.Split(p.labels, ",") {
		num, label := labelOf(e)
		if awkEqual(awkInput(num), val) {
			out = label + "(" + v + ")"
		}
	}
	return cmdSubst(out)
}

// parseValue is the number text stands for: itself when all digits, else
// the number of the enum label it names (case folded).
func parseValue(p nvParam, text string) (string, bool) {
	if allDigits(text) {
		return text, true
	}
	if p.labels == "" {
		return "", false
	}
	for _, e := range strings.Split(p.labels, ",") {
		num, label := labelOf(e)
		if strings.EqualFold(label, text) && asciiOnly(label) && asciiOnly(text) {
			return num, true
		}
	}
	return "", false
}

func asciiOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// loadNV is a KEY=VALUE file as the query read it: the last value of each
// key (lines without a '=' after the first byte skipped); none when it
// cannot be read.
func loadNV(p string) map[string]string {
	m := map[string]string{}
	b, err := readBounded(p, 16<<20)
	if err != nil {
		return m
	}
	for _, l := range awkRecords(string(b)) {
		if k := strings.IndexByte(l, '='); k > 0 {
			m[l[:k]] = l[k+1:]
		}
	}
	return m
}

// mlxHeader prints a device's header: its number, type, part, description
// and the name it was given by.
func (c *ctx) mlxHeader(n int, name string) {
	c.print("\nDevice #", strconv.Itoa(n), ":\n----------\n\n",
		pad("Device type:", 20, true), c.getDefault("TWIN_NIC_TYPE", "ConnectX7"), "\n",
		pad("Name:", 20, true), c.get("TWIN_NIC_PART"), "\n",
		pad("Description:", 20, true), c.get("TWIN_NIC_DESC"), "\n",
		pad("Device:", 20, true), name, "\n\n")
}

// mlxQuery prints a device's configuration: every parameter in table
// order, or the ones named. An unknown name is an error and the query goes
// on; it then fails.
func (c *ctx) mlxQuery(db nvDB, o mlxOpts, n int, name, next, cur string) bool {
	c.mlxHeader(n, name)
	if o.verbose {
		c.print(pad("Configurations:", 52, true), pad("Default", 16, true), pad("Current", 16, true), "Next Boot\n")
	} else {
		c.print(pad("Configurations:", 52, true), "Next Boot\n")
	}
	nxt, cu := loadNV(next), loadNV(cur)
	want := db.params
	if len(o.params) > 0 {
		want = nil
	}
	ok := true
	for _, pn := range o.params {
		p, found := db.lookup(pn)
		if !found {
			c.errf("-E- The Device doesn't support %s parameter\n", pn)
			ok = false
			continue
		}
		want = append(want, p)
	}
	for _, p := range want {
		nv := showQuery(p, valueOr(nxt, p))
		if !o.verbose {
			c.print("        ", pad(p.name, 44, true), nv, "\n")
			continue
		}
		dv, cv := showQuery(p, p.def), showQuery(p, valueOr(cu, p))
		mark := " "
		if dv != nv || cv != nv {
			mark = "*"
		}
		c.print(mark, "       ", pad(p.name, 44, true), pad(dv, 16, true), pad(cv, 16, true), nv, "\n")
	}
	return c.mlxQueryFooter(o, ok)
}

func (c *ctx) mlxQueryFooter(o mlxOpts, ok bool) bool {
	if o.verbose {
		c.print("The '*' shows parameters with next value different from default/current value.\n")
	}
	return ok
}

// valueOr is p's value in m, else its default.
func valueOr(m map[string]string, p nvParam) string {
	if v, ok := m[p.name]; ok {
		return v
	}
	return p.def
}

// mlxSet checks every NAME=VALUE, shows the change, asks (unless -y) and
// stores the values in next. ok false means exit with code now.
func (c *ctx) mlxSet(db nvDB, o mlxOpts, n int, name, next string) (code int, ok bool) {
	if len(o.params) == 0 {
		c.errf("-E- No parameters to set\n")
		return 1, false
	}
	type change struct {
		p   nvParam
		num string
	}
	var changes []change
	for _, kv := range o.params {
		k, v, hasEq := strings.Cut(kv, "=")
		p, found := db.lookup(k)
		if !hasEq || !found {
			c.errf("%s", echo("-E- The Device doesn't support "+k+" parameter"))
			return 1, false
		}
		num, valid := parseValue(p, v)
		if !valid {
			c.errf("%s", echo("-E- Failed to set configuration: Invalid value '"+v+"' for "+k))
			return 1, false
		}
		changes = append(changes, change{p, num})
	}
	c.mlxHeader(n, name)
	c.print(pad("Configurations:", 53, true), pad("Next Boot", 20, true), "New\n")
	for _, ch := range changes {
		c.print("         ", pad(ch.p.name, 44, true), pad(showSet(ch.p, nextValue(next, ch.p)), 20, true), showSet(ch.p, ch.num), "\n")
	}
	c.print("\n Apply new Configuration? (y/n) [n] : ")
	if !c.confirm(o.yes) {
		return 1, false
	}
	c.mkdirP(c.etc + "/nvconfig")
	for _, ch := range changes {
		c.storeNV(next, ch.p.name, ch.num)
	}
	c.print("Applying... Done!\n-I- Please reboot machine to load new configurations.\n")
	return 0, true
}

// nextValue is param's next-boot value: the text after "NAME=" on the last
// line of file p that starts so, else the default.
func nextValue(p string, param nvParam) string {
	b, err := readBounded(p, 16<<20)
	if err != nil {
		return param.def
	}
	v, found := "", false
	for _, l := range awkRecords(string(b)) {
		if rest, ok := strings.CutPrefix(l, param.name+"="); ok {
			v, found = rest, true
		}
	}
	if !found {
		return param.def
	}
	return cmdSubst(echo(v))
}

// storeNV replaces name's line of KEY=VALUE file p with name=num: the other
// lines to p.tmp, the new one appended, p.tmp renamed over p.
func (c *ctx) storeNV(p, name, num string) {
	var kept strings.Builder
	if b, err := readBounded(p, 16<<20); err == nil {
		for _, l := range awkRecords(string(b)) {
			if !strings.HasPrefix(l, name+"=") {
				kept.WriteString(l + "\n")
			}
		}
	}
	tmp := p + ".tmp"
	if f, ok := c.create(220, tmp); ok {
		_, _ = f.WriteString(kept.String())
		f.Close()
	}
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o666)
	if err != nil {
		c.shErr(221, "cannot create "+tmp+": "+createErr(err))
	} else {
		_, _ = f.WriteString(name + "=" + num + "\n")
		f.Close()
	}
	c.mv(tmp, p)
}

// mlxReset asks (unless -y) and removes the device's next-boot values, so
// that it boots with the defaults. ok false means exit with code now.
func (c *ctx) mlxReset(o mlxOpts, n int, name, next string) (code int, ok bool) {
	c.mlxHeader(n, name)
	c.print(" Reset configuration for device ", name, "? (y/n) [n] : ")
	if !c.confirm(o.yes) {
		return 1, false
	}
	if err := syscall.Unlink(next); err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.errf("rm: cannot remove '%s': %s\n", next, errText(err))
	}
	c.print("Applying... Done!\n-I- Please reboot machine to load new configurations.\n")
	return 0, true
}

// confirm answers the prompt: "y" with -y, else one line of standard input
// (blanks around it trimmed), which must be y, Y or yes; anything else, or
// no complete line, prints "Aborted by user".
func (c *ctx) confirm(yes bool) bool {
	if yes {
		c.print("y\n")
		return true
	}
	c.out.Flush()
	ans, ok := readStdinLine(c.in)
	switch strings.Trim(ans, " \t") {
	case "y", "Y", "yes":
		if ok {
			return true
		}
	}
	c.print("Aborted by user\n")
	return false
}

// readStdinLine is sh's read -r of one line: byte by byte (so nothing past
// the line is consumed), NUL bytes dropped; false at end of input before a
// newline.
func readStdinLine(r io.Reader) (string, bool) {
	if r == nil {
		return "", false
	}
	var line []byte
	b := make([]byte, 1)
	for len(line) < 1<<20 {
		n, err := r.Read(b)
		if n == 1 {
			switch b[0] {
			case '\n':
				return string(line), true
			case 0:
			default:
				line = append(line, b[0])
			}
			continue
		}
		if err != nil {
			return string(line), false
		}
	}
	return string(line), false
}
