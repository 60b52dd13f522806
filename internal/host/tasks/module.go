package tasks

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// ModulesLoadDir is where systemd-modules-load reads the modules to load at
// boot.
const ModulesLoadDir = "/etc/modules-load.d"

// peermem is the module that lets RDMA NICs reach GPU memory through OFED's
// peer-memory API.
const peermem = "nvidia_peermem"

// ErrDriverBuiltBeforeOFED is wrapped by the error of a ModuleLoaded of
// nvidia_peermem whose modprobe fails with "Invalid argument".
var ErrDriverBuiltBeforeOFED = errors.New("the NVIDIA driver was built before OFED")

// ErrPeermemNeedsOFED is returned by the plan of a ModuleLoaded of
// nvidia_peermem on a host with the inbox RDMA stack.
var ErrPeermemNeedsOFED = errors.New("nvidia_peermem needs OFED's peer-memory API, and this host runs the inbox rdma-core stack")

// ModuleLoaded makes a kernel module loaded now and, with Persist, at every
// boot (a file in /etc/modules-load.d).
type ModuleLoaded struct {
	// Module is the module name, e.g. "nvidia_peermem" ("-" and "_" are
	// the same to the kernel).
	Module string
	// Persist writes /etc/modules-load.d/<Module>.conf so that the module is
	// loaded again after a reboot.
	Persist bool
}

var _ host.Task = ModuleLoaded{}

// moduleName is what modprobe and modules-load.d accept without quoting.
var moduleName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

// Name implements host.Task: "module <name>".
func (t ModuleLoaded) Name() string { return "module " + t.Module }

// Needs implements host.Task: lsmod, the RDMA stack and, with Persist, the
// modules-load.d file.
func (t ModuleLoaded) Needs() host.Want {
	s := host.WantFacts(host.FactModules, host.FactOFED)
	if t.Persist {
		s = s.WithFiles(t.confPath())
	}
	return s
}

func (t ModuleLoaded) confPath() string { return ModulesLoadDir + "/" + t.Module + ".conf" }

// Plan implements host.Task: modprobe when lsmod does not list the module,
// and with Persist the modules-load.d file when it is absent or different.
func (t ModuleLoaded) Plan(f host.Facts) ([]host.Change, error) {
	if !moduleName.MatchString(t.Module) {
		return nil, fmt.Errorf("module name %q: want letters, digits, '_' and '-'", t.Module)
	}
	if !f.Has(host.FactModules) {
		return nil, fmt.Errorf("cannot list loaded modules: %s", f.Absent[host.FactModules.String()])
	}
	name := host.ModuleName(t.Module)
	var out []host.Change
	switch {
	case f.ModuleLoaded(name):
		out = append(out, host.Unchanged(name+" is loaded"))
	case name == peermem && f.Has(host.FactOFED) && f.OFED.Flavor == facts.OFEDInbox:
		return nil, fmt.Errorf("%w: install MLNX_OFED or DOCA-OFED, then rebuild the NVIDIA driver after it; "+
			"or use DMA-BUF instead (kernel 5.12 or later and the open GPU kernel modules)", ErrPeermemNeedsOFED)
	default:
		out = append(out, host.Change{
			Summary: "load kernel module " + name,
			Before:  "not loaded",
			After:   "loaded",
			Apply: host.Commands{
				Run:     []shell.Runnable{shell.New("modprobe", t.Module)},
				Sudo:    true,
				Explain: explainModprobe(name),
			},
		})
	}
	if !t.Persist {
		return out, nil
	}
	conf := File{Path: t.confPath(), Content: t.Module + "\n"}
	cs, err := conf.Plan(f)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if c.Apply == nil {
			c.Summary = "loaded at boot: " + c.Summary
		} else {
			c.Summary = "load at boot: " + c.Summary
		}
		out = append(out, c)
	}
	return out, nil
}

// explainModprobe recognises the failure of nvidia_peermem built against
// another OFED. modprobe's message is the only signal a client gets (the
// symbol-version lines go to the kernel log), so this matches its text.
func explainModprobe(name string) func(error) error {
	return func(err error) error {
		var ce *ssh.CommandError
		if name != peermem || !errors.As(err, &ce) || !bytes.Contains(ce.Stderr, []byte("Invalid argument")) {
			return nil
		}
		return fmt.Errorf("%w: modprobe %s fails with \"Invalid argument\" because the driver's nvidia-peermem "+
			"does not match OFED's peer-memory symbols (dmesg: \"disagrees about version of symbol "+
			"ib_register_peer_memory_client\"); reinstall or rebuild the NVIDIA driver after OFED "+
			"(dkms autoinstall, or reinstall the driver package), then apply again: %w", ErrDriverBuiltBeforeOFED, name, err)
	}
}
