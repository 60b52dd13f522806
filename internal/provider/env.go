package provider

import "os"

// Environment variables that stand in for unset provider attributes.
const (
	envSSHUser                  = "ROCE_SSH_USER"
	envSSHPrivateKey            = "ROCE_SSH_PRIVATE_KEY"
	envSSHPrivateKeyFile        = "ROCE_SSH_PRIVATE_KEY_FILE"
	envSSHPrivateKeyPassphrase  = "ROCE_SSH_PRIVATE_KEY_PASSPHRASE"
	envSSHCertificateFile       = "ROCE_SSH_CERTIFICATE_FILE"
	envSSHPassword              = "ROCE_SSH_PASSWORD"
	envSSHUseAgent              = "ROCE_SSH_USE_AGENT"
	envSSHKnownHostsFile        = "ROCE_SSH_KNOWN_HOSTS_FILE"
	envSSHHostKey               = "ROCE_SSH_HOST_KEY"
	envSSHInsecure              = "ROCE_SSH_INSECURE_IGNORE_HOST_KEY"
	envSSHPort                  = "ROCE_SSH_PORT"
	envSSHConnectTimeout        = "ROCE_SSH_CONNECT_TIMEOUT"
	envSSHKeepAliveInterval     = "ROCE_SSH_KEEPALIVE_INTERVAL"
	envSSHMaxSessions           = "ROCE_SSH_MAX_SESSIONS"
	envSSHBastionHost           = "ROCE_SSH_BASTION_HOST"
	envSSHBastionPort           = "ROCE_SSH_BASTION_PORT"
	envSSHBastionUser           = "ROCE_SSH_BASTION_USER"
	envSSHBastionPrivateKey     = "ROCE_SSH_BASTION_PRIVATE_KEY"
	envSSHBastionPrivateKeyFile = "ROCE_SSH_BASTION_PRIVATE_KEY_FILE"
	envSSHBastionHostKey        = "ROCE_SSH_BASTION_HOST_KEY"
	envSSHBecome                = "ROCE_SSH_BECOME"
	envSSHBecomeUser            = "ROCE_SSH_BECOME_USER"
	envSSHBecomePassword        = "ROCE_SSH_BECOME_PASSWORD"

	envGNMIUsername   = "ROCE_GNMI_USERNAME"
	envGNMIPassword   = "ROCE_GNMI_PASSWORD"
	envGNMICAFile     = "ROCE_GNMI_CA_FILE"
	envGNMICertFile   = "ROCE_GNMI_CERT_FILE"
	envGNMIKeyFile    = "ROCE_GNMI_KEY_FILE"
	envGNMIServerName = "ROCE_GNMI_SERVER_NAME"
	envGNMIInsecure   = "ROCE_GNMI_INSECURE"
	envGNMICertPin    = "ROCE_GNMI_CERTIFICATE_PIN"
	envGNMIPort       = "ROCE_GNMI_PORT"
	envGNMISetTimeout = "ROCE_GNMI_SET_TIMEOUT"
	envGNMIRetries    = "ROCE_GNMI_RETRIES"

	envNVUEUsername     = "ROCE_NVUE_USERNAME"
	envNVUEPassword     = "ROCE_NVUE_PASSWORD"
	envNVUECAFile       = "ROCE_NVUE_CA_FILE"
	envNVUEServerName   = "ROCE_NVUE_SERVER_NAME"
	envNVUEInsecure     = "ROCE_NVUE_INSECURE"
	envNVUECertPin      = "ROCE_NVUE_CERTIFICATE_PIN"
	envNVUEPort         = "ROCE_NVUE_PORT"
	envNVUEApplyTimeout = "ROCE_NVUE_APPLY_TIMEOUT"
	envNVUEAssumeYes    = "ROCE_NVUE_ASSUME_YES"

	// envAgentSocket is OpenSSH's own variable, read to decide whether an agent is there.
	envAgentSocket = "SSH_AUTH_SOCK"
)

func osGetenv(key string) string { return os.Getenv(key) }
