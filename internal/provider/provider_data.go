package provider

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg"
	"github.com/clusterbid/terraform-provider-roce/internal/switchcfg/drivers"
)

// providerData is what Configure hands to every resource and data source: the resolved
// settings and the per-target connection pools shared by all resources of one provider
// process.
type providerData struct {
	settings settings
	switches *gnmi.Pool
	cumulus  *nvue.Pool

	hostsOnce sync.Once
	hosts     *ssh.Pool
	hostsErr  error
	// gathers lets the resources on one host share a gather within this process (one
	// Terraform walk); writes through an engine's runner make it forget the host.
	gathers *host.GatherCache
	// dialHost, when set, reaches a host instead of SSH: the fast tests' recorded hosts.
	dialHost func(address string) (host.Runner, error)
}

func newProviderData(s settings) *providerData {
	gathers := host.NewGatherCache(host.DefaultGatherCacheAge)
	gathers.Expect(expectedHostFacts())
	return &providerData{settings: s, switches: gnmi.NewPool(), cumulus: nvue.NewPool(), gathers: gathers}
}

// switchDriver returns the driver of the operating system os.
func switchDriver(os string) (switchcfg.Driver, error) {
	if d, ok := drivers.Lookup(os); ok {
		return d, nil
	}
	return nil, fmt.Errorf("no driver for the switch operating system %q: use one of %s", os, quoteAll(drivers.OSes()))
}

// switchBackend returns drv's backend of the switch at address, on the pooled connection to
// it, with the provider's settings overridden by a resource's own (o, n; nil for none).
// release, when not empty, pins the OS release.
func (d *providerData) switchBackend(drv switchcfg.Driver, address string, o *gnmiLoginModel, n *nvueLoginModel, release string) (switchcfg.Backend, error) {
	backend, err := drv.Open(switchLinks{d: d, address: address, gnmi: o, nvue: n}, release)
	if err != nil {
		return nil, err
	}
	return loggingBackend{Backend: backend, address: d.switchAddress(drv, address), about: drv.About()}, nil
}

// switchAddress is address with the default port of drv's transport when it has none.
func (d *providerData) switchAddress(drv switchcfg.Driver, address string) string {
	port := d.settings.GNMI.Port
	if drv.About().Transport == switchcfg.TransportNVUE {
		port = d.settings.NVUE.Port
	}
	return joinDefaultPort(address, port)
}

// switchLinks open the transports to one switch for a driver.
type switchLinks struct {
	d       *providerData
	address string
	gnmi    *gnmiLoginModel
	nvue    *nvueLoginModel
}

func (l switchLinks) GNMI() (*gnmi.Client, error) {
	cfg, err := l.d.gnmiConfig(l.address, l.gnmi)
	if err != nil {
		return nil, err
	}
	return l.d.switches.Client(cfg)
}

func (l switchLinks) NVUE() (*nvue.Client, error) { return l.d.nvueClient(l.address, l.nvue) }

// nvueClient is the pooled NVUE client of a Cumulus switch, with the provider's nvue settings
// and the resource's overrides o (nil for none).
func (d *providerData) nvueClient(address string, o *nvueLoginModel) (*nvue.Client, error) {
	cfg := o.over(d.settings.NVUE.Config)
	if slices.ContainsFunc(cfg.Check(), func(e *nvue.ConfigError) bool { return e.Rule == nvue.RuleLogin && e.Field == "" }) {
		return nil, fmt.Errorf("no NVUE username and password for this switch: set them in the provider's nvue block (or %s and %s), or in the resource's nvue block", envNVUEUsername, envNVUEPassword)
	}
	addr, err := withDefaultPort(address, d.settings.NVUE.Port)
	if err != nil {
		return nil, err
	}
	cfg.Address = addr
	return d.cumulus.Client(cfg)
}

func (d *providerData) gnmiConfig(address string, o *gnmiLoginModel) (gnmi.Config, error) {
	s := d.settings.GNMI
	addr, err := withDefaultPort(address, s.Port)
	if err != nil {
		return gnmi.Config{}, err
	}
	cfg := o.over(s.Config)
	cfg.Address = addr
	if err := cfg.Validate(); err != nil {
		return gnmi.Config{}, err
	}
	return cfg, nil
}

// over returns cfg with the attributes o sets in place of cfg's; a nil o changes nothing.
func (o *gnmiLoginModel) over(cfg gnmi.Config) gnmi.Config {
	if o == nil {
		return cfg
	}
	override(&cfg.Username, o.Username.ValueString())
	override(&cfg.Password, o.Password.ValueString())
	override(&cfg.CAFile, o.CAFile.ValueString())
	override(&cfg.CertFile, o.CertFile.ValueString())
	override(&cfg.KeyFile, o.KeyFile.ValueString())
	override(&cfg.ServerName, o.ServerName.ValueString())
	override(&cfg.CertificatePin, o.CertificatePin.ValueString())
	if isSet(o.Insecure) {
		cfg.Insecure = o.Insecure.ValueBool()
	}
	return cfg
}

// over returns cfg with the attributes o sets in place of cfg's; a nil o changes nothing.
func (o *nvueLoginModel) over(cfg nvue.Config) nvue.Config {
	if o == nil {
		return cfg
	}
	override(&cfg.Username, o.Username.ValueString())
	override(&cfg.Password, o.Password.ValueString())
	override(&cfg.CAFile, o.CAFile.ValueString())
	override(&cfg.ServerName, o.ServerName.ValueString())
	override(&cfg.CertificatePin, o.CertificatePin.ValueString())
	if isSet(o.Insecure) {
		cfg.Insecure = o.Insecure.ValueBool()
	}
	if isSet(o.AssumeYes) {
		cfg.AssumeYes = o.AssumeYes.ValueBool()
	}
	return cfg
}

func override(dst *string, v string) {
	if v != "" {
		*dst = v
	}
}

// withDefaultPort adds the provider's gNMI port to an address that has none.
func withDefaultPort(address string, port int) (string, error) {
	if _, _, err := net.SplitHostPort(address); err != nil && port == 0 {
		return "", fmt.Errorf("address %q has no port and the provider sets no gnmi.port: write it as host:port (SONiC listens on 8080 or 50051, depending on the image)", address)
	}
	return joinDefaultPort(address, port), nil
}

// joinDefaultPort returns address as it is when it has a port, else address:port.
func joinDefaultPort(address string, port int) string {
	if _, _, err := net.SplitHostPort(address); err == nil {
		return address
	}
	return net.JoinHostPort(address, strconv.Itoa(port))
}

// providerDataFrom is what every resource and data source does in Configure: take the
// provider's data, or report a provider bug when it is of another type. Nil (the provider not
// configured yet, as during validation) is not an error.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected Configure Type",
			fmt.Sprintf("Expected *providerData, got %T. This is a bug in the provider; please report it.", data))
	}
	return pd
}

// quoteAll renders names as "a", "b" or "c".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	if len(q) < 2 {
		return strings.Join(q, "")
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
