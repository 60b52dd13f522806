package provider

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin/hosttwintest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// The bad-input inventory: every attribute the provider validates, an invalid value for it,
// and the error Terraform shows. The table drives the provider in-process through the same
// protocol calls Terraform makes (ValidateResourceConfig, ConfigureProvider,
// PlanResourceChange, CallFunction) and generates the guide
// templates/guides/bad-input.md.tmpl, which must match the committed file.

var updateGuide = flag.Bool("update", false, "rewrite templates/guides/bad-input.md.tmpl from the bad-input table")

const badInputGuide = "../../templates/guides/bad-input.md.tmpl"

// badInputStage is when Terraform shows an error, which is also how the test provokes it.
type badInputStage int

const (
	// atValidate: the resource's ValidateResourceConfig or the function call refuses the
	// value; `terraform validate` shows it.
	atValidate badInputStage = iota
	// atPlan: validation passes and the provider's Configure or the resource's plan refuses
	// the value before connecting to anything; `terraform plan` shows it.
	atPlan
	// atSwitch: the plan refuses the value after reading the switch (a switch twin here).
	atSwitch
	// atHost: the plan refuses the value after reading the host (a host twin here).
	atHost
	// atCumulus: the plan refuses the value after reading a Cumulus switch (an NVUE twin with
	// RoCE lossless mode on here).
	atCumulus
)

func (s badInputStage) String() string {
	return [...]string{"validate", "plan", "plan, reading the switch", "plan, reading the host", "plan, reading a Cumulus switch in RoCE lossless mode"}[s]
}

// badInput is one row of the inventory.
type badInput struct {
	where string // resource type, "provider", or "provider::roce::<function>"
	attr  string // the attribute (function parameter) given the invalid value
	// hcl is the invalid setting: top-level attributes that replace those of the section's
	// base configuration, or the whole function call.
	hcl     string
	env     map[string]string // provider block: the environment
	stage   badInputStage
	summary string // the error's summary (for ecn_pfc_findings: the finding's)
	detail  string // a key phrase of the error's detail
	// at is the attribute path the error is attached to when it is not attr, and names is
	// how the error's text names attr then (and for function errors).
	at, names string
}

