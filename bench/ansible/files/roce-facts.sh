# roce-facts.sh: everything site.yml decides on, read in one remote command and printed as one
# JSON object (the provider's gather script reads the same sources). Read-only; it is the body
# of an ansible.builtin.shell task, so it is POSIX sh.
set -u

# str VALUE prints VALUE as a JSON string, and stops the script on characters that would need
# escaping (netdev and RDMA device names, versions and package states never have them).
str() {
	case $1 in *[!A-Za-z0-9_.:@+~\ -]*)
		echo "roce-facts: unexpected characters in \"$1\"" >&2
		exit 1
		;;
	esac
	printf '"%s"' "$1"
}

# bool PATH prints true when PATH exists.
bool() { if [ -e "$1" ]; then printf true; else printf false; fi; }

# pkg NAME prints "<version> <dpkg status abbreviation>" of a known package, or nothing.
pkg() { dpkg-query -W -f='${Version} ${db:Status-Abbrev}' "$1" 2>/dev/null || true; }

nvidia=none nvidia_version=
if [ -r /proc/driver/nvidia/version ]; then
	line=$(grep -m1 '^NVRM version:' /proc/driver/nvidia/version || true)
	case $line in
	*"Open Kernel Module"*) nvidia=open ;;
	*) nvidia=proprietary ;;
	esac
	nvidia_version=$(printf '%s\n' "$line" | grep -oE '[0-9]+(\.[0-9]+)+' | head -n 1 || true)
fi
ofed_s=$(ofed_info -s 2>/dev/null | head -n 1 || true)
ofed_n=$(ofed_info -n 2>/dev/null | head -n 1 || true)

printf '{"kernel":'; str "$(uname -r)"
printf ',"nvidia":'; str "$nvidia"
printf ',"nvidia_version":'; str "$nvidia_version"
printf ',"ofed_info":'; str "${ofed_s%:}"
printf ',"ofed_version":'; str "$ofed_n"
# The packages site.yml pins ($ROCE_PACKAGES, names only) and both OFED metapackages.
printf ',"packages":{'
sep=
for p in ${ROCE_PACKAGES:-} doca-ofed mlnx-ofed-all; do
	printf '%s' "$sep"; str "$p"; printf ':'; str "$(pkg "$p")"
	sep=,
done
printf '}'
printf ',"peermem_loaded":'; bool /sys/module/nvidia_peermem
printf ',"peermem_registered":'; bool /sys/kernel/mm/memory_peers/nv_mem/version

# The ConnectX netdevs: Mellanox PCI functions (vendor 0x15b3) whose driver, where sysfs shows
# one, is mlx5_core; each with its RDMA device, link layer, VF flag and OFED ecn/ tree.
printf ',"netdevs":['
sep=
for d in /sys/class/net/*; do
	v=
	{ read -r v <"$d/device/vendor"; } 2>/dev/null
	[ "$v" = 0x15b3 ] || continue
	if [ -e "$d/device/driver" ]; then
		dr=$(cd -P "$d/device/driver" 2>/dev/null && pwd) || continue
		[ "${dr##*/}" = mlx5_core ] || continue
	fi
	ib=
	for r in "$d"/device/infiniband/*; do
		if [ -e "$r" ]; then ib=${r##*/}; fi
		break
	done
	ll=
	if [ -n "$ib" ]; then { read -r ll <"/sys/class/infiniband/$ib/ports/1/link_layer"; } 2>/dev/null; fi
	printf '%s{"name":' "$sep"; str "${d##*/}"
	printf ',"rdma":'; str "$ib"
	printf ',"link_layer":'; str "$ll"
	printf ',"vf":'; bool "$d/device/physfn"
	printf ',"ecn":'; bool "$d/ecn"
	printf '}'
	sep=,
done
printf ']}\n'
