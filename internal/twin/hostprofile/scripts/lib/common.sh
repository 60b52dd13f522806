# common.sh - sourced by every host-twin stand-in; not a command.
#
# R is the twin's root as the calling process sees it: empty inside the twin
# (chrooted), the rendered root when TWIN_ROOT is set, which is how tests run
# the stand-ins from outside. Every path below goes through R.
R=${TWIN_ROOT:-}
SYS=$R/sys
TWIN_ETC=$R/etc/twin
TWIN_RUN=$R/run/twin
TWIN_LIB=$R/usr/local/lib/twin
if [ -r "$TWIN_ETC/profile.env" ]; then
	. "$TWIN_ETC/profile.env"
fi

# twin_hold lets a test act on the host (kill its sshd, cut its link) while a
# command is in flight: when $TWIN_RUN/hold/<tool> exists, the stand-in says so
# in <tool>.held and waits, at most 60 s, until the test removes the first file.
twin_hold() {
	h=$TWIN_RUN/hold/$1
	[ -e "$h" ] || return 0
	: >"$h.held"
	i=0
	while [ -e "$h" ] && [ "$i" -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}

# twin_ofed_installed succeeds when an OFED stack (DOCA or MLNX) is installed:
# its metapackage ships /usr/bin/ofed_info.
twin_ofed_installed() { [ -x "$R/usr/bin/ofed_info" ]; }

# twin_ofed_version prints the installed OFED version, or "inbox".
twin_ofed_version() {
	if twin_ofed_installed; then
		"$R/usr/bin/ofed_info" -n 2>/dev/null || echo inbox
	else
		echo inbox
	fi
}

# twin_require_ofed NAME exits like a shell that cannot find NAME when no OFED
# stack is installed (mlnx-tools and ofed-scripts ship only with OFED).
twin_require_ofed() {
	if ! twin_ofed_installed; then
		echo "$1: command not found" >&2
		exit 127
	fi
}

# twin_rdma_devs prints the RDMA devices, mlx5_0 before mlx5_10.
twin_rdma_devs() {
	for twin_d in "$SYS/class/infiniband/"*; do
		[ -e "$twin_d" ] && echo "${twin_d##*/}"
	done | sort -t_ -k2 -n
}

# twin_netdev DEV prints the netdev of RDMA device DEV.
twin_netdev() {
	for twin_n in "$SYS/class/infiniband/$1/device/net/"*; do
		if [ -e "$twin_n" ]; then
			echo "${twin_n##*/}"
			return 0
		fi
	done
	return 1
}

# twin_bdf DEV prints the PCI address of RDMA device DEV.
twin_bdf() {
	twin_l=$(readlink "$SYS/class/infiniband/$1/device") || return 1
	echo "${twin_l##*/}"
}

# twin_cat FILE prints the first line of FILE, or nothing when unreadable.
twin_cat() {
	{ IFS= read -r twin_line <"$1"; } 2>/dev/null || return 1
	printf '%s\n' "$twin_line"
}

# twin_read VAR FILE sets VAR to the first line of FILE, or fails when it is
# unreadable: twin_cat without the subshell a $(...) costs.
twin_read() { { IFS= read -r "$1" <"$2"; } 2>/dev/null; }

# twin_kmsg MSG appends a kernel log line with seconds since the twin booted.
twin_kmsg() {
	mkdir -p "$TWIN_RUN"
	twin_now=$(date +%s)
	twin_boot=$(twin_cat "$TWIN_RUN/boot-time" || echo "$twin_now")
	printf '[%5d.%s] %s\n' $((twin_now - twin_boot)) "$(date +%6N)" "$*" >>"$TWIN_RUN/kmsg"
}

# twin_journal TAG MSG appends a journal line as journalctl prints it.
twin_journal() {
	mkdir -p "$TWIN_RUN"
	twin_tag=$1
	shift
	printf '%s %s %s: %s\n' "$(date '+%b %d %H:%M:%S')" "${TWIN_HOST:-twin}" "$twin_tag" "$*" >>"$TWIN_RUN/journal"
}