// badInputs is the inventory, in the order of the guide.
var badInputs = []badInput{
	// The provider block. Configure resolves it at plan time, before any connection.
	{where: "provider", attr: "ssh.port", hcl: `ssh = { port = 0 }`, stage: atPlan,
		summary: "Value Out of Range", detail: "ssh.port is 0; it must be from 1 to 65535"},
	{where: "provider", attr: "ssh.port", env: map[string]string{envSSHPort: "70000"}, stage: atPlan,
		summary: "Value Out of Range", detail: "ssh.port is 70000 (from ROCE_SSH_PORT); it must be from 1 to 65535"},
	{where: "provider", attr: "ssh.max_sessions", hcl: `ssh = { max_sessions = 65 }`, stage: atPlan,
		summary: "Value Out of Range", detail: "ssh.max_sessions is 65; it must be from 1 to 64"},
	{where: "provider", attr: "ssh.max_sessions", env: map[string]string{envSSHMaxSessions: "many"}, stage: atPlan,
		summary: "Invalid Environment Variable", detail: `ROCE_SSH_MAX_SESSIONS is "many", which is not a whole number`},
	{where: "provider", attr: "ssh.connect_timeout", hcl: `ssh = { connect_timeout = "soon" }`, stage: atPlan,
		summary: "Invalid Duration", detail: `ssh.connect_timeout is "soon"; it must be a positive Go duration`},
	{where: "provider", attr: "ssh.connect_timeout", hcl: `ssh = { connect_timeout = "-5s" }`, stage: atPlan,
		summary: "Invalid Duration", detail: `ssh.connect_timeout is "-5s"; it must be a positive Go duration`},
	{where: "provider", attr: "ssh.keepalive_interval", hcl: `ssh = { keepalive_interval = "often" }`, stage: atPlan,
		summary: "Invalid Duration", detail: `ssh.keepalive_interval is "often"; it must be a positive Go duration`},
	{where: "provider", attr: "ssh.private_key", hcl: `ssh = { private_key = "-----BEGIN OPENSSH PRIVATE KEY-----", private_key_file = "~/.ssh/id_ed25519" }`, stage: atPlan,
		summary: "Conflicting SSH Keys", detail: "Both ssh.private_key and ssh.private_key_file are set"},
	{where: "provider", attr: "ssh.certificate_file", hcl: `ssh = { certificate_file = "~/.ssh/id_ed25519-cert.pub", use_agent = false }`, stage: atPlan,
		summary: "SSH Certificate Without Key", detail: "ssh.certificate_file is set but there is no private key to sign with"},
	{where: "provider", attr: "ssh.insecure_ignore_host_key", hcl: `ssh = { host_key = "ssh-ed25519 AAAAC3Nz", insecure_ignore_host_key = true }`, stage: atPlan,
		summary: "Conflicting Host Key Settings", detail: "ssh.host_key pins a host key while ssh.insecure_ignore_host_key turns verification off"},
	{where: "provider", attr: "ssh.host_key", hcl: `ssh = { host_key = "ssh-ed25519 AAAAC3Nz", known_hosts_file = "/etc/ssh/ssh_known_hosts" }`, stage: atPlan,
		summary: "Conflicting Host Key Settings", detail: "ssh.host_key and ssh.known_hosts_file are both set"},
	{where: "provider", attr: "ssh.bastion.host", hcl: `ssh = { bastion = { user = "jump" } }`, stage: atPlan,
		summary: "Missing Bastion Host", detail: "ssh.bastion sets credentials but no host"},
	{where: "provider", attr: "ssh.bastion.port", hcl: `ssh = { bastion = { host = "jump.example", port = 70000 } }`, stage: atPlan,
		summary: "Value Out of Range", detail: "ssh.bastion.port is 70000; it must be from 1 to 65535"},
	{where: "provider", attr: "ssh.bastion.host", hcl: `ssh = { private_key_file = "~/.ssh/id_ed25519", bastion = { host = "jump.example:70000" } }`, stage: atPlan,
		summary: "Invalid Bastion Host", detail: `ssh.bastion.host is not an address SSH can dial: host address "jump.example:70000": invalid port or host`},
	{where: "provider", attr: "ssh.bastion.private_key", hcl: `ssh = { private_key_file = "~/.ssh/id_ed25519", bastion = { host = "jump.example", private_key = "-----BEGIN OPENSSH PRIVATE KEY-----", private_key_file = "~/.ssh/jump_ed25519" } }`, stage: atPlan,
		summary: "Conflicting SSH Keys", detail: "Both ssh.bastion.private_key and ssh.bastion.private_key_file are set"},
	{where: "provider", attr: "ssh.bastion.private_key_file", hcl: `ssh = { private_key_file = "~/.ssh/id_ed25519", use_agent = false, bastion = { host = "jump.example" } }`, stage: atPlan,
		summary: "No Bastion Credentials", detail: "ssh.bastion has no key of its own"},
	{where: "provider", attr: "ssh.bastion.private_key", hcl: `ssh = { private_key_file = "~/.ssh/id_ed25519", bastion = { host = "jump.example", private_key = "not a key" } }`, stage: atPlan,
		summary: "Invalid SSH Private Key", detail: "ssh.bastion.private_key is not an unencrypted private key SSH can use: ssh: no key found"},
	{where: "provider", attr: "ssh.bastion.host_key", hcl: `ssh = { private_key_file = "~/.ssh/id_ed25519", bastion = { host = "jump.example", host_key = "ssh-ed25519 AAAAC3Nz" } }`, stage: atPlan,
		summary: "Invalid SSH Host Key", detail: "ssh.bastion.host_key is not a host key: not in authorized_keys format"},
	{where: "provider", attr: "ssh.become.password", hcl: `ssh = { become = { enabled = false, password = "s3cret" } }`, stage: atPlan,
		summary: "sudo Password Without become", detail: "ssh.become.password is set while ssh.become.enabled is false"},
	{where: "provider", attr: "ssh.user", hcl: `ssh = { user = "" }`, stage: atPlan,
		summary: "Missing SSH User", detail: "ssh.user is empty. Set it to the login user of the hosts"},
	{where: "provider", attr: "ssh.private_key", hcl: `ssh = { private_key = "not a key" }`, stage: atPlan,
		summary: "Invalid SSH Private Key", detail: "ssh.private_key is not a private key SSH can use: ssh: no key found"},
	{where: "provider", attr: "ssh.private_key", env: map[string]string{envSSHPrivateKey: "~/.ssh/id_ed25519"}, stage: atPlan,
		summary: "Invalid SSH Private Key", detail: "ssh.private_key (from ROCE_SSH_PRIVATE_KEY) is not a private key SSH can use"},
	{where: "provider", attr: "ssh.host_key", hcl: `ssh = { host_key = "ssh-ed25519 AAAAC3Nz", private_key_file = "~/.ssh/id_ed25519" }`, stage: atPlan,
		summary: "Invalid SSH Host Key", detail: "ssh.host_key is not a host key: not in authorized_keys format"},
	{where: "provider", attr: "ssh.insecure_ignore_host_key", hcl: `ssh = { insecure_ignore_host_key = true, known_hosts_file = "/etc/ssh/ssh_known_hosts" }`, stage: atPlan,
		summary: "Conflicting Host Key Settings", detail: "ssh.insecure_ignore_host_key turns host key verification off while ssh.known_hosts_file names the keys"},
	{where: "provider", attr: "ssh.use_agent", hcl: `ssh = { use_agent = true }`, stage: atPlan,
		summary: "SSH Agent Not Running", detail: "ssh.use_agent is true but SSH_AUTH_SOCK is not set"},
	{where: "provider", attr: "ssh", hcl: `ssh = { user = "ubuntu" }`, stage: atPlan,
		summary: "No SSH Authentication", detail: "The ssh settings give no way to log in to the hosts"},
	{where: "provider", attr: "ssh", env: map[string]string{envSSHUser: "ubuntu"}, stage: atPlan,
		summary: "No SSH Authentication", detail: "Set ssh.private_key_file (or ROCE_SSH_PRIVATE_KEY_FILE), ssh.private_key, or ssh.password, or run an SSH agent"},
	{where: "provider", attr: "gnmi.port", hcl: `gnmi = { port = 0 }`, stage: atPlan,
		summary: "Value Out of Range", detail: "gnmi.port is 0; it must be from 1 to 65535"},
	{where: "provider", attr: "gnmi.retries", hcl: `gnmi = { retries = 11 }`, stage: atPlan,
		summary: "Value Out of Range", detail: "gnmi.retries is 11; it must be from 0 to 10"},
	{where: "provider", attr: "gnmi.set_timeout", hcl: `gnmi = { set_timeout = "0s" }`, stage: atPlan,
		summary: "Invalid Duration", detail: `gnmi.set_timeout is "0s"; it must be a positive Go duration`},
	{where: "provider", attr: "gnmi.set_timeout", env: map[string]string{envGNMISetTimeout: "600"}, stage: atPlan,
		summary: "Invalid Duration", detail: `gnmi.set_timeout is "600" (from ROCE_GNMI_SET_TIMEOUT)`},
	{where: "provider", attr: "gnmi.insecure", env: map[string]string{envGNMIInsecure: "yes"}, stage: atPlan,
		summary: "Invalid Environment Variable", detail: `ROCE_GNMI_INSECURE is "yes", which is not a boolean`},
	{where: "provider", attr: "gnmi.cert_file", hcl: `gnmi = { cert_file = "/pki/client.pem" }`, stage: atPlan,
		summary: "Incomplete gNMI Client Certificate", detail: "mTLS needs both gnmi.cert_file and gnmi.key_file"},
	{where: "provider", attr: "gnmi.key_file", hcl: `gnmi = { key_file = "/pki/client.key" }`, stage: atPlan,
		summary: "Incomplete gNMI Client Certificate", detail: "mTLS needs both gnmi.cert_file and gnmi.key_file"},
	{where: "provider", attr: "gnmi.insecure", hcl: `gnmi = { insecure = true, ca_file = "/pki/ca.pem" }`, stage: atPlan,
		summary: "Conflicting gNMI TLS Settings", detail: "gnmi.insecure = true turns TLS off, yet gnmi.ca_file is set"},
	{where: "provider", attr: "gnmi.insecure", hcl: `gnmi = { insecure = true }`, env: map[string]string{envGNMIServerName: "leaf1.lab"}, stage: atPlan,
		summary: "Conflicting gNMI TLS Settings", detail: "gnmi.insecure = true turns TLS off, yet gnmi.server_name (from ROCE_GNMI_SERVER_NAME) is set"},
	{where: "provider", attr: "gnmi.username", hcl: `gnmi = { username = "admin" }`, stage: atPlan,
		summary: "Incomplete gNMI Credentials", detail: "gnmi.username is set, gnmi.password is not: gNMI password authentication needs both gnmi.username and gnmi.password"},
	{where: "provider", attr: "gnmi.password", hcl: `gnmi = { password = "s3cret" }`, stage: atPlan,
		summary: "Incomplete gNMI Credentials", detail: "needs both gnmi.username and gnmi.password"},
	{where: "provider", attr: "nvue.password", hcl: `nvue = { password = "s3cret" }`, stage: atPlan,
		summary: "Incomplete NVUE Login", detail: "NVUE basic authentication needs both nvue.username and nvue.password (or ROCE_NVUE_USERNAME and ROCE_NVUE_PASSWORD); only nvue.password is set"},
	{where: "provider", attr: "nvue.certificate_pin", hcl: `nvue = { username = "nvapi", password = "s3cret", certificate_pin = "sha256//abc" }`, stage: atPlan,
		summary: "Invalid Certificate Pin", detail: `nvue.certificate_pin: certificate pin "sha256//abc": want the base64 of a 32-byte SHA-256`},
	{where: "provider", attr: "gnmi.certificate_pin", hcl: `gnmi = { certificate_pin = "AAAA" }`, stage: atPlan,
		summary: "Invalid Certificate Pin", detail: `gnmi.certificate_pin: certificate pin "AAAA": want sha256//<base64 SHA-256 of the public key>`},
	{where: "provider", attr: "nvue.assume_yes", env: map[string]string{envNVUEAssumeYes: "always"}, stage: atPlan,
		summary: "Invalid Environment Variable", detail: `ROCE_NVUE_ASSUME_YES is "always", which is not a boolean`},
	{where: "provider", attr: "nvue.insecure", hcl: `nvue = { insecure = true, ca_file = "/pki/cumulus-ca.pem" }`, stage: atPlan,
		summary: "Conflicting NVUE TLS Settings", detail: "nvue.insecure = true skips certificate verification, yet nvue.ca_file is set"},

	// roce_switch_qos: the traffic class, the ECN/PFC rule, schedulers, watchdog and names.
	{where: "roce_switch_qos", attr: "name", hcl: `name = "ROCE/leaf1"`,
		summary: "Invalid Object Name", detail: `name is "ROCE/leaf1"; use 1-23 letters, digits, '-' or '_'`},
	{where: "roce_switch_qos", attr: "name", hcl: `name = ""`,
		summary: "Invalid Object Name", detail: `name is ""; use 1-23 letters, digits, '-' or '_'`},
	{where: "roce_switch_qos", attr: "ports", hcl: `ports = []`,
		summary: "No Ports", detail: "ports is empty"},
	{where: "roce_switch_qos", attr: "ports[0]", hcl: `ports = ["eth0"]`,
		summary: "Invalid Port Name", detail: `ports[0] is "eth0"; SONiC names front-panel ports Ethernet<N>`},
	{where: "roce_switch_qos", attr: "ports[1]", hcl: `ports = ["Ethernet0", "Ethernet0"]`,
		summary: "Repeated Port", detail: `ports[1] repeats "Ethernet0"`},
	{where: "roce_switch_qos", attr: "cable_length_m", hcl: `cable_length_m = -1`,
		summary: "Cable Length Out of Range", detail: "cable_length_m is -1; use the real cable length in metres, 0 to 10000"},
	{where: "roce_switch_qos", attr: "rdma.dscp", hcl: `rdma = { dscp = [] }`,
		summary: "Missing RDMA DSCP", detail: "rdma.dscp is empty; RoCE data needs at least one DSCP"},
	{where: "roce_switch_qos", attr: "rdma.dscp[0]", hcl: `rdma = { dscp = [64] }`,
		summary: "Value Out of Range", detail: "rdma.dscp[0] is 64; a DSCP must be 0..63"},
	{where: "roce_switch_qos", attr: "rdma.dscp[1]", hcl: `rdma = { dscp = [26, 26] }`,
		summary: "Repeated RDMA DSCP", detail: "rdma.dscp[1] repeats DSCP 26"},
	{where: "roce_switch_qos", attr: "rdma.priority", hcl: `rdma = { priority = 8 }`,
		summary: "Value Out of Range", detail: "rdma.priority is 8; a priority must be 0..7"},
	{where: "roce_switch_qos", attr: "cnp.dscp", hcl: `cnp = { dscp = 64 }`,
		summary: "Value Out of Range", detail: "cnp.dscp is 64; a DSCP must be 0..63"},
	{where: "roce_switch_qos", attr: "cnp.dscp", hcl: `cnp = { dscp = 26 }`,
		summary: "CNP DSCP Shared With RDMA", detail: "cnp.dscp is 26, which is also an RDMA data DSCP"},
	{where: "roce_switch_qos", attr: "cnp.priority", hcl: `cnp = { priority = 8 }`,
		summary: "Value Out of Range", detail: "cnp.priority is 8; a priority must be 0..7"},
	{where: "roce_switch_qos", attr: "cnp.priority", hcl: `cnp = { priority = 3 }`,
		summary: "CNP Priority Shared With RDMA", detail: "cnp.priority is 3, the same as rdma.priority"},
	{where: "roce_switch_qos", attr: "ecn.min_threshold_bytes", hcl: `ecn = { min_threshold_bytes = 0, max_threshold_bytes = 153600 }`,
		summary: "Threshold Not Positive", detail: "ecn.min_threshold_bytes is 0; it must be above 0 bytes"},
	{where: "roce_switch_qos", attr: "ecn.min_threshold_bytes", hcl: `ecn = { min_threshold_bytes = 160000, max_threshold_bytes = 153600 }`,
		summary: "ECN Thresholds Out of Order", detail: "ecn.min_threshold_bytes (160000) must be below ecn.max_threshold_bytes (153600)"},
	{where: "roce_switch_qos", attr: "ecn.max_threshold_bytes", hcl: `ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 300000 }`,
		summary: "ECN Marks After PFC Pauses", detail: "ecn.max_threshold_bytes (300000) exceeds pfc.pause_threshold_bytes (256000)"},
	{where: "roce_switch_qos", attr: "ecn.mark_probability_percent", hcl: `ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 101 }`,
		summary: "Value Out of Range", detail: "ecn.mark_probability_percent is 101; a probability must be 1..100"},
	{where: "roce_switch_qos", attr: "ecn.mark_probability_percent", hcl: `ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600, mark_probability_percent = 0 }`,
		summary: "Value Out of Range", detail: "ecn.mark_probability_percent is 0; a probability must be 1..100"},
	{where: "roce_switch_qos", attr: "pfc.pause_threshold_bytes", hcl: `pfc = { pause_threshold_bytes = 0 }`,
		summary: "Threshold Not Positive", detail: "pfc.pause_threshold_bytes is 0; it must be above 0 bytes"},
	{where: "roce_switch_qos", attr: "pfc.pause_threshold_bytes", hcl: `pfc = { pause_threshold_bytes = 153600 }`,
		summary: "PFC/ECN Ratio Outside Window", detail: "pfc.pause_threshold_bytes is 153600, 1.50 x ecn.min_threshold_bytes (102400); the allowed window is 2.00-3.00 x"},
	{where: "roce_switch_qos", attr: "pfc.ratio_min", hcl: `pfc = { pause_threshold_bytes = 256000, ratio_min = 0 }`,
		summary: "Invalid Ratio Window", detail: "pfc.ratio_min is 0.00; it must be above 0"},
	{where: "roce_switch_qos", attr: "pfc.ratio_max", hcl: `pfc = { pause_threshold_bytes = 256000, ratio_max = 1.5 }`,
		summary: "Invalid Ratio Window", detail: "pfc.ratio_max (1.50) is below pfc.ratio_min (2.00)"},
	{where: "roce_switch_qos", attr: "pfc.ratio_target", hcl: `pfc = { pause_threshold_bytes = 256000, ratio_target = 3.5 }`,
		summary: "Invalid Ratio Window", detail: "pfc.ratio_target is 3.50, outside pfc.ratio_min..pfc.ratio_max (2.00-3.00)"},
	{where: "roce_switch_qos", attr: "rdma_scheduler.mode", hcl: `rdma_scheduler = { mode = "wrr" }`,
		summary: "Unknown Scheduler Mode", detail: `rdma_scheduler.mode is "wrr"; use "strict" or "dwrr"`},
	{where: "roce_switch_qos", attr: "rdma_scheduler.weight", hcl: `rdma_scheduler = { mode = "dwrr", weight = 101 }`,
		summary: "DWRR Weight Out of Range", detail: "rdma_scheduler.weight is 101; a DWRR weight is 1 to 100"},
	{where: "roce_switch_qos", attr: "cnp_scheduler.mode", hcl: `cnp_scheduler = { mode = "STRICT" }`,
		summary: "Unknown Scheduler Mode", detail: `cnp_scheduler.mode is "STRICT"; use "strict" or "dwrr"`},
	{where: "roce_switch_qos", attr: "cnp_scheduler.weight", hcl: `cnp_scheduler = { mode = "dwrr" }`,
		summary: "DWRR Weight Out of Range", detail: "cnp_scheduler.weight is 0; a DWRR weight is 1 to 100"},
	{where: "roce_switch_qos", attr: "pfc_watchdog.action", hcl: `pfc_watchdog = { action = "shutdown" }`,
		summary: "Unknown Watchdog Action", detail: `pfc_watchdog.action is "shutdown"; use "drop", "forward" or "alert"`},
	{where: "roce_switch_qos", attr: "pfc_watchdog.detection_time_ms", hcl: `pfc_watchdog = { detection_time_ms = 50 }`,
		summary: "Detection Time Out of Range", detail: "pfc_watchdog.detection_time_ms is 50; SONiC accepts 100 to 5000 ms"},
	{where: "roce_switch_qos", attr: "pfc_watchdog.restoration_time_ms", hcl: `pfc_watchdog = { restoration_time_ms = 60001 }`,
		summary: "Restoration Time Out of Range", detail: "pfc_watchdog.restoration_time_ms is 60001; SONiC accepts 100 to 60000 ms"},
	{where: "roce_switch_qos", attr: "lossless_classes[0].dscp[0]",
		hcl:     `lossless_classes = [{ name = "storage", dscp = [26], priority = 4, ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }, pfc = { pause_threshold_bytes = 256000 } }]`,
		summary: "DSCP Shared Between Lossless Classes", detail: `lossless_classes[0].dscp[0] is 26, which lossless class "rdma" already uses: a DSCP maps to one traffic class`},
	{where: "roce_switch_qos", attr: "lossless_classes[0].priority",
		hcl:     `lossless_classes = [{ name = "storage", dscp = [27], priority = 3, ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }, pfc = { pause_threshold_bytes = 256000 } }]`,
		summary: "Priority Shared Between Lossless Classes", detail: `lossless_classes[0].priority is 3, the priority of lossless class "rdma": each class needs its own priority`},
	{where: "roce_switch_qos", attr: "lossless_classes[0].priority",
		hcl:     `lossless_classes = [{ name = "storage", dscp = [50], priority = 6, ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }, pfc = { pause_threshold_bytes = 256000 } }]`,
		summary: "Lossless Class on the CNP Priority", detail: "lossless_classes[0].priority is 6, the priority of CNPs (cnp.priority): CNPs must not wait behind paused data; use another priority, such as 4"},
	{where: "roce_switch_qos", attr: "lossless_classes[0].dscp[0]",
		hcl:     `lossless_classes = [{ name = "storage", dscp = [48], priority = 4, ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }, pfc = { pause_threshold_bytes = 256000 } }]`,
		summary: "Lossless Class on the CNP DSCP", detail: "lossless_classes[0].dscp[0] is 48, the DSCP of CNPs (cnp.dscp)"},
	{where: "roce_switch_qos", attr: "lossless_classes[0].name",
		hcl:     `lossless_classes = [{ name = "rdma", dscp = [34], priority = 4, ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }, pfc = { pause_threshold_bytes = 256000 } }]`,
		summary: "Reserved Class Name", detail: `lossless_classes[0].name is "rdma", a name the switch objects of the default class`},
	{where: "roce_switch_qos", attr: "lossless_classes[0].pfc.pause_threshold_bytes",
		hcl:     `lossless_classes = [{ name = "storage", dscp = [34], priority = 4, ecn = { min_threshold_bytes = 200000, max_threshold_bytes = 400000 }, pfc = { pause_threshold_bytes = 900000 } }]`,
		summary: "PFC/ECN Ratio Outside Window", detail: "lossless_classes[0].pfc.pause_threshold_bytes is 900000, 4.50 x lossless_classes[0].ecn.min_threshold_bytes (200000)"},
	{where: "roce_switch_qos", attr: "lossless_classes[0].scheduler.weight",
		hcl:     `lossless_classes = [{ name = "storage", dscp = [34], priority = 4, ecn = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }, pfc = { pause_threshold_bytes = 256000 }, scheduler = { mode = "dwrr", weight = 50 } }]`,
		summary: "Lossless Weights Leave No Share", detail: "the lossless classes' DWRR weights add up to 100 (rdma 50, storage 50)"},
	{where: "roce_switch_qos", attr: "address", hcl: `address = "192.0.2.10"`, stage: atPlan,
		summary: "Invalid Switch Connection Settings", detail: `address "192.0.2.10" has no port and the provider sets no gnmi.port`},
	{where: "roce_switch_qos", attr: "address", hcl: `address = "192.0.2.10:0"`, stage: atPlan,
		summary: "Invalid Switch Connection Settings", detail: `address "192.0.2.10:0": want a host and a port in 1..65535`},
	{where: "roce_switch_qos", attr: "port_speed_gbps", hcl: `port_speed_gbps = 0`,
		summary: "Unsupported Port Speed", detail: "port_speed_gbps is 0; the headroom model knows 10, 25, 40, 50, 100, 200, 400, 800 Gb/s"},
	{where: "roce_switch_qos", attr: "port_speed_gbps", hcl: `port_speed_gbps = 300`,
		summary: "Unsupported Port Speed", detail: "port_speed_gbps is 300; the headroom model knows 10, 25, 40, 50, 100, 200, 400, 800 Gb/s"},
	{where: "roce_switch_qos", attr: "sonic_release", hcl: `sonic_release = "2024"`,
		summary: "Invalid SONiC Release", detail: `sonic_release "2024": parse sonic release "2024": no YYYYMM branch or master found`},
	{where: "roce_switch_qos", attr: "gnmi.insecure", hcl: `gnmi = { insecure = true, ca_file = "/pki/ca.pem" }`,
		summary: "Conflicting gNMI TLS Settings", detail: "gnmi.insecure = true turns TLS off for this switch, yet gnmi.ca_file is set"},
	{where: "roce_switch_qos", attr: "gnmi.insecure", hcl: `gnmi = { insecure = true }`, env: map[string]string{envGNMICAFile: "/pki/ca.pem"}, stage: atPlan,
		summary: "Conflicting gNMI TLS Settings", detail: "gnmi.insecure = true turns TLS off for this switch, yet the provider's gnmi.ca_file is set"},
	{where: "roce_switch_qos", attr: "gnmi.ca_file", hcl: `gnmi = { ca_file = "/pki/leaf1-ca.pem" }`, env: map[string]string{envGNMIInsecure: "true"}, stage: atPlan,
		summary: "Conflicting gNMI TLS Settings", detail: "This switch sets gnmi.ca_file, but the provider's gnmi.insecure = true turns TLS off"},
	{where: "roce_switch_qos", attr: "gnmi.username", hcl: `gnmi = { username = "admin" }`, stage: atPlan,
		summary: "Incomplete gNMI Settings", detail: "gnmi.username is set for this switch but there is no password: set gnmi.password here, or in the provider's gnmi block (or ROCE_GNMI_PASSWORD)"},
	{where: "roce_switch_qos", attr: "gnmi.key_file", hcl: `gnmi = { key_file = "/pki/leaf1.key" }`, stage: atPlan,
		summary: "Incomplete gNMI Settings", detail: "gnmi.key_file is set for this switch but there is no cert_file"},
	{where: "roce_switch_qos", attr: "nvue.insecure", hcl: `os = "cumulus"
ports = ["swp1"]
nvue = { insecure = true, ca_file = "/pki/cumulus-ca.pem" }`,
		summary: "Conflicting NVUE TLS Settings", detail: "nvue.insecure = true skips certificate verification for this switch, yet nvue.ca_file is set"},
	{where: "roce_switch_qos", attr: "nvue.certificate_pin", hcl: `os = "cumulus"
ports = ["swp1"]
nvue = { certificate_pin = "sha256//abc" }`,
		summary: "Invalid Certificate Pin", detail: `nvue.certificate_pin: certificate pin "sha256//abc": want the base64 of a 32-byte SHA-256`},
	{where: "roce_switch_qos", attr: "nvue.insecure", hcl: `os = "cumulus"
ports = ["swp1"]
nvue = { insecure = true, certificate_pin = "sha256//47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=" }`,
		summary: "Conflicting NVUE TLS Settings", detail: "nvue.insecure = true skips certificate verification for this switch, yet nvue.certificate_pin is set. Remove insecure to verify the certificate with certificate_pin."},
	{where: "roce_switch_qos", attr: "nvue.username", hcl: `os = "cumulus"
ports = ["swp1"]
nvue = { username = "nvapi" }`, stage: atPlan,
		summary: "Incomplete NVUE Login", detail: "nvue.username is set for this switch but there is no nvue.password: set nvue.password here, or in the provider's nvue block (or ROCE_NVUE_PASSWORD)"},
	{where: "roce_switch_qos", attr: "ports[1]", hcl: `ports = ["Ethernet0", "Ethernet1024"]`, stage: atSwitch,
		summary: "Unknown Port", detail: `ports[1] is "Ethernet1024", which the switch (Mellanox-SN5600-O128) does not have in its PORT table`},
	{where: "roce_switch_qos", attr: "ports", stage: atSwitch,
		hcl: `ecn = { min_threshold_bytes = 10000000, max_threshold_bytes = 20000000 }
pfc = { pause_threshold_bytes = 25000000 }
ports = ["Ethernet0", "Ethernet8", "Ethernet16"]`,
		summary: "Lossless Buffer Exhausted", detail: "exceeds the SN5600 ingress lossless pool of 67737959 B"},
	{where: "roce_switch_qos", attr: "ports", stage: atSwitch,
		hcl: `ecn = { min_threshold_bytes = 10000000, max_threshold_bytes = 20000000 }
pfc = { pause_threshold_bytes = 25000000 }
ports = ["Ethernet0", "Ethernet8"]
lossless_classes = [{ name = "storage", dscp = [34], priority = 4, ecn = { min_threshold_bytes = 10000000, max_threshold_bytes = 20000000 }, pfc = { pause_threshold_bytes = 25000000 } }]`,
		summary: "Lossless Buffer Exhausted", detail: "2 lossless classes reserve headroom + pause threshold on every port (rdma 250880 + 25000000, storage 250880 + 25000000 B = 50501760 B per port); 2 ports x 50501760 B = 101003520 B exceeds the SN5600 ingress lossless pool"},
	{where: "roce_switch_qos", attr: "lossless_classes[0].ecn.min_threshold_bytes", stage: atSwitch,
		hcl:     `lossless_classes = [{ name = "storage", dscp = [34], priority = 4, ecn = { min_threshold_bytes = 200000, max_threshold_bytes = 400000 }, pfc = { pause_threshold_bytes = 500000 } }]`,
		summary: "Per-Class ECN Needs SONiC 202511", detail: "but SONiC 202411 lets gNMI only replace the thresholds of the stock WRED profile AZURE_LOSSLESS"},
	{where: "roce_switch_qos", attr: "lossless_classes", stage: atCumulus,
		hcl: `os = "cumulus"
ports = ["swp1"]
lossless_classes = [{ name = "storage", dscp = [34], priority = 4, ecn = { min_threshold_bytes = 200000, max_threshold_bytes = 400000 }, pfc = { pause_threshold_bytes = 500000 } }]`,
		summary: "Lossless Classes Beside Cumulus RoCE Mode", detail: "lossless_classes lists 1 lossless class (storage on priority 4) beside it, which NVIDIA documents no way to add in RoCE mode: its priorities would be paused into lossy buffer. Turn RoCE mode off (nv unset qos roce; nv config apply)"},

	// roce_nic_dcqcn: the NIC side of the traffic class and the DCQCN firmware ranges.
	{where: "roce_nic_dcqcn", attr: "priority", hcl: `priority = 8`,
		summary: "Value Out of Range", detail: "priority is 8; a priority must be 0..7"},
	{where: "roce_nic_dcqcn", attr: "rdma_dscp", hcl: `rdma_dscp = 64`,
		summary: "Value Out of Range", detail: "rdma_dscp is 64; a DSCP must be 0..63"},
	{where: "roce_nic_dcqcn", attr: "cnp.dscp", hcl: `cnp = { dscp = 64 }`,
		summary: "Value Out of Range", detail: "cnp.dscp is 64; a DSCP must be 0..63"},
	{where: "roce_nic_dcqcn", attr: "cnp.dscp", hcl: `cnp = { dscp = 26 }`,
		summary: "CNP DSCP Shared With RDMA", detail: "cnp.dscp is 26, which is also an RDMA data DSCP"},
	{where: "roce_nic_dcqcn", attr: "cnp.priority", hcl: `cnp = { priority = 3 }`,
		summary: "CNP Priority Shared With RDMA", detail: "cnp.priority is 3, the same as priority"},
	{where: "roce_nic_dcqcn", attr: "pfc_priorities[1]", hcl: `pfc_priorities = [3, 8]`,
		summary: "Priority Out of Range", detail: "pfc_priorities[1] is 8; priorities are 0 to 7"},
	{where: "roce_nic_dcqcn", attr: "pfc_priorities[1]", hcl: `pfc_priorities = [3, 6]`,
		summary: "PFC on the CNP Priority", detail: "pfc_priorities[1] is 6, the CNP priority (cnp.priority)"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.gain", hcl: `dcqcn = { gain = 0 }`,
		summary: "Value Out of Range", detail: "dcqcn.gain is 0; the gain must be between 0.000976562 and 1"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.initial_alpha", hcl: `dcqcn = { initial_alpha = 1 }`,
		summary: "Value Out of Range", detail: "dcqcn.initial_alpha is 1; the initial alpha must be between 0.000976562 and 0.999023"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.ai_rate_mbps", hcl: `dcqcn = { ai_rate_mbps = 0 }`,
		summary: "Value Out of Range", detail: "dcqcn.ai_rate_mbps is 0; it must be 1..800000"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.hai_rate_mbps", hcl: `dcqcn = { hai_rate_mbps = 0 }`,
		summary: "Value Out of Range", detail: "dcqcn.hai_rate_mbps is 0; it must be 1..800000"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.alpha_update_period_us", hcl: `dcqcn = { alpha_update_period_us = 0 }`,
		summary: "Value Out of Range", detail: "dcqcn.alpha_update_period_us is 0; it must be 1..131071"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.time_reset_us", hcl: `dcqcn = { time_reset_us = 131072 }`,
		summary: "Value Out of Range", detail: "dcqcn.time_reset_us is 131072; it must be 1..131071"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.byte_reset", hcl: `dcqcn = { byte_reset = 32768 }`,
		summary: "Value Out of Range", detail: "dcqcn.byte_reset is 32768; it must be 1..32767"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.min_rate_mbps", hcl: `dcqcn = { min_rate_mbps = 0 }`,
		summary: "Value Out of Range", detail: "dcqcn.min_rate_mbps is 0; it must be 1..800000"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.cut_floor_percent", hcl: `dcqcn = { cut_floor_percent = 101 }`,
		summary: "Value Out of Range", detail: "dcqcn.cut_floor_percent is 101; it must be 0..100"},
	{where: "roce_nic_dcqcn", attr: "dcqcn.min_decrease_factor_percent", hcl: `dcqcn = { cut_floor_percent = 30, min_decrease_factor_percent = 40 }`,
		summary: "Conflicting DCQCN Settings", detail: "dcqcn.min_decrease_factor_percent is 40 and dcqcn.cut_floor_percent is 30, two names of one knob (rpg_min_dec_fac): set only cut_floor_percent."},
	{where: "roce_nic_dcqcn", attr: "dcqcn.min_time_between_cnps_us", hcl: `dcqcn = { min_time_between_cnps_us = 4096 }`,
		summary: "Value Out of Range", detail: "dcqcn.min_time_between_cnps_us is 4096; it must be 0..4095"},
	{where: "roce_nic_dcqcn", attr: "cma_roce_tos", hcl: `cma_roce_tos = 256`,
		summary: "Value Out of Range", detail: "cma_roce_tos is 256; a ToS byte is 0..255"},
	{where: "roce_nic_dcqcn", attr: "pfc_priorities[1]", hcl: `pfc_priorities = [3, 3]`,
		summary: "Repeated PFC Priority", detail: "pfc_priorities[1] repeats priority 3; list each priority once"},
	{where: "roce_nic_dcqcn", attr: "pfc_priorities", hcl: `pfc_priorities = []`,
		summary: "No PFC Priority", detail: "pfc_priorities is empty, which would turn PFC off on every priority"},
	{where: "roce_nic_dcqcn", attr: "devices[0]", hcl: `devices = ["ens1f0np0/x"]`,
		summary: "Invalid Device Name", detail: `devices[0] is "ens1f0np0/x", which cannot be a network interface name`},
	{where: "roce_nic_dcqcn", attr: "devices[0]", hcl: `devices = ["a-name-far-too-long"]`,
		summary: "Invalid Device Name", detail: `devices[0] is "a-name-far-too-long"`},
	{where: "roce_nic_dcqcn", attr: "devices[1]", hcl: `devices = ["ens1f0np0", "ens1f0np0"]`,
		summary: "Repeated Device", detail: `devices[1] repeats "ens1f0np0"; list each device once`},
	{where: "roce_nic_dcqcn", attr: "devices", hcl: `devices = ["eth9"]`, stage: atHost,
		summary: "Cannot Plan NIC DCQCN", detail: "netdev eth9 is not a ConnectX (mlx5) netdev of this host",
		at: "host", names: "netdev"},

	// roce_nccl_env_profile: what NCCL would misread or reject.
	{where: "roce_nccl_env_profile", attr: "path", hcl: `path = "nccl.conf"`,
		summary: "Relative Path", detail: `path is "nccl.conf"; the provider writes the file on the host and needs an absolute path, such as /etc/nccl.conf`},
	{where: "roce_nccl_env_profile", attr: "profile_script_path", hcl: `profile_script_path = "profile.d/nccl.sh"`,
		summary: "Relative Path", detail: `profile_script_path is "profile.d/nccl.sh"; the provider writes the file on the host and needs an absolute path`},
	{where: "roce_nccl_env_profile", attr: "hcas[0]", hcl: `hcas = ["^mlx5_0"]`,
		summary: "Invalid HCA Name", detail: `hcas[0] is "^mlx5_0"; give an RDMA device name such as "mlx5_0"`},
	{where: "roce_nccl_env_profile", attr: "hcas[1]", hcl: `hcas = ["mlx5_0", "mlx5_1:1"]`,
		summary: "Invalid HCA Name", detail: `hcas[1] is "mlx5_1:1"`},
	{where: "roce_nccl_env_profile", attr: "rdma_dscp", hcl: `rdma_dscp = 64`,
		summary: "Invalid DSCP", detail: "dscp 64 is out of range: use 0..63"},
	{where: "roce_nccl_env_profile", attr: "gid_index", hcl: `gid_index = "third"`,
		summary: "Invalid GID Index", detail: `gid_index is "third"; use "auto"`},
	{where: "roce_nccl_env_profile", attr: "gid_index", hcl: `gid_index = "256"`,
		summary: "Invalid GID Index", detail: `gid_index is "256"; use "auto" (NCCL >= 2.21 picks it), "detect" (read it from the host's GID table) or a number 0-255`},
	{where: "roce_nccl_env_profile", attr: "qps_per_connection", hcl: `qps_per_connection = 0`,
		summary: "Invalid NCCL Value", detail: "NCCL_IB_QPS_PER_CONNECTION=0: NCCL_IB_QPS_PER_CONNECTION: value 0 is out of range: use 1..128"},
	{where: "roce_nccl_env_profile", attr: "cross_nic", hcl: `cross_nic = 3`,
		summary: "Invalid NCCL Value", detail: "NCCL_CROSS_NIC=3: NCCL_CROSS_NIC: value 3 is out of range: use 0..2"},
	{where: "roce_nccl_env_profile", attr: "gdr_level", hcl: `gdr_level = "pix"`,
		summary: "Invalid NCCL Value", detail: `NCCL_NET_GDR_LEVEL: value "pix" is not one of LOC, PIX, PXB, PHB, SYS`},
	{where: "roce_nccl_env_profile", attr: "debug", hcl: `debug = "LOUD"`,
		summary: "Invalid NCCL Value", detail: `NCCL_DEBUG=LOUD: NCCL_DEBUG: value "LOUD" is not one of`},
	{where: "roce_nccl_env_profile", attr: "debug_subsys", hcl: `debug_subsys = "INIT,DISK"`,
		summary: "Invalid NCCL Value", detail: `list "INIT,DISK": value "DISK" is not one of`},
	{where: "roce_nccl_env_profile", attr: "socket_ifname", hcl: `socket_ifname = "eth0 eth1"`,
		summary: "Invalid NCCL Value", detail: `interface list "eth0 eth1" has entry "eth0 eth1": use interface names of 1 to 15 characters without spaces or /`},
	{where: "roce_nccl_env_profile", attr: `extra["NCCL_IB_TC"]`, hcl: `extra = { NCCL_IB_TC = "0" }`,
		summary: "Invalid NCCL Variables", detail: "extra sets NCCL_IB_TC, which has its own attribute rdma_dscp"},
	{where: "roce_nccl_env_profile", attr: `extra["NCCL_IB_TIMEOUT"]`, hcl: `extra = { NCCL_IB_TIMEOUT = "32" }`,
		summary: "Invalid NCCL Value", detail: "NCCL_IB_TIMEOUT=32: NCCL_IB_TIMEOUT: value 32 is out of range: use 0..31"},
	{where: "roce_nccl_env_profile", attr: `extra["NCCL_IB_DISABLE"]`, hcl: `extra = { NCCL_IB_DISABLE = "" }`,
		summary: "Invalid NCCL Value", detail: "NCCL_IB_DISABLE: value is empty: omit the variable instead"},
	{where: "roce_nccl_env_profile", attr: `extra["nccl_ib_timeout"]`, hcl: `extra = { nccl_ib_timeout = "5" }`,
		summary: "Invalid NCCL Variable Name", detail: `variable name "nccl_ib_timeout" is invalid: use NCCL_ followed by upper-case letters, digits and underscores (did you mean NCCL_IB_TIMEOUT?)`},
	{where: "roce_nccl_env_profile", attr: "nccl_version", hcl: `nccl_version = "two"`,
		summary: "Invalid NCCL Version", detail: `nccl_version is "two", which is not a version: give the installed NCCL's version in a form such as 2.26.2`},

	// roce_host_bootstrap: the OFED pin and GPUDirect mode.
	{where: "roce_host_bootstrap", attr: "ofed.lock_timeout",
		hcl:     `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/", lock_timeout = "soon" }`,
		summary: "Invalid OFED Settings", detail: `ofed.lock_timeout is "soon"; use a positive Go duration`},
	{where: "roce_host_bootstrap", attr: "gpudirect", hcl: `gpudirect = "magic"`,
		summary: "Invalid GPUDirect Mode", detail: `gpudirect is "magic"; use auto, peermem, dmabuf or none`},
	{where: "roce_host_bootstrap", attr: "ofed.flavor", hcl: `ofed = { flavor = "rocm", version = "25.10-1.7.1" }`,
		summary: "Invalid OFED Settings", detail: `OFED flavor "rocm": want doca or mlnx`},
	{where: "roce_host_bootstrap", attr: "ofed.version", hcl: `ofed = { flavor = "doca" }`,
		summary: "Invalid OFED Settings", detail: "OFED pin: set version (to install) or constraint (to check the running stack)"},
	{where: "roce_host_bootstrap", attr: "ofed.version", hcl: `ofed = { flavor = "doca", version = "25.10" }`,
		summary: "Invalid OFED Settings", detail: `OFED version "25.10": want the form ofed_info -n prints`},
	{where: "roce_host_bootstrap", attr: "ofed.constraint", hcl: `ofed = { flavor = "doca", constraint = "newest" }`,
		summary: "Invalid OFED Settings", detail: `OFED version constraint "newest"`},
	{where: "roce_host_bootstrap", attr: "ofed.constraint", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", constraint = "~> 24.10.0" }`,
		summary: "Invalid OFED Settings", detail: "OFED version 25.10-1.7.1 does not satisfy the constraint ~> 24.10.0"},
	{where: "roce_host_bootstrap", attr: "ofed.package_version", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", package_version = "v25" }`,
		summary: "Invalid OFED Settings", detail: `package version "v25": want a dpkg or rpm version`},
	{where: "roce_host_bootstrap", attr: "family",
		hcl: `family = "suse"
ofed = { flavor = "doca", version = "25.10-1.7.1" }`,
		summary: "Invalid OFED Settings", detail: `package family "suse": want auto (the host's), debian or rhel`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_url", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1" }`,
		summary: "Invalid OFED Settings", detail: "OFED doca 25.10-1.7.1: set repo_url to the repository directory of that version"},
	{where: "roce_host_bootstrap", attr: "ofed.repo_url",
		hcl:     `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://linux.mellanox.com/public/repo/doca/latest/ubuntu24.04/x86_64/" }`,
		summary: "Invalid OFED Settings", detail: `the OFED repository URL points at a "latest" directory`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_urls", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://mirror.example/doca/3.2.1/u24/", repo_urls = { rhel = "https://mirror.example/doca/3.2.1/rhel9/" } }`,
		summary: "Invalid OFED Settings", detail: "set repo_url (one repository for every host) or repo_urls (one per package family), not both"},
	{where: "roce_host_bootstrap", attr: "ofed.repo_urls", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_urls = { sles = "https://mirror.example/doca/3.2.1/sles15/" } }`,
		summary: "Invalid OFED Settings", detail: `repo_urls has the key "sles": want debian or rhel`},
	{where: "roce_host_bootstrap", attr: `ofed.repo_urls["rhel"]`, hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_urls = { debian = "https://mirror.example/doca/3.2.1/u24/", rhel = "https://mirror.example/doca/latest/rhel9/" } }`,
		summary: "Invalid OFED Settings", detail: `the OFED repository URL points at a "latest" directory`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_url", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "ftp://mirror.example/doca/3.2.1/" }`,
		summary: "Invalid OFED Settings", detail: `repository URL "ftp://mirror.example/doca/3.2.1/": want an http, https or file URL`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_url", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://gpu:secret@mirror.example/doca/3.2.1/" }`,
		summary: "Invalid OFED Settings", detail: `repository URL https://gpu:xxxxx@mirror.example/doca/3.2.1/ carries a login`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_auth", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "file:/srv/doca", trusted = true, repo_auth = { username = "gpu", password = "secret" } }`,
		summary: "Invalid OFED Settings", detail: `a login needs an http or https repository, not file:`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_auth.password", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://mirror.example/doca/3.2.1/", repo_auth = { username = "gpu", password = "two words" } }`,
		summary: "Invalid OFED Settings", detail: `the password holds a blank or control character`},
	{where: "roce_host_bootstrap", attr: "ofed.repo_auth", hcl: `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://mirror.example/doca/3.2.1/", repo_auth = { username = "gpu" } }`,
		summary: "Repository Password Missing", detail: `ofed.repo_auth has a username but no password: set password_wo`},
	{where: "roce_host_bootstrap", attr: "ofed.trusted",
		hcl:     `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://mirror.example/doca/3.2.1/", trusted = true }`,
		summary: "Invalid OFED Settings", detail: "trusted turns signature checks off for https://mirror.example/doca/3.2.1/, a remote repository"},
	{where: "roce_host_bootstrap", attr: "ofed.key",
		hcl:     `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/", key = "/etc/apt/keyrings/doca.gpg", trusted = true }`,
		summary: "Invalid OFED Settings", detail: "OFED repository: set key or trusted, not both"},
	{where: "roce_host_bootstrap", attr: "ofed.key",
		hcl:     `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/", key = "doca.gpg" }`,
		summary: "Invalid OFED Settings", detail: `repository key "doca.gpg": want a keyring path for signed-by (Debian) or a gpgkey URL (RHEL)`},
	{where: "roce_host_bootstrap", attr: "ofed.packages[0]",
		hcl:     `ofed = { flavor = "doca", version = "25.10-1.7.1", repo_url = "https://linux.mellanox.com/public/repo/doca/3.2.1/ubuntu24.04/x86_64/", packages = ["doca ofed"] }`,
		summary: "Invalid OFED Settings", detail: `package name "doca ofed": want letters, digits and + . _ -`},

	// roce_gdr_preflight: thresholds no host can meet.
	{where: "roce_gdr_preflight", attr: "expected_gid_index", hcl: `expected_gid_index = -1`,
		summary: "Value Out of Range", detail: "expected_gid_index is -1; a GID table index is 0..255"},
	{where: "roce_gdr_preflight", attr: "expected_gid_index", hcl: `expected_gid_index = 256`,
		summary: "Value Out of Range", detail: "expected_gid_index is 256; a GID table index is 0..255"},
	{where: "roce_gdr_preflight", attr: "min_bar1_mib", hcl: `min_bar1_mib = -5`,
		summary: "Value Out of Range", detail: "min_bar1_mib is -5; a BAR1 size in MiB is 0 or more"},

	// roce_fabric_health: what no sample can answer.
	{where: "roce_fabric_health", attr: "priority", hcl: `priority = 8`,
		summary: "Value Out of Range", detail: "priority is 8; an 802.1p priority is 0-7"},
	{where: "roce_fabric_health", attr: `classes["storage"]`, hcl: `classes = { storage = 8 }`,
		summary: "Value Out of Range", detail: `classes["storage"] is 8; an 802.1p priority is 0-7`},
	{where: "roce_fabric_health", attr: `classes["storage"]`, hcl: `classes = { nvme = 4, storage = 4 }`,
		summary: "Repeated Class Priority", detail: `classes["nvme"] and classes["storage"] are both priority 4`},
	{where: "roce_fabric_health", attr: "interval_seconds", hcl: `interval_seconds = 0`,
		summary: "Value Out of Range", detail: "interval_seconds is 0; the samples are 1-600 seconds apart"},
	{where: "roce_fabric_health", attr: "hosts[1]", hcl: `hosts = ["192.0.2.20", "192.0.2.20"]`,
		summary: "Duplicate Address", detail: `hosts[0] and hosts[1] are both "192.0.2.20"`},
	{where: "roce_fabric_health", attr: "switches[1]", hcl: `switches = ["192.0.2.1", { address = "192.0.2.1", os = "sonic" }]`,
		summary: "Duplicate Address", detail: `switches[0] and switches[1] are both "192.0.2.1"`},
	{where: "roce_fabric_health", attr: "switches[0].os", hcl: `switches = [{ address = "192.0.2.1", os = "junos" }]`,
		summary: "Unknown Switch Operating System", detail: `switches[0]: no driver for the switch operating system "junos": use one of "cumulus" or "sonic"`},
	{where: "roce_fabric_health", attr: "switches[0]", hcl: `switches = [{ os = "sonic" }]`,
		summary: "Switch Without Address", detail: "switches[0] has no address"},
	{where: "roce_fabric_health", attr: "cables[0].host", hcl: `switches = ["192.0.2.1:8080"]
cables   = [{ switch = "192.0.2.1:8080", port = "Ethernet0", host = "192.0.2.99", netdev = "ens1f0np0" }]`,
		summary: "Cable End Not Sampled", detail: `cables[0].host is "192.0.2.99", which is not in hosts`},
	{where: "roce_fabric_health", attr: "switches", hcl: `switches = []
hosts    = []`,
		summary: "Nothing to Sample", detail: "switches, cumulus_switches and hosts are all empty or unset"},

	// roce_nccl_test: what all_reduce_perf or mpirun would refuse.
	{where: "roce_nccl_test", attr: "hosts", hcl: `hosts = []`,
		summary: "No Hosts", detail: "hosts is empty: list the SSH addresses of the hosts to test"},
	{where: "roce_nccl_test", attr: "mpi_hosts", hcl: `mpi_hosts = ["a", "b"]`,
		summary: "Mismatched Host Lists", detail: "mpi_hosts has 2 names and hosts 1 addresses"},
	{where: "roce_nccl_test", attr: "max_bytes", hcl: `max_bytes = "8GB"`,
		summary: "Invalid Message Size", detail: `max_bytes is "8GB"; nccl-tests takes a whole number of bytes with an optional K, M or G suffix`},
	{where: "roce_nccl_test", attr: "min_bytes", hcl: `min_bytes = "2G"
max_bytes = "1G"`,
		summary: "Message Sizes Out of Order", detail: `min_bytes "2G" is larger than max_bytes "1G"`},
	{where: "roce_nccl_test", attr: "hosts[1]", hcl: `hosts = ["192.0.2.20", "192.0.2.20"]`,
		summary: "Duplicate Address", detail: `hosts[0] and hosts[1] are both "192.0.2.20"`},
	{where: "roce_nccl_test", attr: "step_factor", hcl: `step_factor = 1`,
		summary: "Value Out of Range", detail: "step_factor is 1; it takes 2-1024"},
	{where: "roce_nccl_test", attr: "gpus_per_host", hcl: `gpus_per_host = 0`,
		summary: "Value Out of Range", detail: "gpus_per_host is 0; it takes 1-64"},
	{where: "roce_nccl_test", attr: "min_busbw_gbps", hcl: `min_busbw_gbps = -1`,
		summary: "Value Out of Range", detail: "min_busbw_gbps is -1; a bandwidth is 0 or more GB/s"},
	{where: "roce_nccl_test", attr: "min_busbw_fraction", hcl: `hosts              = ["192.0.2.20", "192.0.2.21"]
min_busbw_fraction = 80`,
		summary: "Value Out of Range", detail: "min_busbw_fraction is 80; it is a share of the expected bus bandwidth, more than 0 and at most 1: set e.g. 0.8"},
	{where: "roce_nccl_test", attr: "min_busbw_fraction", hcl: `min_busbw_fraction = 0.8`,
		summary: "Expected Bandwidth Needs Two Hosts", detail: "min_busbw_fraction is 0.8 with one host: a single host's all-reduce runs over NVLink"},
	{where: "roce_nccl_test", attr: "rail_gbps", hcl: `rail_gbps = 400000`,
		summary: "Value Out of Range", detail: "rail_gbps is 400000; it takes 1-1600: set each rail's line rate in Gb/s"},
	{where: "roce_nccl_test", attr: "busbw_efficiency", hcl: `busbw_efficiency = 96`,
		summary: "Value Out of Range", detail: "busbw_efficiency is 96; it is a share of the line rate, more than 0 and at most 1"},
	{where: "roce_nccl_test", attr: "env", hcl: `env = { "NCCL-IB" = "1" }`,
		summary: "Invalid Variable Name", detail: `env key "NCCL-IB" is not a variable name`},
	{where: "roce_nccl_test", attr: `env["NCCL_IB_HCA"]`, hcl: `env = { NCCL_IB_HCA = "=^mlx5_0" }`,
		summary: "Invalid NCCL Value", detail: `NCCL_IB_HCA "=^mlx5_0" puts = before ^: ^ must precede =, write "^=mlx5_0"`},

	// Functions: errors from a call, or findings returned as a list.
	{where: "provider::roce::tos", attr: "dscp", hcl: `provider::roce::tos(64, 2)`,
		detail: "dscp 64 is out of range: use 0..63", names: "dscp"},
	{where: "provider::roce::tos", attr: "ecn_bits", hcl: `provider::roce::tos(26, 4)`,
		detail: "ecn bits 4 are out of range: use 0..3", names: "ecn bits"},
	{where: "provider::roce::pfc_headroom", attr: "speed_gbps", hcl: `provider::roce::pfc_headroom(300, 5, 9100)`,
		detail: "port speed 300 Gb/s is not supported", names: "speed"},
	{where: "provider::roce::pfc_headroom", attr: "cable_length_m", hcl: `provider::roce::pfc_headroom(400, -1, 9100)`,
		detail: "cable length -1 m is invalid: use a length of 0 m or more", names: "cable length"},
	{where: "provider::roce::pfc_headroom", attr: "mtu", hcl: `provider::roce::pfc_headroom(400, 5, 10000)`,
		detail: "port mtu 10000 is out of range: use 68..9216", names: "mtu"},
	{where: "provider::roce::ecn_pfc_findings", attr: "ecn_min_bytes", hcl: `provider::roce::ecn_pfc_findings(0, 153600, 256000)`,
		summary: "Threshold Not Positive", detail: "ecn.min_threshold_bytes is 0", names: "ecn.min_threshold_bytes"},
	{where: "provider::roce::ecn_pfc_findings", attr: "ecn_min_bytes", hcl: `provider::roce::ecn_pfc_findings(160000, 153600, 256000)`,
		summary: "ECN Thresholds Out of Order", detail: "ecn.min_threshold_bytes (160000) must be below ecn.max_threshold_bytes (153600)", names: "ecn.min_threshold_bytes"},
	{where: "provider::roce::ecn_pfc_findings", attr: "ecn_max_bytes", hcl: `provider::roce::ecn_pfc_findings(102400, 300000, 256000)`,
		summary: "ECN Marks After PFC Pauses", detail: "ecn.max_threshold_bytes (300000) exceeds pfc.pause_threshold_bytes (256000)", names: "ecn.max_threshold_bytes"},
	{where: "provider::roce::ecn_pfc_findings", attr: "pfc_pause_bytes", hcl: `provider::roce::ecn_pfc_findings(102400, 153600, 512000)`,
		summary: "PFC/ECN Ratio Outside Window", detail: "pfc.pause_threshold_bytes is 512000, 5.00 x ecn.min_threshold_bytes (102400)", names: "pfc.pause_threshold_bytes"},
}

