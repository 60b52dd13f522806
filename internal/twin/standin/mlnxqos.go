package standin

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// mlnxQoS imitates mlnx-tools' mlnx_qos (OFED only). Each interface's DCB
// state is kept in $TWIN_RUN/qos/<if> (gone on reboot: trust then comes
// from the NV config QOS_TRUST_STATE_P1, PFC is off), as sh assignments
// (QoSState), and every call prints the full state in mlnx_qos's
// pretty_print format. Like the netlink version, the trust state is "dscp"
// exactly when DSCP app entries exist: --trust dscp installs the default map
// (prio = DSCP >> 3), --trust pcp or --dscp2prio flush removes it.
//
// A call that sets something holds an exclusive flock(2) of
// $TWIN_RUN/qos.lock from its read of the state to its save, as the kernel
// serialises DCB netlink requests under RTNL (flock(1) takes the same lock,
// so a shell script holding it excludes this too); a call that only prints
// writes nothing, so a gather running beside an apply cannot put back the
// state it read.
//
// The lists go through models of sh pipelines (echo into cut or awk, IFS=,
// splitting, pathname expansion), so odd values print as they would in sh;
// the state file is read as QoSState reads it.
func mlnxQoS(c *ctx, args []string) int {
	if !c.requireOFED("mlnx_qos") {
		return 127
	}
	usage := func() { c.print("Usage: mlnx_qos -i <interface> [options]\n") }
	optfail := func(msg string) int {
		c.errf("Usage: mlnx_qos -i <interface> [options]\n")
		c.errf("\nmlnx_qos: error: %s\n", msg)
		return 2
	}
	var intf, pfcOpt, spfcOpt, getpfcOpt, priotcOpt, tsaOpt, tcbwOpt, rlOpt, dcbxOpt string
	var trustOpt, d2pOpts, cableOpt, p2bOpt, bufszOpt string
	printall := "0"
	for len(args) > 0 {
		opt, val, has := args[0], "", false
		switch {
		case strings.HasPrefix(opt, "--") && strings.Contains(opt[2:], "="):
			k := strings.IndexByte(opt, '=')
			opt, val, has = opt[:k], opt[k+1:], true
		case len(opt) >= 3 && opt[0] == '-' && strings.IndexByte("ifFPpstrd", opt[1]) >= 0:
			opt, val, has = opt[:2], opt[2:], true
		}
		switch opt {
		case "-a":
			printall = "1"
		case "-h", "--help":
			usage()
			return 0
		case "--version":
			c.print("mlnx_qos 1.2\n")
			return 0
		case "-i", "--interface", "-f", "--pfc", "-F", "--specific_pfc", "-P", "--get_pfc", "-p", "--prio_tc", "-s", "--tsa",
			"-t", "--tcbw", "-r", "--ratelimit", "-d", "--dcbx", "--trust", "--dscp2prio", "--cable_len",
			"--prio2buffer", "--buffer_size":
			if !has {
				if len(args) < 2 {
					return optfail(opt + " option requires an argument")
				}
				val = args[1]
				args = args[1:]
			}
			switch opt {
			case "-i", "--interface":
				intf = val
			case "-f", "--pfc":
				pfcOpt = val
			case "-F", "--specific_pfc":
				spfcOpt = val
			case "-P", "--get_pfc":
				getpfcOpt = val
			case "-p", "--prio_tc":
				priotcOpt = val
			case "-s", "--tsa":
				tsaOpt = val
			case "-t", "--tcbw":
				tcbwOpt = val
			case "-r", "--ratelimit":
				rlOpt = val
			case "-d", "--dcbx":
				dcbxOpt = val
			case "--trust":
				trustOpt = val
			case "--dscp2prio":
				d2pOpts += " " + val
			case "--cable_len":
				cableOpt = val
			case "--prio2buffer":
				p2bOpt = val
			case "--buffer_size":
				bufszOpt = val
			}
		default:
			if strings.HasPrefix(opt, "-") {
				return optfail("no such option: " + opt)
			}
			c.print("Bad arguments\n")
			usage()
			return 1
		}
		args = args[1:]
	}

	if intf == "" {
		c.print("Interface name is required\n")
		usage()
		return 1
	}
	if !isDir(c.sys + "/class/net/" + intf) {
		c.errf("%s", echo("Netlink error: No such device ("+intf+")"))
		return 1
	}
	if exists(c.sys + "/class/net/" + intf + "/device/physfn") {
		c.print("Priority trust state is not supported on your system\n")
		if trustOpt != "" {
			return 1
		}
		c.print("Buffers commands are not supported on your system\n", "ETS features are not supported on your system\n")
		return 1
	}

	sets := pfcOpt + spfcOpt + priotcOpt + tsaOpt + tcbwOpt + rlOpt + trustOpt + d2pOpts + cableOpt + p2bOpt + bufszOpt
	if dcbxOpt == "os" || dcbxOpt == "fw" {
		sets += dcbxOpt
	}
	if sets != "" {
		c.mkdirP(c.run)
		f, ok := c.create(132, c.run+"/qos.lock")
		if !ok {
			return 2
		}
		defer f.Close() // the lock goes with the descriptor, at exit
		for {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
			if err != syscall.EINTR {
				break
			}
		}
	}

	st := QoSDefaults()
	state := c.run + "/qos/" + intf
	if accessible(state, 4) {
		if !isDir(state) {
			b, err := readBounded(state, 1<<20)
			if err == nil {
				vars, skipped, bad := parseCommands(string(b))
				for _, cmd := range skipped {
					if !c.onPath(cmd.word) {
						c.errf("%s: %d: %s: %s: not found\n", c.prog, cmd.line, state, cmd.word)
					}
				}
				if bad {
					c.errf("%s: %d: %s: Syntax error: Unterminated quoted string\n", c.prog, strings.Count(string(b), "\n")+1, state)
					return 2
				}
				st.set(vars)
			}
		}
	} else {
		// No call since boot: the trust state is the one the NV config set at boot.
		l, _ := os.Readlink(c.sys + "/class/net/" + intf + "/device")
		bdf := l[strings.LastIndexByte(l, '/')+1:]
		if b, err := readBounded(c.run+"/nvconfig/"+bdf, 16<<20); err == nil && !isDir(c.run+"/nvconfig/"+bdf) {
			for _, l := range records(string(b)) {
				if l == "QOS_TRUST_STATE_P1=2" {
					st.DSCP2Prio = "default"
					break
				}
			}
		}
	}
	if st.DSCP2Prio == "default" {
		st.DSCP2Prio = defaultDSCPMap
	}

	save := func() {
		c.mkdirP(c.run + "/qos") // on failure the redirection below fails too and says so
		f, ok := c.create(166, state+".tmp")
		if !ok {
			return
		}
		_, _ = f.WriteString(st.render())
		f.Close()
		c.mv(state+".tmp", state)
	}

	switch dcbxOpt {
	case "", "get":
	case "os", "fw":
		st.DCBX = dcbxOpt
	default:
		c.print("Invalid dcbx mode command. Refer to the help.\n")
		return 1
	}

	if cableOpt != "" {
		if !allDigits(cableOpt) {
			c.print(echo("Bad value for cable_len: " + cableOpt))
			usage()
			return 1
		}
		st.CableLen = cableOpt
	}

	if getpfcOpt != "" {
		if len(getpfcOpt) == 1 && getpfcOpt[0] >= '0' && getpfcOpt[0] <= '7' {
			c.print(cutField(st.PFC, int(getpfcOpt[0]-'0')+1))
			return 0
		}
		c.print("pfc index must be in range of 0-7\n")
		return 1
	}

	if spfcOpt != "" {
		if v, ok := c.testInt(202, count(spfcOpt), false); ok && v != 8 {
			c.print("pfc list must have 8 items\n")
			return 1
		}
		for i := range 8 {
			switch v := nth(spfcOpt, i); v {
			case "x":
			case "0", "1":
				st.PFC = setnth(st.PFC, i, v)
			default:
				c.print(echo("Bad value for 'PFC': " + v))
				return 1
			}
		}
		save()
		return 0
	}

	checkList := func(name, list, hi, what string) bool {
		n := count(list)
		for i := 0; ; i++ {
			if v, ok := c.testInt(97, n, false); !ok || int64(i) >= v {
				break
			}
			v := nth(list, i)
			if i >= 8 {
				c.print("Too many items for " + name + "\n")
				return false
			}
			if !allDigits(v) {
				c.print(echo("Bad value for " + name + ": invalid literal for int() with base 10: '" + v + "'"))
				usage()
				return false
			}
			if c.testLess(110, v, "0") || c.testGreater(110, v, hi) {
				c.print(echo("Bad value for " + name + ": " + v + " is not in the range 0.." + hi))
				usage()
				return false
			}
		}
		if v, ok := c.testInt(117, n, false); ok && v != 8 {
			c.print(what + " list must have 8 items\n")
			return false
		}
		return true
	}

	if pfcOpt != "" {
		if !checkList("PFC", pfcOpt, "1", "pfc") {
			return 1
		}
		st.PFC = pfcOpt
	}

	if d2pOpts != "" && trustOpt != "" {
		c.print("trust and dscp2prio commands cannot be used at the same time.\n")
		return 1
	}
	for _, op := range globWords(fields(d2pOpts)) {
		switch {
		case op == "flush":
			st.DSCP2Prio = ""
		case (strings.HasPrefix(op, "set,") || strings.HasPrefix(op, "del,")) && strings.Contains(op[4:], ","):
			a, d, p := nth(op, 0), nth(op, 1), nth(op, 2)
			if d+p == "" || !allDigits(d+p) {
				c.print("Invalid dscp2prio command. Refer to the help.\n")
				return 1
			}
			if c.testGreater(235, d, "63") || c.testGreater(235, p, "7") {
				return 1
			}
			st.DSCP2Prio = dscpEdit(st.DSCP2Prio, a, d, p)
		default:
			c.print("Invalid dscp2prio command. Refer to the help.\n")
			return 1
		}
	}

	switch trustOpt {
	case "":
	case "dscp":
		if st.DSCP2Prio == "" {
			st.DSCP2Prio = defaultDSCPMap
		}
	case "pcp":
		st.DSCP2Prio = ""
	default:
		c.print("Invalid trust state command. Refer to the help.\n")
		return 1
	}
	trust := "pcp"
	if st.DSCP2Prio != "" {
		trust = "dscp"
	}

	if p2bOpt != "" {
		if !checkList("prio buffer", p2bOpt, "7", "prio2buffer") {
			return 1
		}
		st.Prio2Buffer = p2bOpt
	}
	if bufszOpt != "" {
		if !checkList("buffer_size", bufszOpt, st.MaxBufferSize, "buffer_size") {
			return 1
		}
		st.BufferSize = bufszOpt
	}
	if rlOpt != "" {
		if !checkList("ratelimit", rlOpt, "1000000", "ratelimit") {
			return 1
		}
		st.RateLimit = rlOpt
	}
	if tsaOpt != "" {
		if v, ok := c.testInt(277, count(tsaOpt), false); ok && v > 8 {
			c.print("Too many items for TSA\n")
			return 1
		}
		for _, t := range globWords(fields(strings.ReplaceAll(echo(tsaOpt), ",", " "))) {
			switch t {
			case "strict", "ets", "vendor":
			default:
				c.print(echo("('Bad TSA value: ', '" + t + "')"))
				usage()
				return 1
			}
		}
		if v, ok := c.testInt(284, count(tsaOpt), false); ok && v != 8 {
			c.print("tsa list must have 8 items\n")
			return 1
		}
		st.TSA = tsaOpt
	}
	if tcbwOpt != "" {
		if !checkList("ETS BW", tcbwOpt, "100", "tcbw") {
			return 1
		}
		for i := range 8 {
			if nth(st.TSA, i) != "ets" && nth(tcbwOpt, i) != "0" {
				c.print("ETS BW for a strict/vendor TC must be 0\n")
				usage()
				return 1
			}
		}
		st.TCBW = tcbwOpt
	}
	if priotcOpt != "" {
		if !checkList("UP => TC mapping", priotcOpt, "7", "prio_tc") {
			return 1
		}
		st.PrioTC = priotcOpt
	}
	if sets != "" {
		save()
	}

	// pretty_print
	if st.DCBX == "os" {
		c.print("DCBX mode: OS controlled\n")
	} else {
		c.print("DCBX mode: Firmware controlled\n")
	}
	c.print("Priority trust state: " + trust + "\n")
	if trust == "dscp" {
		c.print("dscp2prio mapping:\n")
		for _, rec := range records(echo(st.DSCP2Prio)) {
			f := fields(rec)
			for p := range 8 {
				var s string
				for d := 63; d >= 0; d-- {
					if awkEqual(awkField(f, d+1), awkNumber(float64(p))) {
						s += fmt.Sprintf("%02d,", d)
					}
				}
				for len(s) > 24 {
					c.printf("\tprio:%d dscp:%s\n", p, s[:24])
					s = s[24:]
				}
				if s != "" {
					c.printf("\tprio:%d dscp:%s\n", p, s)
				}
			}
		}
	}
	c.print(echo("Receive buffer size (bytes): " + st.BufferSize + ",max_buffer_size=" + st.MaxBufferSize))
	c.print(echo("Cable len: " + st.CableLen))
	c.print("PFC configuration:\n", "\tpriority    0   1   2   3   4   5   6   7\n", "\tenabled     ")
	for _, v := range globWords(ifsSplit(st.PFC, ',')) {
		c.print(pad(itoa(c.printfInt(326, v)), 1, false), "   ")
	}
	c.print("\n\tbuffer      ")
	for _, v := range globWords(ifsSplit(st.Prio2Buffer, ',')) {
		c.print(pad(itoa(c.printfInt(328, v)), 1, false), "   ")
	}
	c.print("\n")
	pt := awkSplitVals(mawkVar(st.PrioTC))
	ts := awkSplitVals(mawkVar(st.TSA))
	bw := awkSplitVals(mawkVar(st.TCBW))
	r := awkSplitVals(mawkVar(st.RateLimit))
	for tc := range 8 {
		var ups []string
		for up := range 8 {
			if awkEqual(awkAt(pt, up+1), awkNumber(float64(tc))) {
				ups = append(ups, strconv.Itoa(up))
			}
		}
		if len(ups) == 0 && printall != "1" {
			continue
		}
		rate := "unlimited"
		if rv := awkAt(r, tc+1); awkGreater0(rv) {
			rate = cFloat1(rv.num()) + " Gbps"
		}
		t := awkAt(ts, tc+1).str()
		if t == "ets" {
			t = "ets, bw: " + awkAt(bw, tc+1).str() + "%"
		}
		c.printf("tc: %d ratelimit: %s, tsa: %s\n", tc, rate, t)
		for _, u := range ups {
			c.print("\t priority:  ", u, "\n")
		}
	}
	return 0
}

