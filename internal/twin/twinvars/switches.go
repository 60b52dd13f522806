package twinvars

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// SwitchSpec is what every switch twin of a fabric runs: the options of switchtwin.Options
// that a fabric chooses.
type SwitchSpec struct {
	Release     string
	HWSKU       string
	Ports       int
	BufferModel string
}

// StartSwitches starts n switch twins on loopback with one CA (written to dir) and one login
// for all of them, as with a shared (TACACS or local) account: a provider's gnmi block then
// reaches them all. On error the twins it started are stopped.
func StartSwitches(dir, clientCN string, n int, spec SwitchSpec) ([]*switchtwin.Twin, []SwitchEndpoint, error) {
	pki, err := switchtwin.NewPKI(clientCN)
	if err != nil {
		return nil, nil, err
	}
	files, err := pki.WriteFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return nil, nil, err
	}
	password := hex.EncodeToString(b)
	var twins []*switchtwin.Twin
	var eps []SwitchEndpoint
	for i := range n {
		tw, err := switchtwin.New(switchtwin.Options{
			Release: spec.Release, HWSKU: spec.HWSKU, Ports: spec.Ports, BufferModel: spec.BufferModel,
			Username: "admin", Password: password, TLS: pki.ServerTLS(false),
		})
		var addr string
		if err == nil {
			addr, err = tw.Start("127.0.0.1:0")
		}
		if err != nil {
			for _, t := range twins {
				t.Stop()
			}
			return nil, nil, fmt.Errorf("switch %d: %w", i+1, err)
		}
		twins = append(twins, tw)
		eps = append(eps, SwitchEndpoint{
			Name: fmt.Sprintf("leaf%d", i+1), Address: addr, Username: "admin", Password: password,
			CAFile: files.CA, Release: tw.Release().String(), HWSKU: spec.HWSKU,
		})
	}
	return twins, eps, nil
}
