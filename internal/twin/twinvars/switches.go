package twinvars

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strconv"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// Switch operating systems a fabric's twins run, by the names users give them in `os`.
const (
	OSSONiC   = sonic.OS
	OSCumulus = nvue.OS
)

// SwitchSpec is what the switch twins of a fabric run: the options of switchtwin.Options and
// nvuetwin.Options that a fabric chooses.
type SwitchSpec struct {
	// OS lists the operating systems the switches take in turn (sonic, cumulus); empty means
	// SONiC for all.
	OS          []string
	Release     string // SONiC release
	HWSKU       string // SONiC HWSKU
	Ports       int
	BufferModel string
	// CumulusRelease is the Cumulus Linux release of the Cumulus twins ("5.12").
	CumulusRelease string
}

// Switches are a fabric's running switch twins.
type Switches struct {
	SONiC     []*switchtwin.Twin
	Cumulus   []*nvuetwin.Twin
	Endpoints []SwitchEndpoint
}

// Stop stops every twin.
func (s Switches) Stop() {
	for _, tw := range s.SONiC {
		tw.Stop()
	}
	for _, tw := range s.Cumulus {
		tw.Stop()
	}
}

// StartSwitches starts n switch twins on loopback with one CA (written to dir) and one login
// for all of them, as with a shared (TACACS or local) account: a provider's gnmi block (and
// nvue block for Cumulus twins) then reaches them all. On error the twins it started are
// stopped.
func StartSwitches(dir, clientCN string, n int, spec SwitchSpec) (Switches, error) {
	var s Switches
	pki, err := switchtwin.NewPKI(clientCN)
	if err != nil {
		return s, err
	}
	files, err := pki.WriteFiles(dir)
	if err != nil {
		return s, err
	}
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return s, err
	}
	password := hex.EncodeToString(b)
	for i := range n {
		os := OSSONiC
		if len(spec.OS) > 0 {
			os = spec.OS[i%len(spec.OS)]
		}
		ep := SwitchEndpoint{Name: fmt.Sprintf("leaf%d", i+1), Password: password, CAFile: files.CA, OS: os}
		switch os {
		case OSSONiC:
			err = s.startSONiC(&ep, spec, pki)
		case OSCumulus:
			err = s.startCumulus(&ep, spec, pki)
		default:
			err = fmt.Errorf("operating system %q: use %s or %s", os, OSSONiC, OSCumulus)
		}
		if err != nil {
			s.Stop()
			return Switches{}, fmt.Errorf("switch %d: %w", i+1, err)
		}
		s.Endpoints = append(s.Endpoints, ep)
	}
	return s, nil
}

func (s *Switches) startSONiC(ep *SwitchEndpoint, spec SwitchSpec, pki *switchtwin.PKI) error {
	ep.Username = "admin"
	// Counters poll every second, as counterpoll sets it on a lab switch, so a fabric health
	// read waits two seconds rather than the twenty SONiC's 10 s queue polls would ask.
	tw, err := switchtwin.New(switchtwin.Options{
		Release: spec.Release, HWSKU: spec.HWSKU, Ports: spec.Ports, BufferModel: spec.BufferModel,
		Username: ep.Username, Password: ep.Password, TLS: pki.ServerTLS(false), CounterPollInterval: time.Second,
	})
	if err != nil {
		return err
	}
	if ep.Address, err = tw.Start("127.0.0.1:0"); err != nil {
		return err
	}
	s.SONiC = append(s.SONiC, tw)
	ep.Release, ep.HWSKU, ep.Ports = tw.Release().String(), spec.HWSKU, FrontPanelPorts(tw)
	return nil
}

func (s *Switches) startCumulus(ep *SwitchEndpoint, spec SwitchSpec, pki *switchtwin.PKI) error {
	ep.Username = "cumulus"
	ports := spec.Ports
	if ports == 0 {
		ports = 32
	}
	tw, err := nvuetwin.New(nvuetwin.Options{Release: spec.CumulusRelease, Ports: ports, Username: ep.Username, Password: ep.Password, TLS: pki.ServerTLS(false)})
	if err != nil {
		return err
	}
	if ep.Address, err = tw.Start("127.0.0.1:0"); err != nil {
		return err
	}
	s.Cumulus = append(s.Cumulus, tw)
	ep.Release = cmpOr(spec.CumulusRelease, nvuetwin.DefaultRelease)
	for p := 1; p <= ports; p++ {
		ep.Ports = append(ep.Ports, "swp"+strconv.Itoa(p))
	}
	return nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
