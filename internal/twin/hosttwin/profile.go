package hosttwin

import (
	"fmt"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// The seam to package hostprofile, which renders the files inside a twin.
const (
	defaultProfile = hostprofile.DefaultProfile
	bootScript     = hostprofile.BootScript
	// procDriverNVIDIA is bind-mounted over /proc/driver/nvidia.
	procDriverNVIDIA = hostprofile.ProcDriverNVIDIA
)

// resolveProfile returns the profile spec asks for: Custom if set, else the
// named (or default) profile.
func resolveProfile(spec HostSpec) (hostprofile.Profile, error) {
	if spec.Custom != nil {
		p := *spec.Custom
		if spec.Profile != "" && spec.Profile != p.Name {
			return p, fmt.Errorf("profile %q and custom profile %q disagree", spec.Profile, p.Name)
		}
		return p, p.Validate()
	}
	name := spec.Profile
	if name == "" {
		name = defaultProfile
	}
	p, ok := hostprofile.Lookup(name)
	if !ok {
		return p, fmt.Errorf("unknown profile %q (have %v)", name, hostprofile.Names())
	}
	return p, nil
}

// hostID is the hostprofile identity of host name at index.
func hostID(name string, index int) hostprofile.HostID {
	return hostprofile.HostID{Name: name, Index: index}
}
