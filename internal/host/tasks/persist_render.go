package tasks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// persistRenderedBy is the line every installed file carries.
const persistRenderedBy = "Rendered by terraform-provider-roce; local edits are overwritten by the next apply."

// UnitFile renders the systemd oneshot unit that runs the script at boot.
func (p Persistence) UnitFile() string {
	return "# " + p.Unit() + ": re-applies the RoCE host settings \"" + p.ID + "\" at boot.\n" +
		"# " + persistRenderedBy + "\n" +
		"[Unit]\n" +
		"Description=RoCE host settings " + p.ID + " (DCQCN, host QoS)\n" +
		"After=openibd.service network-online.target\n" +
		"Wants=network-online.target\n" +
		"\n" +
		"[Service]\n" +
		"Type=oneshot\n" +
		"RemainAfterExit=yes\n" +
		"ExecStart=" + p.ScriptPath() + "\n" +
		"\n" +
		"[Install]\n" +
		"WantedBy=" + persistTarget + "\n"
}

// UdevRule renders the rule that runs the script, for that netdev only,
// when a ConnectX netdev appears. Its number (90) puts it after the rule that
// renames interfaces (80-net-setup-link), so $name is the final name.
func (p Persistence) UdevRule() string {
	return "# 90-roce-" + p.ID + ".rules: re-applies the RoCE host settings \"" + p.ID + "\" when a ConnectX netdev appears\n" +
		"# (driver reload, openibd restart). " + persistRenderedBy + "\n" +
		`ACTION=="add", SUBSYSTEM=="net", DRIVERS=="mlx5_core", RUN+="` + p.ScriptPath() + ` $name"` + "\n"
}

// persistScriptHead is the part of the script that does not depend on the
// settings; %[1]s is the script's name in messages. It is a trusted
// constant.
const persistScriptHead = `# Usage: %[1]s [NETDEV]  (with NETDEV, only that netdev: what the udev rule does)
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
only=${1-}
rc=0

# put FILE VALUE writes VALUE into a sysfs or debugfs FILE.
put() {
	echo "$2" >"$1" || { echo "%[1]s: cannot write $2 to $1" >&2; rc=1; }
}

# run TOOL ARGS... runs a tool, keeping its report out of the journal.
run() {
	"$@" >/dev/null || { echo "%[1]s: failed: $*" >&2; rc=1; }
}

# want NETDEV succeeds when NETDEV is to be set up now and exists.
want() {
	[ -z "$only" ] || [ "$only" = "$1" ] || return 1
	[ -e "/sys/class/net/$1" ] && return 0
	[ -n "$only" ] || { echo "%[1]s: netdev $1 not found" >&2; rc=1; }
	return 1
}

# ibdev NETDEV prints the RDMA device of NETDEV.
ibdev() {
	for d in "/sys/class/net/$1/device/infiniband/"*; do
		[ -e "$d" ] && { echo "${d##*/}"; return 0; }
	done
	echo "%[1]s: netdev $1 has no RDMA device" >&2
	return 1
}
`

// Script renders the apply script for the host f describes: the same
// netdevs, DCQCN path and values as the DCQCN task's plan, and the same
// mlnx_qos options, traffic class and RDMA-CM ToS as the HostQoS task's.
func (p Persistence) Script(f host.Facts) (string, error) {
	if err := p.validate(); err != nil {
		return "", err
	}
	self := "roce-" + p.ID + "-apply"
	var b strings.Builder
	b.WriteString("#!/bin/sh\n")
	b.WriteString("# " + self + ": re-applies the RoCE host settings \"" + p.ID + "\" (DCQCN, host QoS) that the\n")
	b.WriteString("# provider applied live. Run at boot by " + p.Unit() + " and for each new ConnectX netdev by\n")
	b.WriteString("# 90-roce-" + p.ID + ".rules. " + persistRenderedBy + "\n")
	fmt.Fprintf(&b, persistScriptHead, self)
	var calls []string
	if p.DCQCN != nil {
		c, err := p.renderDCQCN(&b, f)
		if err != nil {
			return "", err
		}
		calls = append(calls, c...)
	}
	if p.QoS != nil {
		c, err := p.renderQoS(&b, f)
		if err != nil {
			return "", err
		}
		calls = append(calls, c...)
	}
	b.WriteString("\n")
	for _, c := range calls {
		b.WriteString(c + "\n")
	}
	b.WriteString("exit $rc\n")
	return b.String(), nil
}

