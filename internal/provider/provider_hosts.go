package provider

import (
	"errors"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// hostRunner returns the logged runner of a host address on its pooled SSH client: one
// connection per host for the whole provider process, shared by every resource on that
// host. Tests that replay recorded hosts set dialHost instead.
func (d *providerData) hostRunner(address string) (host.Runner, error) {
	if d.dialHost != nil {
		r, err := d.dialHost(address)
		if err != nil {
			return nil, err
		}
		return loggingRunner{r}, nil
	}
	d.hostsOnce.Do(func() {
		cfg := d.settings.SSH
		cfg.Events = sshEvents{}
		d.hosts, d.hostsErr = ssh.NewPool(cfg)
	})
	if d.hostsErr != nil {
		return nil, d.hostsErr
	}
	return loggingRunner{host.SSH(d.hosts.Client(address))}, nil
}

// hostEngine returns the bootstrapper engine for a host on the pooled connection, with sudo
// when the provider's ssh.become says so, and the address it resolved.
func (d *providerData) hostEngine(hostAddr string) (host.Engine, string, error) {
	address := joinDefaultPort(hostAddr, d.settings.SSH.Port)
	runner, err := d.hostRunner(address)
	if err != nil {
		return host.Engine{}, address, err
	}
	// Logging inside the cache's runner, which the cache unwraps to read without forgetting.
	return host.Engine{Runner: d.gathers.Runner(runner), Sudo: d.settings.SSH.Become.Enabled, Cache: d.gathers, Events: engineEvents{}}, address, nil
}

// reachError marks a failure to read a host, as opposed to a problem with the configuration.
type reachError struct{ err error }

func (e reachError) Error() string { return e.err.Error() }
func (e reachError) Unwrap() error { return e.err }

func isReachError(err error) bool {
	var re reachError
	return errors.As(err, &re)
}

// expectedHostFacts is what the resources and data sources read on a host with their default
// settings: every fact kind, and what each host resource's tasks read (primedNeeds). The first
// gather on a host reads all of it, so the resources on one host share one gather per
// Terraform walk in whatever order Terraform reads them (a resource with its own paths adds
// them to later gathers).
func expectedHostFacts() host.Want {
	want := host.AllFacts()
	for _, needs := range primedNeeds {
		want = want.Union(needs())
	}
	return want
}

// primedNeeds are what each host resource reads with its default settings, declared beside
// the resource from its own tasks: a new host resource adds its function here.
var primedNeeds = []func() host.Want{hostBootstrapNeeds, nicDCQCNNeeds, ncclEnvProfileNeeds}

// readFacts are what the read-only data sources gather: everything they report, without the
// firmware queries (mlxconfig, slow on real cards) and root-only debugfs and RDMA-CM reads
// that only the DCQCN and QoS tasks need.
var readFacts = host.WantFacts(host.FactOFED, host.FactKernel, host.FactLockdown, host.FactIBDevices,
	host.FactIBDev2Netdev, host.FactNetdevs, host.FactGIDs, host.FactTopology, host.FactGPUMemory,
	host.FactModules, host.FactPeerMem, host.FactNVIDIA, host.FactECN, host.FactQoS, host.FactNCCL, host.FactOS)
