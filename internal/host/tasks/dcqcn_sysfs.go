package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// sysfsNetRoot is where the kernel lists network interfaces.
const sysfsNetRoot = "/sys/class/net"

// ecnDir is the OFED DCQCN tree of a netdev.
func ecnDir(netdev string) string { return sysfsNetRoot + "/" + netdev + "/ecn" }

// planSysfs compares the ecn/ tree of n with want and writes what differs.
func planSysfs(n host.Netdev, st facts.ECNState, want []dcqcnSetting) ([]host.Change, error) {
	var d knobDiff
	for _, s := range want {
		cur, ok := sysfsValue(st, s)
		if !ok {
			return nil, fmt.Errorf("netdev %s: %s/%s is missing: this OFED version or firmware does not expose it; "+
				"upgrade DOCA-OFED/MLNX_OFED or the NIC firmware", n.Name, ecnDir(n.Name), s.sysfsFile())
		}
		d.add(s.sysfsFile(), cur, s.value, echoInto(ecnDir(n.Name)+"/"+s.sysfsFile(), s.value))
	}
	if d.empty() {
		return []host.Change{host.Unchanged(fmt.Sprintf("%s has its DCQCN values (OFED sysfs, %d checked)", n.Name, len(want)))}, nil
	}
	c := d.change(fmt.Sprintf("set DCQCN of %s through OFED sysfs", n.Name), len(want), "", explainWrite(n.Name, pathSysfs))
	c.Subject = n.Name
	return []host.Change{c}, nil
}

// sysfsValue is the current value of s in an ecn/ tree; ok is false when the
// tree has no such file.
func sysfsValue(st facts.ECNState, s dcqcnSetting) (int64, bool) {
	if s.prio >= 0 {
		on := st.RPEnabled[s.prio]
		if s.side == "np" {
			on = st.NPEnabled[s.prio]
		}
		return dcqcnBit(on), true
	}
	m := st.RP
	if s.side == "np" {
		m = st.NP
	}
	v, ok := m[s.name]
	return v, ok
}

func dcqcnBit(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// echoInto is the command that writes v to the sysfs or debugfs file at
// path: echo v >path, the path quoted.
func echoInto(path string, v int64) shell.Command {
	return shell.New("echo", strconv.FormatInt(v, 10)).With(shell.ToFile(1, path))
}

// knobDiff collects the values of one netdev that differ and the commands
// that write them.
type knobDiff struct {
	before, after []string
	run           []shell.Runnable
}

func (d *knobDiff) add(name string, cur, want int64, cmd shell.Runnable) {
	if cur == want {
		return
	}
	d.addText(name+"="+strconv.FormatInt(cur, 10), name+"="+strconv.FormatInt(want, 10), cmd)
}

// addText records a difference whose before and after need more words than
// name=value.
func (d *knobDiff) addText(before, after string, cmd shell.Runnable) {
	d.before = append(d.before, before)
	d.after = append(d.after, after)
	d.run = append(d.run, cmd)
}

func (d *knobDiff) empty() bool { return len(d.run) == 0 }

// change is the change that writes the differing values; suffix is appended
// to After (e.g. "(effective after reboot)").
func (d *knobDiff) change(summary string, total int, suffix string, explain func(error) error) host.Change {
	after := strings.Join(d.after, ", ")
	if suffix != "" {
		after += " " + suffix
	}
	return host.Change{
		Summary: fmt.Sprintf("%s: %d of %d values differ", summary, len(d.run), total),
		Before:  strings.Join(d.before, ", "),
		After:   after,
		Apply:   host.Commands{Run: d.run, Sudo: true, Explain: explain},
	}
}

// explainWrite turns the kernel's answers to a rejected DCQCN write into
// errors that name the netdev, the cause and the fix.
func explainWrite(netdev string, p dcqcnPath) func(error) error {
	return func(err error) error {
		var ce *ssh.CommandError
		if !errors.As(err, &ce) {
			return nil
		}
		switch {
		case bytes.Contains(ce.Stderr, []byte("Invalid argument")):
			return fmt.Errorf("netdev %s: the driver rejected a DCQCN value (%s, \"Invalid argument\"): "+
				"a value is outside this firmware's range; check the values against the NIC's documentation: %w", netdev, p, err)
		case bytes.Contains(ce.Stderr, []byte("Operation not permitted")) && p == pathDebugfs:
			return fmt.Errorf("netdev %s: debugfs refused the write (\"Operation not permitted\"): the kernel is "+
				"probably locked down (Secure Boot); install OFED for its ecn/ sysfs or use mlxconfig: %w", netdev, err)
		case bytes.Contains(ce.Stderr, []byte("Permission denied")):
			return fmt.Errorf("netdev %s: the %s files are read-only (\"Permission denied\"): run as root "+
				"(Engine.Sudo) and configure a physical function, not a VF: %w", netdev, p, err)
		}
		return nil
	}
}
