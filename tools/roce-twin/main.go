// Command roce-twin starts and stops twins of a RoCE fabric on this machine, so Terraform
// modules that use the roce provider can be tested in CI without hardware: SONiC switches
// answering gNMI on loopback, and ConnectX/GPU hosts (real sshd in mount namespaces, root
// needed).
//
//	roce-twin up     --state-dir DIR [--switches N] [--release 202411] [--hwsku SKU] [--ports N]
//	                                 [--buffer-model traditional|dynamic]
//	                                 [--switch-os sonic[,cumulus...]] [--cumulus-release 5.12]
//	                                 [--hosts M] [--profile cx7[,rocky9...]] [--tfvars FILE]
//	roce-twin reboot  --state-dir DIR NAME
//	roce-twin traffic --state-dir DIR [--drop SWITCH/PORT] [--storm SWITCH/PORT] [--clear]
//	roce-twin down    --state-dir DIR
//
// up starts the twins in a background process and writes DIR/endpoints.json with, for each
// switch, its name, address, username, password and ca_file, and for each host its name,
// address, port, user, private_key_file, known_hosts_file and profile (plus one "ssh" login
// that reaches every host); reboot resets a host's
// hardware state as a power cycle would; down stops everything.
//
// With hosts and SONiC switches, the twins carry RoCE traffic on priority 3 (internal/twin/
// traffic): the hosts' ports are cabled rail by rail to the SONiC switches' ports, and every
// 200 ms the switches' COUNTERS_DB and the NICs' hw_counters and ethtool -S move as the
// configuration makes them (ECN marks, CNPs, pauses, drops). traffic prints the cabling;
// --drop makes a switch port's lossless queue drop, --storm makes the host behind it send a
// PFC storm, --clear ends both. All switch twins of one
// fabric share one generated password, so one provider gnmi block reaches them all.
//
// With --tfvars FILE, up also writes FILE (name it terraform.tfvars.json in the root module's
// directory, or pass it with -var-file) with these Terraform variables, the ones examples/demo
// declares and passes on to examples/modules/rail-optimized-pod and to the provider block:
//
//	switches  list of {name, address, os, ports, sonic_release, hwsku}: os is sonic or cumulus,
//	          ports are the twin's front-panel ports in order (Ethernet0, Ethernet4, ... or
//	          swp1, swp2, ...; --ports of them), sonic_release is null on Cumulus
//	nvue      {username, password, ca_file}: the provider's nvue block (null without Cumulus
//	          switches)
//	hosts     list of {name, address, profile}: address is "127.0.0.1:<port>"
//	gnmi      {username, password, ca_file}: the provider's gnmi block (null without SONiC
//	          switches)
//	ssh       {user, private_key_file, known_hosts_file}: the provider's ssh block (null
//	          without hosts)
//	ofed      {flavor, version, repo_url, repo_urls, trusted}: the OFED stack the host twins
//	          run, from the twin repository (e.g. doca, 25.10-1.7.1,
//	          file:/srv/twin-apt/doca/25.10-1.7.1, true), for roce_host_bootstrap;
//	          repo_urls maps each package family of the fleet ("debian", "rhel") to its
//	          repository (apt or dnf), repo_url is the first host's; null without hosts
//
// Every key is always present. Object attributes a root module's variable types do not
// declare (hwsku, profile) are dropped by Terraform. The file holds the switch password and
// is written with mode 0600.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "roce-twin:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return errors.New("usage: roce-twin up|down --state-dir DIR [flags]")
	}
	fs := flag.NewFlagSet("roce-twin "+args[0], flag.ContinueOnError)
	var o options
	fs.StringVar(&o.stateDir, "state-dir", "", "directory for the twins' state, keys and endpoints.json (required)")
	fs.IntVar(&o.switches, "switches", 1, "number of SONiC switch twins")
	fs.StringVar(&o.release, "release", "202411", "SONiC release the switch twins run (selects the GCU allowlist)")
	fs.StringVar(&o.hwsku, "hwsku", "Mellanox-SN5600-O128", "switch HWSKU: ACS-SN5600 (64 x 800G) or Mellanox-SN5600-O128 (128 x 400G)")
	fs.StringVar(&o.switchOS, "switch-os", "sonic", "operating system of the switch twins, or a comma-separated list the switches take in turn: sonic (gNMI) or cumulus (NVUE REST API)")
	fs.StringVar(&o.cumulusRelease, "cumulus-release", "5.12", "Cumulus Linux release of the cumulus switch twins (5.9 to 5.14)")
	fs.StringVar(&o.bufferModel, "buffer-model", "traditional", "SONiC buffer model of the switch twins: traditional (buffermgrd, lookup table) or dynamic (buffermgrdyn, computed headroom in APPL_DB)")
	fs.IntVar(&o.ports, "ports", 0, "front-panel ports per switch (0: the twin's default)")
	fs.IntVar(&o.hosts, "hosts", 0, "number of ConnectX/GPU host twins (needs root)")
	fs.StringVar(&o.tfvars, "tfvars", "", "also write the fabric as Terraform variables (switches, hosts, gnmi, ssh, ofed) to this terraform.tfvars.json")
	fs.StringVar(&o.drop, "drop", "", "traffic: make this switch port's lossless queue drop (SWITCH/PORT, e.g. leaf1/Ethernet0)")
	fs.StringVar(&o.storm, "storm", "", "traffic: make the host behind this switch port send a PFC storm (SWITCH/PORT)")
	fs.BoolVar(&o.clearFaults, "clear", false, "traffic: end every --drop and --storm")
	fs.StringVar(&o.profile, "profile", "cx7", "hardware profile of the host twins, or a comma-separated list the hosts take in turn (cx7, cx8, gid-index-5, nccl-2.19, port-down, inbox, mlnx, lockdown, peermem-wrong-order, dmabuf, vf, rocky9, rocky9-inbox, rocky9-peermem-wrong-order)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if o.stateDir == "" {
		return errors.New("--state-dir is required")
	}
	switch args[0] {
	case "up":
		return up(o)
	case "down":
		return down(o.stateDir)
	case "serve":
		return serve(o)
	case "traffic":
		return trafficCommand(o.stateDir, o.drop, o.storm, o.clearFaults)
	case "reboot":
		if fs.NArg() != 1 {
			return errors.New("usage: roce-twin reboot --state-dir DIR NAME")
		}
		return reboot(o.stateDir, fs.Arg(0))
	}
	return fmt.Errorf("unknown command %q: use up, reboot, traffic or down", args[0])
}

type options struct {
	stateDir       string
	switches       int
	release        string
	hwsku          string
	ports          int
	bufferModel    string
	switchOS       string
	cumulusRelease string
	hosts          int
	profile        string
	tfvars         string
	drop, storm    string
	clearFaults    bool
}
