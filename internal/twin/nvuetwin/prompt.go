package nvuetwin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// managedFiles are the files NVUE writes on apply ("Configuration Files that NVUE Manages",
// CumulusNetworks/docs content/cumulus-linux-514/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-CLI.md).
var managedFiles = []string{
	"/etc/network/interfaces", "/etc/frr/frr.conf", "/etc/cumulus/switchd.conf", "/etc/cumulus/switchd.d/ptp.conf",
	"/etc/frr/daemons", "/etc/hosts", "/etc/default/isc-dhcp-relay-default", "/etc/dhcp/dhcpd.conf", "/etc/hostname",
	"/etc/cumulus/datapath/qos/qos_features.conf", "/etc/mlx/datapath/qos/qos_infra.conf", "/etc/cumulus/switchd.d/qos.conf",
	"/etc/cumulus/ports.conf", "/etc/ntpsec/ntp.conf", "/etc/ptp4l.conf", "/etc/snmp/snmpd.conf",
}

// EditByHand marks file, one NVUE manages, as edited outside NVUE (an operator's editor, an
// Ansible template). NVUE then asks before an apply overwrites it: "if you change a file
// manually instead of using NVUE, you see a warning prompt and the apply fails" unless the
// apply answers it (NVUE API guide 5.14, Troubleshoot Configuration Changes). A file named in
// the configuration's system config apply ignore is not NVUE's to write and is not asked about
// (NVUE-CLI.md 5.14, Configure NVUE to Ignore Linux Files).
func (t *Twin) EditByHand(file string) error {
	if !slices.Contains(managedFiles, file) {
		return fmt.Errorf("nvuetwin: NVUE does not manage %s; use one of %s", file, strings.Join(managedFiles, ", "))
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if !slices.Contains(t.handEdited, file) {
		t.handEdited = append(t.handEdited, file)
	}
	return nil
}

// prompt asks about the hand-edited files an apply of rev would overwrite and reports whether
// the apply goes on. The twin prompts for nothing else: the docs name no other prompt for the
// configuration this provider writes.
func (t *Twin) prompt(rev *revision, ays string) bool {
	var files []string
	for _, f := range t.handEdited {
		if _, ignored := nvue.Lookup(rev.config, "system", "config", "apply", "ignore", f); !ignored {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return true
	}
	switch ays {
	case "ays_yes":
		t.handEdited = slices.DeleteFunc(t.handEdited, func(f string) bool { return slices.Contains(files, f) }) // overwritten
		return true
	case "ays_no":
		// Declined: the CLI prints "Declined apply after warnings" (NVIDIA's NVOS test
		// clients match it); the REST shape of a declined prompt is not documented, so the
		// twin ends it ays_fail as an unanswered one, with the warning as an issue. The
		// warning's wording is the twin's, not NVIDIA's.
		rev.state, rev.progress = "ays_fail", "Declined apply after warnings"
		rev.issues = []issue{{Code: "ays_prompt", Severity: "warning", Data: map[string]any{"files": files},
			Message: "files changed outside NVUE will be overwritten: " + strings.Join(files, ", ")}}
	default:
		// No answer: NVUE waits for one and aborts (NVUE API guide, the documented answer).
		rev.state, rev.progress = "ays_fail", "Aborted apply after warnings"
		rev.issues = []issue{{Code: "client_timeout", Message: "Timeout while waiting for client response", Severity: "error", Data: map[string]any{}}}
	}
	return false
}