// badInputSection is one heading of the guide: a resource type, the provider block or the
// functions, with the valid configuration its rows start from.
type badInputSection struct {
	where string // badInput.where of its rows; "provider::roce::" takes every function
	data  bool   // where is a data source, whose rows are refused at validate
	title string
	intro string
	base  string // valid attributes each row replaces some of, as HCL
}

var badInputSections = []badInputSection{
	{where: "provider", title: "Provider block",
		intro: "Each row is a `provider \"roce\"` block holding only the setting shown, with no `ROCE_*` variable set unless the row sets one. " +
			"An environment variable that stands in for an attribute gets the same check, and the error names the variable. " +
			"Terraform configures the provider when it plans, so these errors come from `terraform plan`, before any connection is opened."},
	{where: "roce_switch_qos", title: "roce_switch_qos",
		intro: "Each row replaces the attributes it shows in this valid configuration:",
		base: `address = "192.0.2.10:8080"
ports   = ["Ethernet0"]
ecn     = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
pfc     = { pause_threshold_bytes = 256000 }`},
	{where: "roce_nic_dcqcn", title: "roce_nic_dcqcn",
		intro: "Each row adds the attributes it shows to this valid configuration:",
		base:  `host = "192.0.2.20"`},
	{where: "roce_nccl_env_profile", title: "roce_nccl_env_profile",
		intro: "Each row adds the attributes it shows to this valid configuration:",
		base:  `host = "192.0.2.20"`},
	{where: "roce_host_bootstrap", title: "roce_host_bootstrap",
		intro: "Each row adds the attributes it shows to this valid configuration. The OFED settings are checked without the host, " +
			"each on its own attribute; what depends on the host (the running stack, another flavor already installed) is checked " +
			"when the plan reads it.",
		base: `host = "192.0.2.20"`},
	{where: "roce_gdr_preflight", data: true, title: "roce_gdr_preflight",
		intro: "Each row adds the attributes it shows to this valid configuration; the thresholds are checked before the host is read.",
		base:  `host = "192.0.2.20"`},
	{where: "roce_fabric_health", data: true, title: "roce_fabric_health",
		intro: "Each row replaces the attributes it shows in this valid configuration; nothing is sampled before these checks pass.",
		base:  `hosts = ["192.0.2.20"]`},
	{where: "roce_nccl_test", data: true, title: "roce_nccl_test",
		intro: "Each row replaces the attributes it shows in this valid configuration; nothing runs on a host before these checks pass.",
		base:  `hosts = ["192.0.2.20"]`},
	{where: "provider::roce::", title: "Functions",
		intro: "Function errors come from `terraform validate` when the arguments are constants, else from the plan that " +
			"knows them. `ecn_pfc_findings` does not fail: it returns one line per finding, and the rows show its `error:` lines."},
}

