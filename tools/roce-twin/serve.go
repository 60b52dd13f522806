package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// endpoints is DIR/endpoints.json: what a test or a tfvars file needs to reach the twins.
type endpoints struct {
	Switches []switchEndpoint `json:"switches"`
}

type switchEndpoint struct {
	Name     string `json:"name"`
	Address  string `json:"address"`
	Username string `json:"username"`
	Password string `json:"password"`
	CAFile   string `json:"ca_file"`
	Release  string `json:"release"`
	HWSKU    string `json:"hwsku"`
}

// serve runs the twins in this process until SIGTERM or SIGINT.
func serve(o options) error {
	if err := os.WriteFile(filepath.Join(o.stateDir, pidFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		return err
	}
	pki, err := switchtwin.NewPKI("roce-twin")
	if err != nil {
		return err
	}
	files, err := pki.WriteFiles(o.stateDir)
	if err != nil {
		return err
	}
	var ep endpoints
	for i := range o.switches {
		password, err := randomPassword()
		if err != nil {
			return err
		}
		tw, err := switchtwin.New(switchtwin.Options{
			Release: o.release, HWSKU: o.hwsku, Ports: o.ports,
			Username: "admin", Password: password, TLS: pki.ServerTLS(false),
		})
		if err != nil {
			return fmt.Errorf("switch %d: %w", i, err)
		}
		addr, err := tw.Start("127.0.0.1:0")
		if err != nil {
			return fmt.Errorf("switch %d: %w", i, err)
		}
		defer tw.Stop()
		ep.Switches = append(ep.Switches, switchEndpoint{
			Name: fmt.Sprintf("leaf%d", i+1), Address: addr, Username: "admin", Password: password,
			CAFile: files.CA, Release: tw.Release().String(), HWSKU: o.hwsku,
		})
	}
	if err := writeEndpoints(o.stateDir, ep); err != nil {
		return err
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	return nil
}

func writeEndpoints(dir string, ep endpoints) error {
	raw, err := json.MarshalIndent(ep, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(dir, endpointsFile+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, endpointsFile))
}

func randomPassword() (string, error) {
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
