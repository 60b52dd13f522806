// Package ssh is the SSH transport of the host bootstrapper: it runs commands
// and moves files on ConnectX GPU hosts over OpenSSH.
//
// A [Pool] holds one SSH connection per host address for the whole provider
// process. Connections are dialled lazily, optionally through a chain of jump
// hosts, with host keys verified by default (known_hosts, including hashed
// entries and @cert-authority lines, or a pinned key). Many callers share a
// connection; the number of concurrent sessions on it is kept at or below
// [Config.MaxSessions] so that sshd's own MaxSessions limit is never hit.
// Connection errors are retried with backoff before a command starts; a
// command that was started is never run again.
//
// A [Client] is the view of the pool for one host. [Client.Run] runs a
// command and returns its output, or a [*CommandError] that keeps the exit
// status and the tail of standard error. sudo is a decorator on the command
// line, built through package shell; a sudo password travels on standard
// input, never on the command line. [Client.WriteFile] replaces a file
// atomically (temporary file in the same directory, then rename), through
// SFTP or, for root-owned targets, through sudo.
package ssh
