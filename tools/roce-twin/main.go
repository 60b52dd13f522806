// Command roce-twin starts and stops twins of a RoCE fabric on this machine, so Terraform
// modules that use the roce provider can be tested in CI without hardware: SONiC switches
// answering gNMI on loopback, and ConnectX/GPU hosts (real sshd in mount namespaces, root
// needed).
//
//	roce-twin up     --state-dir DIR [--switches N] [--release 202411] [--hwsku SKU] [--ports N]
//	                                 [--hosts M] [--profile cx7]
//	roce-twin reboot --state-dir DIR NAME
//	roce-twin down   --state-dir DIR
//
// up starts the twins in a background process and writes DIR/endpoints.json with, for each
// switch, its name, address, username, password and ca_file, and for each host its name,
// address, port, user, private_key_file, known_hosts_file and profile (plus one "ssh" login
// that reaches every host); reboot resets a host's
// hardware state as a power cycle would; down stops everything.
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
	fs.IntVar(&o.ports, "ports", 0, "front-panel ports per switch (0: the twin's default)")
	fs.IntVar(&o.hosts, "hosts", 0, "number of ConnectX/GPU host twins (needs root)")
	fs.StringVar(&o.profile, "profile", "cx7", "hardware profile of the host twins (cx7, cx8, gid-index-5, port-down, inbox, mlnx, lockdown, peermem-wrong-order, dmabuf, vf)")
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
	case "reboot":
		if fs.NArg() != 1 {
			return errors.New("usage: roce-twin reboot --state-dir DIR NAME")
		}
		return reboot(o.stateDir, fs.Arg(0))
	}
	return fmt.Errorf("unknown command %q: use up, reboot or down", args[0])
}

type options struct {
	stateDir string
	switches int
	release  string
	hwsku    string
	ports    int
	hosts    int
	profile  string
}
