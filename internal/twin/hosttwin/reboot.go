package hosttwin

import (
	"context"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// Reboot does to host name what a reboot does to the hardware's state:
// hostprofile.ResetRuntime puts the fake sysfs, modules and tools back to
// the profile's power-on state, then hostprofile.BootScript runs inside
// the host as systemd would at boot, applying what was made persistent.
// Files in /etc survive, as on a real host; sshd and its connections are
// left alone.
func (f *Fleet) Reboot(ctx context.Context, name string) error {
	return f.withHost(name, func(t *twin) error {
		if err := t.running(); err != nil {
			return err
		}
		if err := hostprofile.ResetRuntime(t.root(), t.profile, hostID(t.host.Name, t.index)); err != nil {
			return err
		}
		_, err := t.run(ctx, "exec /bin/sh "+bootScript)
		return err
	})
}