// ecnPFCFindings returns findings instead of failing; its rows expect an "error:" line.
const ecnPFCFindings = "provider::roce::ecn_pfc_findings"

func (c badInput) isFunction() bool { return strings.HasPrefix(c.where, "provider::roce::") }

func (c badInput) name() string {
	value := c.hcl
	for k, v := range c.env {
		value += " " + k + "=" + v
	}
	return c.where + " " + c.attr + " " + value
}

// errorPath is the attribute path the error is attached to.
func (c badInput) errorPath() string {
	if c.at != "" {
		return c.at
	}
	return c.attr
}

func TestBadInputInventory(t *testing.T) {
	rig := newBadInputRig(t)
	t.Run("bases are valid", func(t *testing.T) {
		for _, s := range badInputSections {
			if s.where == "provider::roce::" {
				continue
			}
			diags := rig.validate(t, s.where, nil, atValidate)
			if s.where == "provider" {
				diags = append(diags, rig.plan(t, badInput{where: "provider"})...)
			}
			if len(diags) > 0 {
				t.Errorf("%s: the base configuration draws diagnostics: %s", s.where, describeDiags(diags))
			}
		}
	})
	rowsPass := t.Run("rows", func(t *testing.T) {
		for _, c := range badInputs {
			t.Run(c.name(), func(t *testing.T) {
				if c.stage == atHost {
					hosttwintest.SkipShort(t)
				}
				t.Parallel()
				rig.check(t, c)
			})
		}
	})
	t.Run("guide", func(t *testing.T) {
		got := badInputPage()
		if *updateGuide {
			if testing.Short() {
				t.Fatal("not writing the guide from the fast tier: the host rows did not run")
			}
			if !rowsPass {
				t.Fatal("not writing the guide: some rows fail")
			}
			if err := os.WriteFile(badInputGuide, []byte(got), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(badInputGuide)
		if err != nil {
			t.Fatalf("%v: run `go test ./internal/provider -run TestBadInputInventory -update` to write it", err)
		}
		if diff := cmp.Diff(string(want), got); diff != "" {
			t.Errorf("%s is stale (-committed +generated):\n%s\nRun `go test ./internal/provider -run TestBadInputInventory -update` and commit the result.", badInputGuide, diff)
		}
	})
}

// TestBadInputTableCoversSections keeps every row under a heading of the guide and every
// row's expectations complete, so no row silently drops out of the page.
func TestBadInputTableCoversSections(t *testing.T) {
	for _, c := range badInputs {
		if sectionOf(c) == nil {
			t.Errorf("%s: no section of the guide takes it", c.name())
		}
		if c.detail == "" || (c.summary == "" && (!c.isFunction() || c.where == ecnPFCFindings)) {
			t.Errorf("%s: summary or detail missing", c.name())
		}
		if (c.at != "" || c.isFunction()) && c.names == "" {
			t.Errorf("%s: the error is not attached to %s, so names must say how its text names it", c.name(), c.attr)
		}
		if c.names != "" && !strings.Contains(c.detail, c.names) {
			t.Errorf("%s: the expected detail %q does not name the attribute as %q", c.name(), c.detail, c.names)
		}
	}
}

func sectionOf(c badInput) *badInputSection {
	for i, s := range badInputSections {
		if c.where == s.where || (s.where == "provider::roce::" && c.isFunction()) {
			return &badInputSections[i]
		}
	}
	return nil
}

// badInputRig holds the twins the rows that read a device need, and the provider settings
// that reach them.
type badInputRig struct {
	switchAddr, switchProvider   string
	hostAddr, hostProvider       string
	cumulusAddr, cumulusProvider string
}

func newBadInputRig(t *testing.T) *badInputRig {
	t.Helper()
	rig := &badInputRig{}
	needs := func(s badInputStage) bool {
		return slices.ContainsFunc(badInputs, func(c badInput) bool { return c.stage == s })
	}
	if needs(atSwitch) {
		f := newSwitchFixture(t, switchtwin.Options{})
		rig.switchAddr = f.addr
		rig.switchProvider = fmt.Sprintf("gnmi = { username = %q, password = %q, ca_file = %q }", twinUser, twinPassword, f.caFile)
	}
	if needs(atCumulus) {
		f := newCumulusFixtureWith(t, nvuetwin.Options{Release: "5.14"})
		if err := f.twin.RoCE("lossless"); err != nil {
			t.Fatal(err)
		}
		rig.cumulusAddr = f.addr
		rig.cumulusProvider = fmt.Sprintf("nvue = { username = \"cumulus\", password = %q, ca_file = %q }", twinPassword, f.caFile)
	}
	if needs(atHost) && !testing.Short() {
		fleet, _ := hostTwins(t)
		rig.hostAddr = twinAddress(t, fleet, "cx7")
		rig.hostProvider = fmt.Sprintf("ssh = { user = \"root\", private_key_file = %q, known_hosts_file = %q }", fleet.UserKeyFile(), fleet.KnownHostsFile())
	}
	return rig
}

// check provokes one row's error and requires it as the table states it.
func (rig *badInputRig) check(t *testing.T, c badInput) {
	t.Helper()
	if c.isFunction() {
		rig.checkFunction(t, c)
		return
	}
	if sectionOf(c).data && c.stage != atValidate {
		t.Fatalf("%s is a data source; the rig provokes its errors at validate only", c.where)
	}
	diags := rig.validate(t, c.where, &c, c.stage)
	if c.stage == atValidate {
		requireDiag(t, c, diags)
		return
	}
	if hasError(diags) {
		t.Fatalf("the row says the error comes at %s, but validation already refuses it: %s", c.stage, describeDiags(diags))
	}
	requireDiag(t, c, rig.plan(t, c))
}

// validate runs what `terraform validate` runs for the row (the base configuration when c is
// nil): ValidateProviderConfig for the provider block, ValidateResourceConfig for a resource.
func (rig *badInputRig) validate(t *testing.T, where string, c *badInput, stage badInputStage) []*tfprotov6.Diagnostic {
	t.Helper()
	var env map[string]string
	if c != nil {
		env = c.env
	}
	p := newBadInputPlugin(t, env)
	ctx := callContext(t)
	if where == "provider" {
		resp, err := p.srv.ValidateProviderConfig(ctx, &tfprotov6.ValidateProviderConfigRequest{Config: p.providerConfig(t, hclOf(c))})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Diagnostics
	}
	cfg := p.resourceConfig(t, where, c, rig.target(stage))
	if sectionOf(badInput{where: where}).data {
		resp, err := p.srv.ValidateDataResourceConfig(ctx, &tfprotov6.ValidateDataResourceConfigRequest{TypeName: where, Config: cfg})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Diagnostics
	}
	resp, err := p.srv.ValidateResourceConfig(ctx, &tfprotov6.ValidateResourceConfigRequest{TypeName: where, Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// hclOf is a row's setting, empty for none.
func hclOf(c *badInput) string {
	if c == nil {
		return ""
	}
	return c.hcl
}

// target is the address a resource row at stage talks to: a twin for the rows that read a
// device, else the base configuration's own (never contacted).
func (rig *badInputRig) target(stage badInputStage) string {
	switch stage {
	case atSwitch:
		return rig.switchAddr
	case atHost:
		return rig.hostAddr
	case atCumulus:
		return rig.cumulusAddr
	}
	return ""
}

// plan runs what `terraform plan` adds: ConfigureProvider, then for a resource
// PlanResourceChange of its creation.
func (rig *badInputRig) plan(t *testing.T, c badInput) []*tfprotov6.Diagnostic {
	t.Helper()
	p := newBadInputPlugin(t, c.env)
	ctx := callContext(t)
	provider := ""
	switch {
	case c.where == "provider":
		provider = c.hcl
	case c.stage == atSwitch:
		provider = rig.switchProvider
	case c.stage == atHost:
		provider = rig.hostProvider
	case c.stage == atCumulus:
		provider = rig.cumulusProvider
	}
	conf, err := p.srv.ConfigureProvider(ctx, &tfprotov6.ConfigureProviderRequest{TerraformVersion: "1.8.5", Config: p.providerConfig(t, provider)})
	if err != nil {
		t.Fatal(err)
	}
	if c.where == "provider" || hasError(conf.Diagnostics) {
		return conf.Diagnostics
	}
	typ := p.resourceType(t, c.where)
	cfg := p.resourceConfig(t, c.where, &c, rig.target(c.stage))
	prior := dynamicValue(t, typ, tftypes.NewValue(typ, nil))
	resp, err := p.srv.PlanResourceChange(ctx, &tfprotov6.PlanResourceChangeRequest{
		TypeName: c.where, PriorState: prior, ProposedNewState: cfg, Config: cfg,
	})
	if err != nil {
		t.Fatal(err)
	}
	return resp.Diagnostics
}

// checkFunction calls the row's function: an error for tos and pfc_headroom, an "error:"
// line in the result for ecn_pfc_findings.
func (rig *badInputRig) checkFunction(t *testing.T, c badInput) {
	t.Helper()
	p := newBadInputPlugin(t, nil)
	name, args, err := parseHCLCall(c.hcl)
	if err != nil {
		t.Fatal(err)
	}
	if name != c.where {
		t.Fatalf("the row calls %s, not %s", name, c.where)
	}
	short := strings.TrimPrefix(name, "provider::roce::")
	fn, ok := p.schema.Functions[short]
	if !ok {
		t.Fatalf("the provider has no function %s", short)
	}
	if len(args) != len(fn.Parameters) {
		t.Fatalf("%s takes %d arguments, the row gives %d", name, len(fn.Parameters), len(args))
	}
	if !slices.ContainsFunc(fn.Parameters, func(p *tfprotov6.FunctionParameter) bool { return p.Name == c.attr }) {
		t.Fatalf("%s has no parameter %s", name, c.attr)
	}
	var dvs []*tfprotov6.DynamicValue
	for i, a := range args {
		v, err := tfValue(a, fn.Parameters[i].Type)
		if err != nil {
			t.Fatalf("argument %d: %v", i+1, err)
		}
		dvs = append(dvs, dynamicValue(t, fn.Parameters[i].Type, v))
	}
	resp, err := p.srv.CallFunction(callContext(t), &tfprotov6.CallFunctionRequest{Name: short, Arguments: dvs})
	if err != nil {
		t.Fatal(err)
	}
	if name != ecnPFCFindings {
		if resp.Error == nil {
			t.Fatalf("%s returned no error", c.hcl)
		}
		if !strings.Contains(resp.Error.Text, c.detail) {
			t.Fatalf("%s failed with %q, want it to contain %q", c.hcl, resp.Error.Text, c.detail)
		}
		return
	}
	if resp.Error != nil {
		t.Fatalf("%s failed: %s", c.hcl, resp.Error.Text)
	}
	lines := findingLines(t, resp.Result)
	prefix := "error: " + c.names + ": " + c.summary + ": "
	if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, prefix) && strings.Contains(l, c.detail) }) {
		t.Fatalf("%s returned %q, want a line starting %q containing %q", c.hcl, lines, prefix, c.detail)
	}
}

func findingLines(t *testing.T, dv *tfprotov6.DynamicValue) []string {
	t.Helper()
	v, err := dv.Unmarshal(tftypes.List{ElementType: tftypes.String})
	if err != nil {
		t.Fatal(err)
	}
	var elems []tftypes.Value
	if err := v.As(&elems); err != nil {
		t.Fatal(err)
	}
	lines := make([]string, len(elems))
	for i, e := range elems {
		if err := e.As(&lines[i]); err != nil {
			t.Fatal(err)
		}
	}
	return lines
}

// requireDiag requires an error diagnostic on the row's attribute path with its summary and
// detail, and, when the error sits on another attribute, a text that names the row's.
func requireDiag(t *testing.T, c badInput, diags []*tfprotov6.Diagnostic) {
	t.Helper()
	for _, d := range diags {
		if d.Severity == tfprotov6.DiagnosticSeverityError && d.Summary == c.summary &&
			pathString(d.Attribute) == c.errorPath() && strings.Contains(d.Detail, c.detail) {
			if c.names != "" && !strings.Contains(d.Detail, c.names) {
				t.Fatalf("the error on %s does not name %s as %q: %s", c.errorPath(), c.attr, c.names, d.Detail)
			}
			return
		}
	}
	t.Fatalf("want an error %q on %s containing %q; got: %s", c.summary, c.errorPath(), c.detail, describeDiags(diags))
}

func hasError(diags []*tfprotov6.Diagnostic) bool {
	return slices.ContainsFunc(diags, func(d *tfprotov6.Diagnostic) bool { return d.Severity == tfprotov6.DiagnosticSeverityError })
}

func describeDiags(diags []*tfprotov6.Diagnostic) string {
	if len(diags) == 0 {
		return "no diagnostics"
	}
	var b strings.Builder
	for _, d := range diags {
		fmt.Fprintf(&b, "\n  %s on %q: %s: %s", d.Severity, pathString(d.Attribute), d.Summary, d.Detail)
	}
	return b.String()
}

// pathString writes an attribute path as the table does: ssh.bastion.port, ports[1].
func pathString(p *tftypes.AttributePath) string {
	if p == nil {
		return ""
	}
	var b strings.Builder
	for _, step := range p.Steps() {
		switch s := step.(type) {
		case tftypes.AttributeName:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(string(s))
		case tftypes.ElementKeyInt:
			fmt.Fprintf(&b, "[%d]", int64(s))
		case tftypes.ElementKeyString:
			fmt.Fprintf(&b, "[%q]", string(s))
		default:
			fmt.Fprintf(&b, "[%v]", s)
		}
	}
	return b.String()
}

// callContext bounds one protocol call, so a row that unexpectedly reaches for the network
// fails instead of hanging.
func callContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// badInputPlugin is a fresh provider server, as Terraform starts one per command, with its
// schemas.
type badInputPlugin struct {
	srv    tfprotov6.ProviderServer
	schema *tfprotov6.GetProviderSchemaResponse
}

func newBadInputPlugin(t *testing.T, env map[string]string) *badInputPlugin {
	t.Helper()
	srv, err := providerserver.NewProtocol6WithError(&roceProvider{version: "test", getenv: envOf(env)})()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := srv.GetProviderSchema(t.Context(), &tfprotov6.GetProviderSchemaRequest{})
	if err != nil || hasError(schema.Diagnostics) {
		t.Fatalf("GetProviderSchema: %v %s", err, describeDiags(schema.Diagnostics))
	}
	return &badInputPlugin{srv: srv, schema: schema}
}

// resourceType is the type of a resource's configuration, or of a data source's for the
// rows of a data source section.
func (p *badInputPlugin) resourceType(t *testing.T, name string) tftypes.Type {
	t.Helper()
	schemas, kind := p.schema.ResourceSchemas, "resource"
	if sectionOf(badInput{where: name}).data {
		schemas, kind = p.schema.DataSourceSchemas, "data source"
	}
	s, ok := schemas[name]
	if !ok {
		t.Fatalf("the provider has no %s %s", kind, name)
	}
	return s.ValueType()
}

func (p *badInputPlugin) providerConfig(t *testing.T, hcl string) *tfprotov6.DynamicValue {
	t.Helper()
	typ := p.schema.Provider.ValueType()
	attrs, err := parseHCLBody(hcl)
	if err != nil {
		t.Fatalf("provider settings %q: %v", hcl, err)
	}
	v, err := tfValue(attrs, typ)
	if err != nil {
		t.Fatalf("provider settings %q: %v", hcl, err)
	}
	return dynamicValue(t, typ, v)
}

// resourceConfig builds the configuration of a row: its section's base with the row's
// attributes replacing the base's, and the host or address set to target when given.
func (p *badInputPlugin) resourceConfig(t *testing.T, where string, c *badInput, target string) *tfprotov6.DynamicValue {
	t.Helper()
	typ := p.resourceType(t, where)
	s := sectionOf(badInput{where: where})
	attrs, err := parseHCLBody(s.base)
	if err != nil {
		t.Fatalf("base of %s: %v", where, err)
	}
	if c != nil {
		row, err := parseHCLBody(c.hcl)
		if err != nil {
			t.Fatalf("row %q: %v", c.hcl, err)
		}
		for k, v := range row {
			attrs[k] = v
		}
	}
	if target != "" {
		for _, k := range []string{"address", "host"} {
			if _, ok := attrs[k]; ok {
				attrs[k] = target
			}
		}
	}
	v, err := tfValue(attrs, typ)
	if err != nil {
		t.Fatalf("%s configuration: %v", where, err)
	}
	return dynamicValue(t, typ, v)
}

func dynamicValue(t *testing.T, typ tftypes.Type, v tftypes.Value) *tfprotov6.DynamicValue {
	t.Helper()
	dv, err := tfprotov6.NewDynamicValue(typ, v)
	if err != nil {
		t.Fatal(err)
	}
	return &dv
}

// hclNumber is a number literal as written.
type hclNumber string

// tfValue converts a value read by parseHCLBody to the Terraform type of an attribute;
// attributes an object leaves out are null, as in a configuration.
func tfValue(v any, typ tftypes.Type) (tftypes.Value, error) {
	if v == nil {
		return tftypes.NewValue(typ, nil), nil
	}
	if typ.Is(tftypes.DynamicPseudoType) {
		// A dynamic attribute takes the value with the type HCL gives it: a tuple for [...],
		// an object for {...}.
		typ = hclType(v)
	}
	switch tt := typ.(type) {
	case tftypes.Tuple:
		items, ok := v.([]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a tuple", v)
		}
		elems := make([]tftypes.Value, len(items))
		for i, item := range items {
			e, err := tfValue(item, tt.ElementTypes[i])
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			elems[i] = e
		}
		return tftypes.NewValue(typ, elems), nil
	case tftypes.List:
		items, ok := v.([]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a list", v)
		}
		elems := make([]tftypes.Value, len(items))
		for i, item := range items {
			e, err := tfValue(item, tt.ElementType)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("[%d]: %w", i, err)
			}
			elems[i] = e
		}
		return tftypes.NewValue(typ, elems), nil
	case tftypes.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not a map", v)
		}
		elems := map[string]tftypes.Value{}
		for k, item := range obj {
			e, err := tfValue(item, tt.ElementType)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("[%q]: %w", k, err)
			}
			elems[k] = e
		}
		return tftypes.NewValue(typ, elems), nil
	case tftypes.Object:
		obj, ok := v.(map[string]any)
		if !ok {
			return tftypes.Value{}, fmt.Errorf("%v is not an object", v)
		}
		for k := range obj {
			if _, known := tt.AttributeTypes[k]; !known {
				return tftypes.Value{}, fmt.Errorf("no attribute %q", k)
			}
		}
		vals := map[string]tftypes.Value{}
		for k, at := range tt.AttributeTypes {
			e, err := tfValue(obj[k], at)
			if err != nil {
				return tftypes.Value{}, fmt.Errorf("%s: %w", k, err)
			}
			vals[k] = e
		}
		return tftypes.NewValue(typ, vals), nil
	}
	switch {
	case typ.Is(tftypes.String):
		if s, ok := v.(string); ok {
			return tftypes.NewValue(typ, s), nil
		}
	case typ.Is(tftypes.Bool):
		if b, ok := v.(bool); ok {
			return tftypes.NewValue(typ, b), nil
		}
	case typ.Is(tftypes.Number):
		if n, ok := v.(hclNumber); ok {
			f, _, err := big.ParseFloat(string(n), 10, 512, big.ToNearestEven)
			if err != nil {
				return tftypes.Value{}, err
			}
			return tftypes.NewValue(typ, f), nil
		}
	}
	return tftypes.Value{}, fmt.Errorf("%v does not fit %s", v, typ)
}

