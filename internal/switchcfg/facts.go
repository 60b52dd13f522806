package switchcfg

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// Facts are what the provider learns about a switch before planning.
type Facts struct {
	Release  sonic.Release
	HWSKU    string
	Platform string
	Ports    map[string]PortFacts
}

// PortFacts is one front-panel port as CONFIG_DB PORT describes it.
type PortFacts struct {
	SpeedGbps int
	MTU       int
}

// factsFrom reads the facts out of a CONFIG_DB image. release, when not zero, overrides
// what the switch says (for images whose version the provider cannot read).
func factsFrom(db sonic.DB, release sonic.Release) (Facts, error) {
	meta, _ := db.Entry(tableDeviceMetadata, "localhost")
	f := Facts{Release: release, HWSKU: meta["hwsku"], Platform: meta["platform"], Ports: map[string]PortFacts{}}
	if f.Release.IsZero() {
		v, _ := db.Entry(tableVersions, "DATABASE")
		rel, err := sonic.ParseRelease(v["VERSION"])
		if err != nil {
			return f, fmt.Errorf("cannot tell the SONiC release from VERSIONS|DATABASE %q: set sonic_release on the resource: %w", v["VERSION"], err)
		}
		f.Release = rel
	}
	for name, e := range db[tablePort] {
		speed, _ := strconv.Atoi(e["speed"])
		mtu, _ := strconv.Atoi(e["mtu"])
		if mtu == 0 {
			mtu = defaultPortMTU
		}
		f.Ports[name] = PortFacts{SpeedGbps: speed / 1000, MTU: mtu}
	}
	return f, nil
}

// defaultPortMTU is SONiC's port MTU when PORT|<port> has no mtu field.
const defaultPortMTU = 9100

// PlatformModel returns the buffer model of the switch, from its platform string
// (x86_64-nvidia_sn5600-r0) or HWSKU.
func (f Facts) PlatformModel() (fabric.Platform, bool) {
	for _, candidate := range []string{f.Platform, f.HWSKU} {
		lower := strings.ToLower(candidate)
		for _, name := range fabric.PlatformNames() {
			if strings.Contains(lower, strings.ToLower(name)) {
				return fabric.LookupPlatform(name)
			}
		}
	}
	return fabric.Platform{}, false
}

// CheckPorts reports policy ports the switch does not have, with the attribute path.
func (f Facts) CheckPorts(ports []string) fabric.Findings {
	var fs fabric.Findings
	for i, port := range ports {
		if _, ok := f.Ports[port]; !ok {
			fs = append(fs, errorAt(fmt.Sprintf("ports[%d]", i), "Unknown Port",
				fmt.Sprintf("ports[%d] is %q, which the switch (%s) does not have in its PORT table; check the name (front-panel ports are Ethernet<lane>, e.g. Ethernet0, Ethernet8 on 8-lane ports).", i, port, f.HWSKU)))
		}
	}
	return fs
}

// Headroom returns the lossless headroom of the policy's fastest port, the worst case
// buffermgrd reserves, and checks that every port's reservation fits the platform's ingress
// lossless pool. speedOverride, when positive, replaces the speeds the switch reports.
func (f Facts) Headroom(p Policy, speedOverride int) (fabric.Headroom, fabric.Findings) {
	var worst fabric.Headroom
	for _, port := range p.Ports {
		pf, ok := f.Ports[port]
		if !ok {
			continue
		}
		if speedOverride > 0 {
			pf.SpeedGbps = speedOverride
		}
		h, err := fabric.ComputeHeadroom(fabric.Port{SpeedGbps: pf.SpeedGbps, CableLengthM: float64(p.CableLengthM), MTU: pf.MTU}, fabric.WorstCasePattern())
		if err != nil {
			at := "ports" // the port's own speed or MTU, read from the switch
			if speedOverride > 0 {
				at = "port_speed_gbps"
			}
			return worst, fabric.Findings{errorAt(at, "Cannot Compute Headroom", fmt.Sprintf("port %s: %v", port, err))}
		}
		if h.SizeBytes > worst.SizeBytes {
			worst = h
		}
	}
	platform, ok := f.PlatformModel()
	if !ok {
		return worst, fabric.Findings{{Severity: fabric.SeverityWarning, Path: "ports", Summary: "Unknown Buffer Size",
			Detail: fmt.Sprintf("the switch platform %q (HWSKU %q) is not in the provider's table of Spectrum-4 buffer pools, so the lossless reservation of %d ports was not checked against the pool.", f.Platform, f.HWSKU, len(p.Ports))}}
	}
	perPort := worst.SizeBytes + p.PFC.PauseThresholdBytes
	return worst, fabric.CheckCapacity(platform, perPort, len(p.Ports))
}

// FastestPort returns the highest speed in Gb/s among the policy's ports (speedOverride
// when positive), 0 when none is known.
func (f Facts) FastestPort(ports []string, speedOverride int) int {
	if speedOverride > 0 {
		return speedOverride
	}
	fastest := 0
	for _, p := range ports {
		fastest = max(fastest, f.Ports[p].SpeedGbps)
	}
	return fastest
}
