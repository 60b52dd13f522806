// Package hostprofile is the hardware and software model of a host twin: a
// stand-in for a ConnectX-7/8 + 8-GPU Linux node that the provider's SSH
// bootstrapper configures in tests, the demo and users' CI.
//
// A twin host's root is an overlayfs of three layers, top to bottom:
//
//	per-host layer  RenderHost: fake /sys, /etc/twin, preinstalled OFED, /run/twin
//	base layer      BuildBase: stand-in tools, /srv/twin-apt repository
//	/               the machine's own root
//
// Package hosttwin mounts that overlay in a private mount namespace, runs a
// real sshd chrooted into it and calls ResetRuntime plus BootScript for a
// reboot. Nothing here mounts or starts anything.
//
// The fake /sys is plain files laid out like the kernel's: netdevs with the
// OFED ecn/ DCQCN tree (ConnectX firmware defaults, per NVIDIA's DCQCN
// parameter documentation and "mlxconfig q" dumps; 0444 on VFs), RDMA devices with GID tables (unused slots' attribute files cannot
// be opened, as on a real kernel), debugfs cc_params (unopenable under
// lockdown), /sys/kernel/security/lockdown and /sys/module. The stand-in
// tools in /usr/local/sbin read that tree and print the real tools' output
// formats. The ones a fact gather runs on every host — show_gids,
// ibv_devinfo, ibdev2netdev, nvidia-smi, lsmod, cma_roce_tos, mlnx_qos,
// ethtool and mlxconfig — are one static Go multi-call binary (package
// internal/twin/standin, command tools/twin-standin) in
// /usr/local/lib/twin/standin, each tool a symlink to it: as scripts they
// forked dozens of awk, ls and sort processes per call (~1.3 CPU-s per
// gather on a small machine). BuildBase builds the binary with "go build"
// from the module source this package was compiled from, once per process,
// or installs the file $ROCE_TWIN_STANDIN names. The others — modprobe,
// rmmod, modinfo, dmesg, dkms, systemctl, journalctl, udevadm, mpirun,
// all_reduce_perf and twin-boot, which only applies and jobs run — are
// POSIX sh scripts.
// Profile-specific data comes from /etc/twin/profile.env, so one base layer
// serves every profile. Every path
// of a stand-in is prefixed with $TWIN_ROOT, empty inside the twin; tests set
// it to run the stand-ins from outside against a rendered tree.
// TestStandInOutputGolden pins every stand-in's output per profile in
// testdata/standins, so a stand-in made cheaper prints the same bytes; a
// change of behaviour shows there as a reviewed diff.
// Read-only calls write nothing and setters serialise (mlnx_qos under an
// flock(2) of /run/twin/qos.lock, which flock(1) in a shell script takes
// too), as a gather may run beside an apply on the same host.
//
// Behaviour a bootstrapper can rely on:
//
//   - OFED tools (mlnx_qos, show_gids, ibdev2netdev, cma_roce_tos) answer
//     "command not found" (exit 127) unless /usr/bin/ofed_info exists, i.e.
//     an OFED metapackage is installed; installing one from the twin
//     repository makes them appear, and the ecn/ trees appear at the next
//     reboot.
//   - "modprobe nvidia-peermem" fails with "Invalid argument" (exit 1) on an
//     inbox stack, and also, logging the symbol-version lines to dmesg, when
//     the NVIDIA driver was built against another OFED than the installed
//     one (profile peermem-wrong-order, or after an OFED install or
//     upgrade); "dkms autoinstall" rebuilds it against the installed OFED.
//   - mlxconfig set stores next-boot NV configuration; ResetRuntime applies
//     it (DCQCN values, ROCE_CC_PRIO_MASK, QOS_TRUST_STATE).
//   - systemctl runs Exec* lines of units in /etc/systemd/system with sh;
//     twin-boot loads /etc/modules-load.d and starts enabled units.
//
// Mounting a twin (what hosttwin must do; TestOverlayChroot does it):
//
//   - Keep the layers, upperdir and workdir on a tmpfs (or any filesystem
//     other than the one holding "/"): with "/" as a lowerdir, overlayfs
//     refuses other layers on the same filesystem ("overlapping lowerdir
//     path", ELOOP). On tmpfs RenderHost takes ~25 ms, ResetRuntime ~6 ms.
//   - As root: mount -t overlay overlay -o
//     lowerdir=<host>:<base>:/,upperdir=<upper>,workdir=<work> <merged>.
//     RenderHost marks /etc/apt/sources.list.d, /etc/apt/preferences.d,
//     /etc/systemd/system and /etc/modules-load.d opaque with
//     trusted.overlay.opaque (so no "userxattr" mounts), and replaces
//     /etc/apt/sources.list and /etc/modules, so the machine's apt
//     sources, pins, units and module lists stay out of the twin.
//   - Bind-mount /dev onto <merged>/dev and mount proc on <merged>/proc
//     (apt and dpkg need them). Do not mount sysfs on <merged>/sys, nor a
//     tmpfs on /run or /run/twin (or call ResetRuntime after mounting it).
//   - /proc/driver/nvidia: bind-mount <merged>/run/twin/proc-driver-nvidia
//     (ProcDriverNVIDIA) onto <merged>/proc/driver/nvidia; without an NVIDIA
//     driver on the machine that directory does not exist, so mount a tmpfs
//     on <merged>/proc/driver and create nvidia in it first.
//   - Inside the twin TWIN_ROOT must be unset, and /usr/local/sbin
//     (StandInDir) must come first on PATH for sessions, sudo (Debian's
//     secure_path does) and systemd units (the stand-in systemctl does).
//   - Reboot: ResetRuntime("/proc/<pid>/root", ...) for a process chrooted
//     in the twin, then run BootScript inside it. The upper directory is
//     the host's disk: keep it to keep /etc and /var across reboots.
//
// RHEL profiles (Family FamilyRHEL: rocky9...) are Rocky Linux 9.6 hosts:
// RenderHost builds their RPMs with the machine's rpmbuild (cached by
// content in ~/.cache/roce-twin/rpms) and installs rocky-release, the OFED
// stack (or Rocky's rdma-core) and libnccl into the layer with the
// machine's rpm (database in /var/lib/rpm, set by /etc/rpm/macros.dbpath);
// BuildBase adds dnf repositories of every OFED version under /srv/twin-dnf,
// indexed by createrepo_c. dnf is the machine's (dnf 4.14 on Debian 12) with
// Rocky's dnf.conf and the versionlock plugin. Every profile hides the other
// family's package tools with overlay whiteouts: no apt or dpkg on Rocky, no
// dnf or rpm on Debian.
//
// Known differences from a real host: sysfs files read back what was
// written (the kernel would normalise "0x10" or print "Global tclass=106");
// root can write the 0444 ecn/ files of a VF; udev rules never run; unit
// ordering (After=) is ignored; the kernel version is the machine's. The
// twin's RPMs are unsigned (its repositories need gpgcheck=0), its doca-ofed
// RPM is versioned after the OFED release rather than the DOCA one, and
// kmod-mlnx-ofa_kernel is an ordinary package, not an install-only kABI one.
package hostprofile