// hclType is the type HCL gives a literal value.
func hclType(v any) tftypes.Type {
	switch v := v.(type) {
	case []any:
		elems := make([]tftypes.Type, len(v))
		for i, item := range v {
			elems[i] = hclType(item)
		}
		return tftypes.Tuple{ElementTypes: elems}
	case map[string]any:
		attrs := map[string]tftypes.Type{}
		for k, item := range v {
			attrs[k] = hclType(item)
		}
		return tftypes.Object{AttributeTypes: attrs}
	case bool:
		return tftypes.Bool
	case hclNumber:
		return tftypes.Number
	}
	return tftypes.String
}

// hclReader reads the HCL the table is written in: attribute assignments whose values are
// strings, numbers, booleans, null, lists and objects, and function calls with such
// arguments. Anything else (expressions, interpolation, blocks) is refused, so what the
// guide shows is exactly what the test ran.
type hclReader struct {
	src string
	pos int
}

// parseHCLBody reads assignments, one per line.
func parseHCLBody(src string) (map[string]any, error) {
	r := &hclReader{src: src}
	out := map[string]any{}
	for {
		r.skip(true)
		if r.eof() {
			return out, nil
		}
		name, err := r.ident()
		if err != nil {
			return nil, err
		}
		r.skip(false)
		if !r.accept('=') {
			return nil, r.errorf("want = after %s", name)
		}
		r.skip(false)
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, r.errorf("%s is set twice", name)
		}
		out[name] = v
		r.skip(false)
		if !r.eof() && !r.accept('\n') {
			return nil, r.errorf("want a new line after %s", name)
		}
	}
}