// cFloat1 is C's %.1f.
func cFloat1(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	case math.IsNaN(v):
		if math.Signbit(v) {
			return "-nan"
		}
		return "nan"
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// testLess and testGreater are [ "$a" -lt "$b" ] and -gt: false, after
// test's complaint, when either is no number.
func (c *ctx) testLess(line int, a, b string) bool {
	x, ok := c.testInt(line, a, false)
	if !ok {
		return false
	}
	y, ok := c.testInt(line, b, false)
	return ok && x < y
}

func (c *ctx) testGreater(line int, a, b string) bool {
	x, ok := c.testInt(line, a, false)
	if !ok {
		return false
	}
	y, ok := c.testInt(line, b, false)
	return ok && x > y
}

// allDigits reports whether s is a non-empty run of digits: sh's
// case $v in "" | *[!0-9]*) failing.
func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// cutField is the output of echo "$list" | cut -d, -fN.
func cutField(list string, n int) string {
	var b strings.Builder
	for _, l := range records(echo(list)) {
		if !strings.Contains(l, ",") {
			b.WriteString(l + "\n")
			continue
		}
		f := strings.Split(l, ",")
		if n <= len(f) {
			b.WriteString(f[n-1])
		}
		b.WriteString("\n")
	}
	return b.String()
}

// nth is $(nth LIST I): item I (from 0) of a comma-separated list.
func nth(list string, i int) string { return cmdSubst(cutField(list, i+1)) }

// count is $(count LIST): $(echo "$1" | awk -F, '{ print NF }').
func count(list string) string {
	var b strings.Builder
	for _, l := range records(echo(list)) {
		n := 0
		if l != "" {
			n = strings.Count(l, ",") + 1
		}
		b.WriteString(strconv.Itoa(n) + "\n")
	}
	return cmdSubst(b.String())
}

// setnth is $(setnth LIST I V): awk -F, -v OFS=, '{ $n = v; print }'.
func setnth(list string, i int, v string) string {
	var b strings.Builder
	for _, l := range records(echo(list)) {
		var f []string
		if l != "" {
			f = strings.Split(l, ",")
		}
		for len(f) <= i {
			f = append(f, "")
		}
		f[i] = v
		b.WriteString(strings.Join(f, ",") + "\n")
	}
	return cmdSubst(b.String())
}

// dscpEdit is an awk-style edit that sets (a = "set") or deletes DSCP d's
// priority p in the 64-item map (items "-" for none), per line of the map.
// d indexes the map only when it is an index's canonical text: "07" names
// another array element in awk.
func dscpEdit(m, a, d, p string) string {
	var b strings.Builder
	idx := -1
	if v, err := strconv.Atoi(d); err == nil && v >= 0 && v < 64 && strconv.Itoa(v) == d {
		idx = v
	}
	pv := awkInput(p)
	for _, rec := range records(echo(m)) {
		f := fields(rec)
		items := make([]awkVal, 64)
		for i := range items {
			if len(f) > 0 {
				items[i] = awkField(f, i+1)
			} else {
				items[i] = awkVal{kind: awkStr, s: "-"}
			}
		}
		if idx >= 0 {
			if a == "set" {
				items[idx] = pv
			} else if awkEqual(items[idx], pv) {
				items[idx] = awkVal{kind: awkStr, s: "-"}
			}
		}
		strs := make([]string, 64)
		anySet := false
		for i, v := range items {
			strs[i] = v.str()
			if strs[i] != "-" {
				anySet = true
			}
		}
		if anySet {
			b.WriteString(strings.Join(strs, " "))
		}
		b.WriteString("\n")
	}
	return cmdSubst(b.String())
}

// defaultDSCPMap is the map --trust dscp installs: priority DSCP >> 3.
var defaultDSCPMap = func() string {
	s := make([]string, 64)
	for d := range s {
		s[d] = strconv.Itoa(d / 8)
	}
	return strings.Join(s, " ")
}()

// QoSState is an interface's DCB state as mlnx_qos keeps it in
// $TWIN_RUN/qos/<if>: sh assignments "name=value" (dscp2prio single-quoted)
// that a shell can source. Values are kept as text, lists comma-separated; DSCP2Prio is 64 space-separated priorities
// ("-" for none), empty when no DSCP app entry exists, or "default".
type QoSState struct {
	DCBX, PFC, PrioTC, TSA, TCBW, RateLimit, CableLen, Prio2Buffer, BufferSize, MaxBufferSize, DSCP2Prio string
}

// QoSDefaults is the state at boot: DCBX in the OS, no PFC, mlx5's
// prio->tc map (0 and 1 swapped), vendor TSA.
func QoSDefaults() QoSState {
	return QoSState{
		DCBX: "os", PFC: "0,0,0,0,0,0,0,0", PrioTC: "1,0,2,3,4,5,6,7",
		TSA: "vendor,vendor,vendor,vendor,vendor,vendor,vendor,vendor", TCBW: "0,0,0,0,0,0,0,0",
		RateLimit: "0,0,0,0,0,0,0,0", CableLen: "7", Prio2Buffer: "0,0,0,0,0,0,0,0",
		BufferSize: "262016,0,0,0,0,0,0,0", MaxBufferSize: "2097152",
	}
}

// ParseQoSState reads a state file over the defaults as ". file" does:
// assignment-only commands (see ParseProfileEnv); other commands and
// variables other than the state's are ignored. ok is false when the file
// ends inside a quote, which is a syntax error to sh.
func ParseQoSState(s string) (st QoSState, ok bool) {
	st = QoSDefaults()
	vars, bad := parseAssignments(s)
	st.set(vars)
	return st, !bad
}

func (st *QoSState) set(vars map[string]string) {
	for k, p := range map[string]*string{
		"dcbx": &st.DCBX, "pfc": &st.PFC, "prio_tc": &st.PrioTC, "tsa": &st.TSA, "tcbw": &st.TCBW,
		"ratelimit": &st.RateLimit, "cable_len": &st.CableLen, "prio2buffer": &st.Prio2Buffer,
		"buffer_size": &st.BufferSize, "max_buffer_size": &st.MaxBufferSize, "dscp2prio": &st.DSCP2Prio,
	} {
		if v, ok := vars[k]; ok {
			*p = v
		}
	}
}

// render is what save wrote: one echo per variable (so backslash escapes in
// values are interpreted), max_buffer_size left out.
func (st QoSState) render() string {
	return echo("dcbx="+st.DCBX) + echo("pfc="+st.PFC) + echo("prio_tc="+st.PrioTC) + echo("tsa="+st.TSA) +
		echo("tcbw="+st.TCBW) + echo("ratelimit="+st.RateLimit) + echo("cable_len="+st.CableLen) +
		echo("prio2buffer="+st.Prio2Buffer) + echo("buffer_size="+st.BufferSize) + echo("dscp2prio='"+st.DSCP2Prio+"'")
}
