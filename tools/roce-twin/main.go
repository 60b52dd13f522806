// Command roce-twin starts and stops twins of a RoCE fabric on this machine (SONiC switches
// answering gNMI on loopback), so Terraform modules that use the roce provider can be tested
// in CI without hardware.
//
//	roce-twin up   --state-dir DIR [--switches N] [--release 202411] [--hwsku SKU] [--ports N]
//	roce-twin down --state-dir DIR
//
// up starts the twins in a background process and writes DIR/endpoints.json with, for each
// switch, its name, address, username, password and ca_file; down stops them.
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
	}
	return fmt.Errorf("unknown command %q: use up or down", args[0])
}

type options struct {
	stateDir string
	switches int
	release  string
	hwsku    string
	ports    int
}
