# modules.sh - kernel module emulation shared by modprobe, rmmod, lsmod and
# modinfo; sourced after common.sh. Loaded modules are listed in load order
# in /run/twin/modules; modules.db says what exists and what needs what.
TWIN_MODDB=$TWIN_LIB/modules.db
TWIN_MODS=$TWIN_RUN/modules

# mod_name NAME prints the module name with dashes made underscores.
mod_name() { echo "$1" | tr - _; }

# mod_known NAME succeeds for a module in modules.db that exists with the
# installed stack (mlx_compat only with OFED).
mod_known() {
	if [ "$1" = mlx_compat ] && ! twin_ofed_installed; then return 1; fi
	grep -q "^$1 " "$TWIN_MODDB"
}

# mod_deps NAME prints the modules NAME needs, one per line.
mod_deps() {
	awk -v m="$1" '$1 == m && $3 != "-" { n = split($3, d, ","); for (i = 1; i <= n; i++) print d[i] }' "$TWIN_MODDB"
}

# mod_closure NAME prints NAME's dependencies that exist (transitively,
# each once) in load order, then NAME.
mod_closure() {
	ofed=0
	twin_ofed_installed && ofed=1
	awk -v m="$1" -v ofed="$ofed" '
	function visit(x,    n, d, i) {
		if (seen[x]++) return
		n = split(deps[x], d, ",")
		for (i = 1; i <= n; i++) if (d[i] != "-" && (d[i] in deps) && (d[i] != "mlx_compat" || ofed)) visit(d[i])
		print x
	}
	!/^#/ { deps[$1] = $3 }
	END { visit(m) }' "$TWIN_MODDB"
}

mod_loaded() { grep -qx "$1" "$TWIN_MODS" 2>/dev/null; }

# mod_holders NAME prints the loaded modules that need NAME, newest first,
# comma-separated.
mod_holders() {
	[ -r "$TWIN_MODS" ] || return 0
	awk -v m="$1" -v db="$TWIN_MODDB" '
	BEGIN { while ((getline l < db) > 0) { split(l, f, " "); deps[f[1]] = "," f[3] "," } }
	{ order[n++] = $1 }
	END {
		for (i = n - 1; i >= 0; i--) if (index(deps[order[i]], "," m ",")) { s = s (c++ ? "," : "") order[i] }
		print s
	}' "$TWIN_MODS"
}

# mod_add NAME records NAME as loaded and creates /sys/module/NAME.
mod_add() {
	mkdir -p "$TWIN_RUN" "$SYS/module/$1"
	echo "$1" >>"$TWIN_MODS"
	echo live >"$SYS/module/$1/initstate"
}

# mod_del NAME forgets NAME and its /sys/module entry.
mod_del() {
	grep -vx "$1" "$TWIN_MODS" >"$TWIN_MODS.tmp" || true
	mv "$TWIN_MODS.tmp" "$TWIN_MODS"
	rm -rf "$SYS/module/$1"
	if [ "$1" = nvidia_peermem ]; then
		rm -rf "$SYS/kernel/mm/memory_peers/nv_mem" "$SYS/kernel/mm/memory_peers/nv_mem_nc"
	fi
}

# peermem_check decides whether nvidia_peermem can load: it needs OFED's
# peer-memory API and an NVIDIA driver built against the installed OFED
# (recorded in /var/lib/twin/nvidia-built-against by the profile and by
# "dkms autoinstall"). On failure it logs what the kernel logs and returns 1.
peermem_check() {
	ofed=$(twin_ofed_version)
	built=$(twin_cat "$R/var/lib/twin/nvidia-built-against") || built=$ofed
	if [ "$ofed" = inbox ]; then
		return 1
	fi
	if [ "$built" != "$ofed" ]; then
		twin_kmsg "nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client"
		twin_kmsg "nvidia_peermem: Unknown symbol ib_register_peer_memory_client (err -22)"
		return 1
	fi
	return 0
}

# peermem_loaded registers the peer-memory client as the module does.
peermem_loaded() {
	ver=${TWIN_DRIVER_VERSION:-}
	mkdir -p "$SYS/kernel/mm/memory_peers/nv_mem" "$SYS/module/nvidia_peermem/parameters"
	echo "$ver" >"$SYS/kernel/mm/memory_peers/nv_mem/version"
	echo "$ver" >"$SYS/module/nvidia_peermem/version"
	echo "${1:-0}" >"$SYS/module/nvidia_peermem/parameters/peerdirect_support"
}
