package hosttwin

// Host is how a client reaches one twin host. Its JSON form is an entry of
// endpoints.json.
type Host struct {
	// Name is the host's name; it is also its /etc/hostname.
	Name string `json:"name"`
	// Address is "127.0.0.1:<port>".
	Address string `json:"address"`
	// Port is the loopback port sshd listens on.
	Port int `json:"port"`
	// User is the login user, always "root".
	User string `json:"user"`
	// PrivateKeyFile is the user's ed25519 private key (OpenSSH format,
	// mode 0600) that sshd accepts for User.
	PrivateKeyFile string `json:"private_key_file"`
	// KnownHostsFile holds the host's "[127.0.0.1]:<port>" host key entry.
	KnownHostsFile string `json:"known_hosts_file"`
	// HostPublicKey is sshd's current host key in authorized_keys format.
	// After RotateHostKey it no longer matches KnownHostsFile.
	HostPublicKey string `json:"host_public_key"`
	// Profile is the hostprofile profile the host was rendered from.
	Profile string `json:"profile"`
}