// parseHCLCall reads one function call.
func parseHCLCall(src string) (string, []any, error) {
	r := &hclReader{src: strings.TrimSpace(src)}
	open := strings.IndexByte(r.src, '(')
	if open < 0 {
		return "", nil, r.errorf("not a function call")
	}
	name := r.src[:open]
	r.pos = open + 1
	var args []any
	for {
		r.skip(true)
		if r.accept(')') {
			break
		}
		v, err := r.value()
		if err != nil {
			return "", nil, err
		}
		args = append(args, v)
		r.skip(true)
		if r.accept(')') {
			break
		}
		if !r.accept(',') {
			return "", nil, r.errorf("want , or ) after an argument")
		}
	}
	if !r.eof() {
		return "", nil, r.errorf("text after the call")
	}
	return name, args, nil
}

func (r *hclReader) eof() bool { return r.pos >= len(r.src) }

func (r *hclReader) peek() byte {
	if r.eof() {
		return 0
	}
	return r.src[r.pos]
}

func (r *hclReader) accept(c byte) bool {
	if r.peek() == c && !r.eof() {
		r.pos++
		return true
	}
	return false
}

// skip passes blanks, and new lines too when lines is true.
func (r *hclReader) skip(lines bool) {
	for !r.eof() {
		switch r.peek() {
		case ' ', '\t':
		case '\n':
			if !lines {
				return
			}
		default:
			return
		}
		r.pos++
	}
}