// renderDCQCN writes the DCQCN functions the host needs and returns the
// lines that call them, one per netdev.
func (p Persistence) renderDCQCN(b *strings.Builder, f host.Facts) ([]string, error) {
	t := *p.DCQCN
	want, err := t.settings()
	if err != nil {
		return nil, err
	}
	targets, err := t.targets(f)
	if err != nil {
		return nil, err
	}
	var calls []string
	var sysfs, debugfs bool
	for _, tg := range targets.list {
		nd := shell.Quote(tg.netdev.Name)
		switch tg.path {
		case pathSysfs:
			sysfs = true
			calls = append(calls, "want "+nd+" && dcqcn_sysfs "+nd)
		case pathDebugfs:
			if !pciAddrRE.MatchString(tg.netdev.PCIAddr) {
				return nil, fmt.Errorf("netdev %s: PCI address %q is not of the form 0000:17:00.0", tg.netdev.Name, tg.netdev.PCIAddr)
			}
			debugfs = true
			calls = append(calls, "want "+nd+" && dcqcn_debugfs "+tg.netdev.PCIAddr)
		default:
			calls = append(calls, "# "+nd+": DCQCN is in the NIC's NV configuration (mlxconfig); firmware applies it at boot")
		}
	}
	if sysfs {
		fmt.Fprintf(b, "\n# dcqcn_sysfs NETDEV: DCQCN through OFED's ecn/ tree, %s switched on.\ndcqcn_sysfs() {\n", prioritiesText(t.priorities()))
		for _, s := range want {
			fmt.Fprintf(b, "\tput \"%s/%s\" %d\n", ecnDir("$1"), s.sysfsFile(), s.value)
		}
		b.WriteString("}\n")
	}
	if debugfs {
		b.WriteString("\n# dcqcn_debugfs BDF: DCQCN through debugfs cc_params (no per-priority enable there).\ndcqcn_debugfs() {\n")
		for _, s := range want {
			if file, ok := s.debugfsFile(); ok && knobNameRE.MatchString(file) {
				fmt.Fprintf(b, "\tput \"%s/%s\" %d\n", ccDir("$1"), file, s.value)
			}
		}
		b.WriteString("}\n")
	}
	return calls, nil
}

// renderQoS writes the qos function and returns the lines that call it,
// one per netdev.
func (p Persistence) renderQoS(b *strings.Builder, f host.Facts) ([]string, error) {
	t := *p.QoS
	if err := t.validate(); err != nil {
		return nil, err
	}
	opts, _, _ := t.mlnxQoSOptions(nil)
	if len(opts) == 0 && !t.setsClass() {
		return nil, nil
	}
	nds, _, err := selectRoCENetdevs(f, t.Netdevs, vfQoS)
	if err != nil {
		return nil, err
	}
	if err := t.checkClassStack(f); err != nil {
		return nil, err
	}
	for _, n := range nds {
		if len(opts) == 0 {
			break
		}
		if _, err := mlnxQoSState(f, n); err != nil {
			return nil, err
		}
	}
	b.WriteString("\n# qos NETDEV: trust and PFC (mlnx_qos), RoCE traffic class and RDMA-CM ToS.\nqos() {\n")
	if len(opts) > 0 {
		b.WriteString("\trun mlnx_qos -i \"$1\" " + persistQuote(opts) + "\n")
	}
	if t.setsClass() {
		b.WriteString("\tif dev=$(ibdev \"$1\"); then\n")
		if t.TrafficClass >= 0 {
			b.WriteString("\t\tput \"" + trafficClassFile("$dev") + "\" " + strconv.Itoa(t.TrafficClass) + "\n")
		}
		if t.CMARoCETos >= 0 {
			b.WriteString("\t\trun cma_roce_tos -d \"$dev\" " + persistQuote(cmaTosOptions(t.CMARoCETos)) + "\n")
		}
		b.WriteString("\telse\n\t\trc=1\n\tfi\n")
	}
	b.WriteString("}\n")
	calls := make([]string, len(nds))
	for i, n := range nds {
		nd := shell.Quote(n.Name)
		calls[i] = "want " + nd + " && qos " + nd
	}
	return calls, nil
}

// persistQuote quotes each word for the script.
func persistQuote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shell.Quote(w)
	}
	return strings.Join(q, " ")
}
