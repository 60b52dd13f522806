// Package ncclprofile turns the NCCL settings of a host resource into the lines of
// /etc/nccl.conf, consistent with the fabric's traffic class and the host's GID table.
package ncclprofile

import (
	"errors"
	"fmt"
	"maps"
	"net/netip"
	"slices"
	"strconv"
	"strings"

	"github.com/hashicorp/go-version"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// GID index modes.
const (
	// GIDAuto leaves NCCL_IB_GID_INDEX unset where NCCL picks the RoCE v2 entry per HCA
	// itself (2.21 and later, as NCCL's documentation asks), and writes the host's RoCE v2
	// IPv4 index for older NCCL, whose default is index 0 (NVIDIA/nccl
	// src/transport/net_ib.cc v2.20.5-1: NCCL_PARAM(IbGidIndex, "IB_GID_INDEX", 0); -1 and
	// ncclIbGetGidIndex from v2.21.5-1).
	GIDAuto = "auto"
	// GIDDetect reads the host's GID table and writes the RoCE v2 IPv4 index, refusing
	// hosts where the HCAs disagree (a set value applies to every HCA).
	GIDDetect = "detect"
)

// Profile is what a user asks of one host's NCCL environment. Nil pointers and empty
// strings leave a variable to NCCL's default (it is not written).
type Profile struct {
	HCAs             []string // exact device names; rendered with "=" so mlx5_1 cannot match mlx5_10
	SocketIfname     string
	RDMADSCP         int // NCCL_IB_TC = DSCP << 2 | ECT(0)
	GIDIndex         string
	QPsPerConnection *int
	CrossNIC         *int
	GDRLevel         string
	Debug            string
	DebugSubsys      string
	NCCLVersion      string // NCCL the jobs run, as the user states it; "" means the host's
	Extra            map[string]string
	// Installed is the NCCL found on the host ("2.19.3") and InstalledFrom where
	// ("package libnccl2 2.19.3-1+cuda12.2"); used when NCCLVersion is empty.
	Installed, InstalledFrom string
}

// ncclAutoGIDSince is the first NCCL that selects the GID index itself.
const ncclAutoGIDSince = "2.21"

// Version is the NCCL version the file is written for: NCCLVersion, else the installed one,
// else "" (unknown).
func (p Profile) Version() string {
	if p.NCCLVersion != "" {
		return p.NCCLVersion
	}
	return p.Installed
}

// versionSource says where Version comes from, for notes and errors.
func (p Profile) versionSource() string {
	switch {
	case p.NCCLVersion != "":
		return "nccl_version"
	case p.Installed != "":
		return "the host's " + p.InstalledFrom
	}
	return ""
}

// oldNCCL reports whether the NCCL version is known and has no GID auto-selection.
func (p Profile) oldNCCL() bool {
	v := p.Version()
	if v == "" {
		return false
	}
	older, err := versionBefore(v, ncclAutoGIDSince)
	return err == nil && older
}

// gidMode names the setting that reads the GID table, for errors.
func (p Profile) gidMode() string {
	if p.GIDIndex == GIDAuto {
		return fmt.Sprintf("gid_index = \"auto\" with NCCL %s (%s, no GID auto-selection before 2.21)", p.Version(), p.versionSource())
	}
	return "gid_index = \"detect\""
}

// versionBefore reports whether NCCL version v (any suffix) is older than the release since.
func versionBefore(v, since string) (bool, error) {
	have, err := version.NewVersion(v)
	if err != nil {
		return false, err
	}
	return have.Core().LessThan(version.Must(version.NewVersion(since))), nil
}

// NeedsHost reports whether the profile can only be rendered with the host's facts: the
// installed NCCL when nccl_version is unset, and the GID table for gid_index = "detect" or
// for "auto" on NCCL older than 2.21.
func (p Profile) NeedsHost() (nccl, gids bool) {
	nccl = p.NCCLVersion == ""
	gids = p.GIDIndex == GIDDetect || p.GIDIndex == GIDAuto && (nccl || p.oldNCCL())
	return nccl, gids
}

// Notes says why the file holds what it holds where that depends on the NCCL version.
func (p Profile) Notes(gids []facts.GIDEntry) []string {
	if p.GIDIndex != GIDAuto {
		return nil
	}
	switch {
	case p.Version() == "":
		return []string{"gid_index = \"auto\": no NCCL on the host and nccl_version unset, so NCCL_IB_GID_INDEX is left to NCCL; " +
			"that is right for NCCL 2.21 and later only: set nccl_version for jobs that bring an older NCCL"}
	case p.oldNCCL():
		idx, err := detectGIDIndex(gids, p.HCAs, p.gidMode())
		if err != nil {
			return nil // Settings reports it
		}
		return []string{fmt.Sprintf("gid_index = \"auto\": NCCL %s (%s) has no GID auto-selection before 2.21 and would use index 0, "+
			"normally the RoCE v1 link-local GID; NCCL_IB_GID_INDEX=%d is written, the RoCE v2 IPv4 index of every HCA", p.Version(), p.versionSource(), idx)}
	}
	return []string{fmt.Sprintf("gid_index = \"auto\": NCCL %s (%s) selects the RoCE v2 GID per HCA itself, so NCCL_IB_GID_INDEX is left unset", p.Version(), p.versionSource())}
}

// The profile's fields, as violations name them.
var (
	FieldHCAs        = violation.At("Profile.HCAs")
	FieldRDMADSCP    = violation.At("Profile.RDMADSCP")
	FieldGIDIndex    = violation.At("Profile.GIDIndex")
	FieldNCCLVersion = violation.At("Profile.NCCLVersion")
	FieldExtra       = violation.At("Profile.Extra")

	FieldSocketIfname     = violation.At("Profile.SocketIfname")
	FieldQPsPerConnection = violation.At("Profile.QPsPerConnection")
	FieldCrossNIC         = violation.At("Profile.CrossNIC")
	FieldGDRLevel         = violation.At("Profile.GDRLevel")
	FieldDebug            = violation.At("Profile.Debug")
	FieldDebugSubsys      = violation.At("Profile.DebugSubsys")
	// FieldConfPath is where the caller writes the file.
	FieldConfPath = violation.At("ConfPath")
)

// Validate checks the profile without a host.
func (p Profile) Validate() violation.List {
	var vs violation.List
	for i, h := range p.HCAs {
		if h == "" || strings.ContainsAny(h, "=^,: \t") {
			vs = append(vs, errorAt(FieldHCAs.Elem(i), "Invalid HCA Name", func(name violation.Names) string {
				return fmt.Sprintf("%s is %q; give an RDMA device name such as \"mlx5_0\" (the provider adds the exact-match prefix).", name(FieldHCAs.Elem(i)), h)
			}))
		}
	}
	if _, err := fabric.ToS(p.RDMADSCP, fabric.ECNBitsECT0); err != nil {
		vs = append(vs, errorAt(FieldRDMADSCP, "Invalid DSCP", func(violation.Names) string { return err.Error() }))
	}
	if p.GIDIndex != GIDAuto && p.GIDIndex != GIDDetect {
		if n, err := strconv.Atoi(p.GIDIndex); err != nil || n < 0 || n > 255 {
			vs = append(vs, errorAt(FieldGIDIndex, "Invalid GID Index", func(name violation.Names) string {
				return fmt.Sprintf("%s is %q; use \"auto\" (NCCL >= 2.21 picks it), \"detect\" (read it from the host's GID table) or a number 0-255.", name(FieldGIDIndex), p.GIDIndex)
			}))
		}
	}
	if err := fabric.ValidateNCCLVersion(p.NCCLVersion); err != nil {
		vs = append(vs, errorAt(FieldNCCLVersion, "Invalid NCCL Version", func(name violation.Names) string {
			return fmt.Sprintf("%s is %q, which is not a version: give the installed NCCL's version in a form such as 2.26.2, or leave it unset.", name(FieldNCCLVersion), p.NCCLVersion)
		}))
	}
	badHCAs := len(vs) > 0 && vs[0].At.Name == FieldHCAs.Name
	settings, extra := p.typedSettings(), p.validateExtraNames()
	vs = append(vs, extra...)
	for _, name := range slices.Sorted(maps.Keys(p.Extra)) {
		if !slices.ContainsFunc(extra, func(v violation.Violation) bool { return v.At == FieldExtra.Entry(name) }) {
			settings = append(settings, fabric.NCCLSetting{Name: name, Value: p.Extra[name]})
		}
	}
	for _, s := range settings {
		if s.Name == "NCCL_IB_HCA" && badHCAs {
			continue // already reported per element
		}
		at := fieldOf(s.Name)
		err := fabric.ValidateNCCLValueFor(s.Name, s.Value, p.validVersion())
		var unknown *fabric.UnknownNCCLVarError
		switch {
		case errors.As(err, &unknown):
			vs = append(vs, violation.WarningAt(at, violation.Worded{Summary: "Unknown NCCL Variable", Detail: func(violation.Names) string {
				return fmt.Sprintf("%s is not in the provider's table of NCCL variables (%v); it is written as given.", s.Name, err)
			}}))
		case err != nil:
			vs = append(vs, errorAt(at, "Invalid NCCL Value", func(name violation.Names) string {
				detail := fmt.Sprintf("%s=%s: %v", s.Name, s.Value, err)
				if p.NCCLVersion == "" && p.Installed != "" {
					detail += fmt.Sprintf(" (NCCL %s is the host's %s; set %s if the jobs run another)", p.Installed, p.InstalledFrom, name(FieldNCCLVersion))
				}
				return detail
			}))
		}
	}
	return append(vs, p.validateAddrRange()...)
}

func errorAt(at violation.Field, summary string, detail func(violation.Names) string) violation.Violation {
	return violation.ErrorAt(at, violation.Worded{Summary: summary, Detail: detail})
}

// validVersion is Version when it parses, else "" (nccl_version's own finding reports it).
func (p Profile) validVersion() string {
	if fabric.ValidateNCCLVersion(p.Version()) != nil {
		return ""
	}
	return p.Version()
}

// validateAddrRange refuses an NCCL_IB_ADDR_RANGE of the other address family than
// NCCL_IB_ADDR_FAMILY: NCCL parses the prefix in that family and silently drops a mismatch
// (src/transport/net_ib.cc v2.21.5-1 .. net_ib/init.cc v2.30.7-1).
func (p Profile) validateAddrRange() violation.List {
	r, ok := p.Extra["NCCL_IB_ADDR_RANGE"]
	prefix, err := netip.ParsePrefix(r)
	if !ok || err != nil {
		return nil
	}
	family := p.Extra["NCCL_IB_ADDR_FAMILY"]
	if family == "" {
		family = "AF_INET"
	}
	if prefix.Addr().Is4() == (family == "AF_INET") {
		return nil
	}
	want := "AF_INET6"
	if prefix.Addr().Is4() {
		want = "AF_INET"
	}
	return violation.List{errorAt(FieldExtra.Entry("NCCL_IB_ADDR_RANGE"), "Invalid NCCL Value", func(violation.Names) string {
		return fmt.Sprintf("NCCL_IB_ADDR_RANGE=%s is an %s prefix but NCCL_IB_ADDR_FAMILY is %s, so NCCL would ignore the range: set NCCL_IB_ADDR_FAMILY=%s or give a prefix of that family.",
			r, strings.TrimPrefix(want, "AF_"), family, want)
	})}
}

// Settings returns the variables in the order they are written. gids is the host's GID
// table, needed only when NeedsHost says so.
func (p Profile) Settings(gids []facts.GIDEntry) ([]fabric.NCCLSetting, error) {
	settings, err := p.fixedSettings()
	if err != nil {
		return nil, err
	}
	switch {
	case p.GIDIndex == GIDAuto && !p.oldNCCL():
	case p.GIDIndex == GIDAuto, p.GIDIndex == GIDDetect:
		idx, err := detectGIDIndex(gids, p.HCAs, p.gidMode())
		if err != nil {
			return nil, err
		}
		settings = append(settings, fabric.NCCLSetting{Name: "NCCL_IB_GID_INDEX", Value: strconv.Itoa(idx)})
	default:
		settings = append(settings, fabric.NCCLSetting{Name: "NCCL_IB_GID_INDEX", Value: p.GIDIndex})
	}
	return settings, nil
}

// Render returns the /etc/nccl.conf text and the matching /etc/profile.d script.
func (p Profile) Render(gids []facts.GIDEntry) (conf, script string, err error) {
	settings, err := p.Settings(gids)
	if err != nil {
		return "", "", err
	}
	conf, err = fabric.RenderNCCLConf(settings, p.Version(), "Managed by Terraform (roce_nccl_env_profile); local edits are reverted.")
	if err != nil {
		return "", "", err
	}
	script, err = fabric.RenderNCCLProfileScript(settings)
	if err != nil {
		return "", "", err
	}
	return conf, ScriptMark + "\n" + script, nil
}

// ScriptMark is the first line of the profile.d script: what tells the provider's script from
// another file at that path.
const ScriptMark = "# Managed by Terraform (roce_nccl_env_profile)."

// TrafficClass is the NCCL_IB_TC the profile writes.
func (p Profile) TrafficClass() int {
	tos, _ := fabric.ToS(p.RDMADSCP, fabric.ECNBitsECT0)
	return tos
}

// validateExtraNames refuses extra variables that have their own attribute or a name NCCL
// would not read, one violation per variable.
func (p Profile) validateExtraNames() violation.List {
	var vs violation.List
	for _, name := range slices.Sorted(maps.Keys(p.Extra)) {
		at := FieldExtra.Entry(name)
		if own, typed := typedField[name]; typed {
			vs = append(vs, errorAt(at, "Invalid NCCL Variables", func(n violation.Names) string {
				return fmt.Sprintf("%s sets %s, which has its own attribute %s: set it there.", n(FieldExtra), name, n(own))
			}))
			continue
		}
		if name == "NCCL_CONF_FILE" {
			// src/misc/param.cc reads it with getenv before any file.
			vs = append(vs, errorAt(at, "Invalid NCCL Variables", func(n violation.Names) string {
				return fmt.Sprintf("%s sets NCCL_CONF_FILE, which NCCL reads from the process environment only: a line in a configuration file is ignored. Set it in the job's environment, or set %s to the file NCCL reads.", n(FieldExtra), n(FieldConfPath))
			}))
			continue
		}
		if err := fabric.ValidateNCCLName(name); err != nil {
			var unknown *fabric.UnknownNCCLVarError
			if errors.As(fabric.ValidateNCCLValue(name, "x"), &unknown) && unknown.Suggestion != "" {
				err = fmt.Errorf("%w (did you mean %s?)", err, unknown.Suggestion)
			}
			vs = append(vs, errorAt(at, "Invalid NCCL Variable Name", func(n violation.Names) string { return fmt.Sprintf("%s: %v.", n(at), err) }))
		}
	}
	return vs
}

// fixedSettings are the typed settings, then the extra variables by name. An extra variable
// with an empty value is kept, so that validation and rendering refuse it instead of
// dropping it.
func (p Profile) fixedSettings() ([]fabric.NCCLSetting, error) {
	out := p.typedSettings()
	for _, name := range slices.Sorted(maps.Keys(p.Extra)) {
		if own, typed := typedField[name]; typed {
			return nil, fmt.Errorf("Profile.Extra sets %s, which has its own field %s: set it there", name, own)
		}
		out = append(out, fabric.NCCLSetting{Name: name, Value: p.Extra[name]})
	}
	return out, nil
}

// typedSettings are the settings of the resource's own attributes, in the order they are
// written; attributes left empty are left out.
func (p Profile) typedSettings() []fabric.NCCLSetting {
	var out []fabric.NCCLSetting
	add := func(name, value string) {
		if value != "" {
			out = append(out, fabric.NCCLSetting{Name: name, Value: value})
		}
	}
	if len(p.HCAs) > 0 {
		add("NCCL_IB_HCA", "="+strings.Join(p.HCAs, ","))
	}
	add("NCCL_SOCKET_IFNAME", p.SocketIfname)
	add("NCCL_IB_TC", strconv.Itoa(p.TrafficClass()))
	if p.QPsPerConnection != nil {
		add("NCCL_IB_QPS_PER_CONNECTION", strconv.Itoa(*p.QPsPerConnection))
	}
	if p.CrossNIC != nil {
		add("NCCL_CROSS_NIC", strconv.Itoa(*p.CrossNIC))
	}
	add("NCCL_NET_GDR_LEVEL", p.GDRLevel)
	add("NCCL_DEBUG", p.Debug)
	add("NCCL_DEBUG_SUBSYS", p.DebugSubsys)
	return out
}

// typedField maps the variables the profile has fields for to those fields.
var typedField = map[string]violation.Field{
	"NCCL_IB_HCA": FieldHCAs, "NCCL_SOCKET_IFNAME": FieldSocketIfname, "NCCL_IB_TC": FieldRDMADSCP,
	"NCCL_IB_GID_INDEX": FieldGIDIndex, "NCCL_IB_QPS_PER_CONNECTION": FieldQPsPerConnection,
	"NCCL_CROSS_NIC": FieldCrossNIC, "NCCL_NET_GDR_LEVEL": FieldGDRLevel,
	"NCCL_DEBUG": FieldDebug, "NCCL_DEBUG_SUBSYS": FieldDebugSubsys,
}

func fieldOf(name string) violation.Field {
	if f, ok := typedField[name]; ok {
		return f
	}
	return FieldExtra.Entry(name)
}

// detectGIDIndex returns the RoCE v2 IPv4 GID index shared by the HCAs (every RDMA device
// in the table when hcas is empty).
func detectGIDIndex(gids []facts.GIDEntry, hcas []string, mode string) (int, error) {
	if len(hcas) == 0 {
		seen := map[string]bool{}
		for _, g := range gids {
			if !seen[g.Device] {
				seen[g.Device] = true
				hcas = append(hcas, g.Device)
			}
		}
		slices.Sort(hcas)
	}
	if len(hcas) == 0 {
		return 0, fmt.Errorf("%s: the host has no GID table (no RDMA devices found)", mode)
	}
	byIndex := map[int][]string{}
	for _, h := range hcas {
		idx, ok := facts.RoCEv2IPv4Index(gids, h)
		if !ok {
			return 0, fmt.Errorf("%s: %s has no RoCE v2 IPv4 GID: give its netdev an IPv4 address", mode, h)
		}
		byIndex[idx] = append(byIndex[idx], h)
	}
	if len(byIndex) > 1 {
		var parts []string
		for _, idx := range slices.Sorted(maps.Keys(byIndex)) {
			parts = append(parts, fmt.Sprintf("%d on %s", idx, strings.Join(byIndex[idx], ",")))
		}
		return 0, fmt.Errorf("%s: the HCAs disagree on the RoCE v2 IPv4 GID index (%s) and NCCL_IB_GID_INDEX applies to all of them: run NCCL 2.21 or later with gid_index = \"auto\" (it picks per HCA) or fix the GID tables", mode, strings.Join(parts, "; "))
	}
	for idx := range byIndex {
		return idx, nil
	}
	return 0, nil
}