func (r *hclReader) errorf(format string, args ...any) error {
	return fmt.Errorf("%s at offset %d of %q", fmt.Sprintf(format, args...), r.pos, r.src)
}

func (r *hclReader) ident() (string, error) {
	start := r.pos
	for !r.eof() {
		c := r.peek()
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || (r.pos > start && (c >= '0' && c <= '9' || c == '-')) {
			r.pos++
			continue
		}
		break
	}
	if r.pos == start {
		return "", r.errorf("want a name")
	}
	return r.src[start:r.pos], nil
}

func (r *hclReader) value() (any, error) {
	switch c := r.peek(); {
	case c == '"':
		return r.str()
	case c == '[':
		return r.list()
	case c == '{':
		return r.object()
	case c == '-' || c >= '0' && c <= '9':
		return r.number()
	}
	word, err := r.ident()
	if err != nil {
		return nil, err
	}
	switch word {
	case "true":
		return true, nil
	case "false":
		return false, nil
	case "null":
		return nil, nil
	}
	return nil, r.errorf("%s is an expression, not a value", word)
}

func (r *hclReader) str() (string, error) {
	r.pos++ // the opening quote
	var b strings.Builder
	for {
		if r.eof() {
			return "", r.errorf("unterminated string")
		}
		c := r.src[r.pos]
		r.pos++
		switch c {
		case '"':
			return b.String(), nil
		case '\n':
			return "", r.errorf("new line in a string")
		case '$', '%':
			if r.peek() == '{' {
				return "", r.errorf("template sequences are not values")
			}
		case '\\':
			if r.eof() {
				return "", r.errorf("unterminated escape")
			}
			e := r.src[r.pos]
			r.pos++
			switch e {
			case '"', '\\':
				c = e
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			default:
				return "", r.errorf("escape \\%c is not supported", e)
			}
		}
		b.WriteByte(c)
	}
}

