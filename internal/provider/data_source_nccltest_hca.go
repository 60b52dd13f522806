package provider

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// envHCA is the variable of roce_nccl_test's env that selects the RDMA devices, and
// envHCAAttr the attribute that holds it, as the details name it.
const (
	envHCA     = "NCCL_IB_HCA"
	envHCAAttr = `env["NCCL_IB_HCA"]`
)

var envHCAPath = path.Root("env").AtMapKey(envHCA)

// envHCAField is env's NCCL_IB_HCA as the HCA rules are given it, and ncclTestNames the
// data source's names for it.
var (
	envHCAField   = violation.At("env").Entry(envHCA)
	ncclTestNames = fieldNames{"env": path.Root("env")}
)

// envHCASpec parses env's NCCL_IB_HCA. ok is false when env does not set it, or sets it
// empty, which NCCL reads as no list at all (parseStringList returns no entry and
// matchIfList then selects every device: NVIDIA/nccl src/misc/utils.cc at v2.30.7-1), so
// there is nothing to check. err is the refusal of a value NCCL would misread.
func envHCASpec(env map[string]string) (spec fabric.HCASpec, ok bool, err error) {
	v, set := env[envHCA]
	if !set || v == "" {
		return fabric.HCASpec{}, false, nil
	}
	spec, err = fabric.ParseHCAList(v)
	return spec, err == nil, err
}

// validateEnvHCA checks env's NCCL_IB_HCA at plan time, before any host is known: a value
// NCCL would misread is an error, and a name that also selects longer device names
// (mlx5_1 also mlx5_10) is a warning. Read checks it again against the hosts' devices.
func validateEnvHCA(diags *diag.Diagnostics, env map[string]string) {
	spec, ok, err := envHCASpec(env)
	if errors.Is(err, fabric.ErrHCARailPlane) {
		// Valid for NCCL 2.30.7-1 and later, which the plan cannot see on the hosts.
		diags.AddAttributeWarning(envHCAPath, "NCCL Value Not Checked",
			fmt.Sprintf("%s: %v. NCCL reads the device:port:rail:plane form from 2.30.7-1 on; the provider checks only [^][=]device[:port],... "+
				"Make sure every host runs NCCL 2.30.7-1 or later, or use device:port.", envHCAAttr, err))
		return
	}
	if err != nil {
		diags.AddAttributeError(envHCAPath, "Invalid NCCL Value",
			fmt.Sprintf("%s: %v. NCCL reads NCCL_IB_HCA as [^][=]device[:port],...", envHCAAttr, err))
		return
	}
	if ok {
		var ps problems
		ps.add(fabric.HCAPrefixWarnings(spec, nil, envHCAField), ncclTestNames)
		ps.report(diags)
	}
}

// hostDevices is one host's RDMA device names, as ibv_devinfo lists them.
type hostDevices struct {
	host    string
	devices []string
}

// hcaDeviceWarnings checks spec against each host's devices. Hosts with the same device
// names share their warnings, which name them all.
func hcaDeviceWarnings(spec fabric.HCASpec, hosts []hostDevices) violation.List {
	var groups [][]hostDevices
	for _, h := range hosts {
		i := slices.IndexFunc(groups, func(g []hostDevices) bool { return slices.Equal(g[0].devices, h.devices) })
		if i < 0 {
			groups = append(groups, nil)
			i = len(groups) - 1
		}
		groups[i] = append(groups[i], h)
	}
	var vs violation.List
	for _, g := range groups {
		names := make([]string, len(g))
		for i, h := range g {
			names[i] = h.host
		}
		vs = append(vs, fabric.HCADeviceWarnings(spec, names, g[0].devices, envHCAField)...)
	}
	return vs
}

// warnEnvHCADevices checks env's NCCL_IB_HCA against the RDMA devices of the hosts (read by
// readRDMA): an entry that selects none of a host's devices, or more of them than it names.
// The warnings given at plan time are not repeated: Terraform re-validates a data source's
// configuration, with the same values, just before every read (readDataSource in
// hashicorp/terraform internal/terraform/node_resource_abstract_instance.go). A host that
// could not be read is left out: the check only advises, and the run that follows reports an
// unreachable host.
func warnEnvHCADevices(diags *diag.Diagnostics, m ncclTestModel, hosts []hostRDMA) {
	spec, ok, _ := envHCASpec(knownStringMap(m.Env))
	if !ok {
		return
	}
	var read []hostDevices
	for _, h := range hosts {
		if h.devices == nil {
			continue
		}
		names := make([]string, 0, len(h.devices))
		for _, dev := range h.devices {
			names = append(names, dev.Name)
		}
		read = append(read, hostDevices{host: h.host, devices: names})
	}
	var ps problems
	ps.add(hcaDeviceWarnings(spec, read), ncclTestNames)
	ps.report(diags)
}

// hostRDMA is one host's RDMA devices as ibv_devinfo -v prints them; devices is nil when the
// host could not be read.
type hostRDMA struct {
	host    string
	devices []facts.IBDevice
}

// ibvDevinfoVerbose is ibv_devinfo with -v, which adds each port's active width and speed.
var ibvDevinfoVerbose = facts.Probe[[]facts.IBDevice]{Name: "ibv_devinfo -v", Command: facts.IBVDevinfoCommand.Arg("-v"), Parse: facts.ParseIBVDevinfo}

// readRDMA reads every host's RDMA devices, one ibv_devinfo -v each, in parallel and past the
// gather cache.
func (d *ncclTestDataSource) readRDMA(ctx context.Context, m ncclTestModel) []hostRDMA {
	hosts := knownStrings(m.Hosts)
	read := make([]hostRDMA, len(hosts))
	var wg sync.WaitGroup
	for i, h := range hosts {
		address := joinDefaultPort(h.ValueString(), d.data.settings.SSH.Port)
		wg.Go(func() {
			read[i] = hostRDMA{host: h.ValueString(), devices: d.rdmaDevices(ctx, address)}
		})
	}
	wg.Wait()
	return read
}

// rdmaDevices lists the RDMA devices of a host, nil when it cannot be read.
func (d *ncclTestDataSource) rdmaDevices(ctx context.Context, address string) []facts.IBDevice {
	runner, err := d.data.hostRunner(address)
	if err == nil {
		var devs []facts.IBDevice
		if devs, err = host.ReadProbe(ctx, runner, ibvDevinfoVerbose); err == nil {
			if devs == nil {
				devs = []facts.IBDevice{}
			}
			return devs
		}
	}
	tflog.Debug(ctx, "RDMA devices not read", map[string]any{"host": address, "error": strings.TrimSpace(err.Error())})
	return nil
}
