// Package hosttwin runs host twins: stand-ins for ConnectX/GPU nodes that a
// Terraform provider's SSH bootstrapper can be tested against without
// hardware.
//
// Each twin host is a real OpenSSH sshd, not an imitation of one:
//
//   - it runs in its own mount namespace, chrooted into an overlay whose
//     lower layers are the host's layer and the shared base layer that
//     package hostprofile renders (fake /sys, stand-in tools, a local apt
//     repository), a mask layer that hides the machine's /root, /tmp and
//     /var/tmp, and the machine's own root, so apt-get, bash and coreutils
//     are the real ones while every write stays in the twin's upper
//     directory;
//   - the namespace gets a fresh /proc, the machine's /dev, and the
//     profile's fake /proc/driver/nvidia bound over the real one;
//   - sshd listens on a loopback port with a generated ed25519 host key and
//     accepts one generated user key for root; each host has a known_hosts
//     file with its real "[127.0.0.1]:port" entry, so clients verify host
//     keys as they would in production.
//
// The process that a Fleet starts for a host goes through /bin/sh (the
// mounts), chroot and sshd by exec, so its PID is sshd's and
// /proc/<pid>/root is the twin's root as seen from outside. The mount
// steps are a shell script rather than Go code because they must run in
// the child between unshare and exec, which Go can only do by re-executing
// its own binary: every program using this package (test binaries,
// roce-twin) would need a hook in main. All mounts live in the twin's
// namespace only and vanish with its last process: stopping a twin means
// killing every process in that namespace, found by the namespace and
// confirmed by the twin's root overlay mount, whose source name is random
// per launch (namespace numbers are reused).
//
// The upper directory is on disk in the state directory, so what the
// bootstrapper wrote survives KillSSHD/RestartSSHD and Reboot, as on a real
// host. A Fleet records what it started in the state directory
// (fleet.json), so another process can Attach to it and Stop it.
//
// Twins need Linux, root (mount namespaces, overlayfs, chroot, trusted
// xattrs on the state directory's filesystem), /usr/sbin/sshd (package
// openssh-server), mount, chroot and nsenter; Start says which is missing. They are isolation for tests, not a security boundary:
// the twin's root user can still see the machine's processes.
package hosttwin