func (r *hclReader) number() (hclNumber, error) {
	start := r.pos
	r.accept('-')
	digits := func() int {
		n := 0
		for !r.eof() && r.peek() >= '0' && r.peek() <= '9' {
			r.pos++
			n++
		}
		return n
	}
	if digits() == 0 {
		return "", r.errorf("want a number")
	}
	if r.accept('.') && digits() == 0 {
		return "", r.errorf("want digits after the point")
	}
	if r.accept('e') || r.accept('E') {
		if !r.accept('+') {
			r.accept('-')
		}
		if digits() == 0 {
			return "", r.errorf("want an exponent")
		}
	}
	return hclNumber(r.src[start:r.pos]), nil
}

func (r *hclReader) list() ([]any, error) {
	r.pos++ // [
	out := []any{}
	for {
		r.skip(true)
		if r.accept(']') {
			return out, nil
		}
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		out = append(out, v)
		r.skip(true)
		if r.accept(']') {
			return out, nil
		}
		if !r.accept(',') {
			return nil, r.errorf("want , or ] in a list")
		}
	}
}

func (r *hclReader) object() (map[string]any, error) {
	r.pos++ // {
	out := map[string]any{}
	for {
		r.skip(true)
		if r.accept('}') {
			return out, nil
		}
		var key string
		var err error
		if r.peek() == '"' {
			key, err = r.str()
		} else {
			key, err = r.ident()
		}
		if err != nil {
			return nil, err
		}
		r.skip(false)
		if !r.accept('=') {
			return nil, r.errorf("want = after %s", key)
		}
		r.skip(false)
		v, err := r.value()
		if err != nil {
			return nil, err
		}
		if _, dup := out[key]; dup {
			return nil, r.errorf("%s is set twice", key)
		}
		out[key] = v
		r.skip(false)
		if !r.accept(',') && !r.accept('\n') && r.peek() != '}' {
			return nil, r.errorf("want , or } after %s", key)
		}
	}
}

func TestBadInputHCLReader(t *testing.T) {
	for _, src := range []string{
		`ports = [for i in range(4) : "Ethernet${i * 4}"]`,
		`name = "${var.name}"`,
		`host = var.host`,
		`ecn = { min = 1 max = 2 }`,
		`a = 1 b = 2`,
		`a = 1
a = 2`,
	} {
		if _, err := parseHCLBody(src); err == nil {
			t.Errorf("parseHCLBody(%q) accepted it", src)
		}
	}
	got, err := parseHCLBody("a = \"x\\\"y\"\nb = [1, -2.5e3, true, null]\nc = { d = { e = \"f\" }, \"G_H\" = false }")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a": `x"y`,
		"b": []any{hclNumber("1"), hclNumber("-2.5e3"), true, nil},
		"c": map[string]any{"d": map[string]any{"e": "f"}, "G_H": false},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("parseHCLBody (-want +got):\n%s", diff)
	}
}

// badInputIntro opens the guide.
const badInputIntro = "---\n" +
	"page_title: \"Bad input: what each attribute refuses\"\n" +
	"subcategory: \"Guides\"\n" +
	"description: |-\n" +
	"  Every validated attribute, an invalid value for it, and the error you get before anything touches a switch or host.\n" +
	"---\n" +
	"\n" +
	"# Bad input: what each attribute refuses\n" +
	"\n" +
	"The provider refuses bad input before anything touches a switch or host. `terraform validate`\n" +
	"runs the checks that need only a resource's own configuration; `terraform plan`, which validates\n" +
	"first, adds the provider block (Terraform configures the provider when it plans) and the checks a\n" +
	"resource makes while planning. A few checks need the device itself and run when the plan reads\n" +
	"it: ports the switch lacks, the speeds it reports and the lossless buffer pool\n" +
	"(`roce_switch_qos`); `devices` (`roce_nic_dcqcn`). When the device cannot be reached, the plan\n" +
	"only warns, and the same check refuses the apply before anything is written.\n" +
	"\n" +
	"This page is generated from the table in `internal/provider/badinput_test.go`, and that test\n" +
	"runs every row through the provider: each value must be refused with the error shown. **Where**\n" +
	"is the resource, provider block or function and the command that shows the error; **Error** is\n" +
	"the summary Terraform prints, then the key phrase of the detail. When Terraform points the error\n" +
	"at another attribute than the one set, the row says so. The data source `roce_host_facts` checks\n" +
	"nothing before it reads the host, so it has no rows.\n"

// badInputPage renders the guide from the table.
func badInputPage() string {
	var b strings.Builder
	b.WriteString(badInputIntro)
	for _, s := range badInputSections {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n", s.title, s.intro)
		if s.base != "" {
			block := "resource"
			if s.data {
				block = "data"
			}
			fmt.Fprintf(&b, "\n```terraform\n%s %q \"example\" {\n", block, s.where)
			for _, line := range strings.Split(s.base, "\n") {
				b.WriteString("  " + line + "\n")
			}
			b.WriteString("}\n```\n")
		}
		b.WriteString("\n| Where | Attribute | Invalid value | Error |\n|---|---|---|---|\n")
		for _, c := range badInputs {
			if sectionOf(c).where == s.where {
				fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(c.whereCell()), cell("`"+c.attr+"`"), cell(c.valueCell()), cell(c.errorCell()))
			}
		}
	}
	return b.String()
}

func (c badInput) whereCell() string {
	switch {
	case c.isFunction():
		return "`" + c.where + "`, validate"
	case c.where == "provider":
		return "`provider \"roce\"`, " + c.stage.String()
	case sectionOf(c).data:
		return "`data \"" + c.where + "\"`, " + c.stage.String()
	}
	return "`" + c.where + "`, " + c.stage.String()
}

func (c badInput) valueCell() string {
	var parts []string
	for _, line := range strings.Split(c.hcl, "\n") {
		if line != "" {
			parts = append(parts, "`"+line+"`")
		}
	}
	keys := make([]string, 0, len(c.env))
	for k := range c.env {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		parts = append(parts, "`"+k+"="+c.env[k]+"` in the environment")
	}
	return strings.Join(parts, "<br>")
}

func (c badInput) errorCell() string {
	switch {
	case c.where == ecnPFCFindings:
		return "returns `error: " + c.names + ": " + c.summary + ": …`: " + html(c.detail)
	case c.isFunction():
		return "**Error in function call**: " + html(c.detail)
	}
	s := "**" + c.summary + "**: " + html(c.detail)
	if c.at != "" {
		s += " (Terraform points at `" + c.at + "`)"
	}
	return s
}

// html escapes text outside code spans that Markdown would read as an HTML tag (Ethernet<N>).
func html(s string) string {
	return strings.ReplaceAll(s, "<", "&lt;")
}

// cell escapes what would end a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// TestBadInputGuideHasNoTemplateActions keeps the generated guide free of text that
// tfplugindocs, which renders it as a Go template, would read as an action.
func TestBadInputGuideHasNoTemplateActions(t *testing.T) {
	page := badInputPage()
	if strings.Contains(page, "{{") || strings.Contains(page, "}}") {
		t.Fatal("the guide contains {{ or }}, which tfplugindocs would read as a template action")
	}
}
