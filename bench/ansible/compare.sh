#!/usr/bin/env bash
# compare.sh UPPER_A UPPER_B: compares what two tools left on two host twins, one converged by
# Terraform and one by site.yml, and prints every difference in the files that carry the
# configuration. Exit status: 0 same, 1 different, 2 usage or read error.
#
# UPPER_x is a host twin's overlay upper directory, <state-dir>/hosts/hosts/<name>/upper for
# `roce-twin up --state-dir <state-dir>`: everything the host's processes wrote. A path that one
# tool wrote and the other did not is compared with what the other host shows there, which is its
# lower layers (see internal/twin/hosttwin/launch.go: <host>/layer, <fleet>/base, <fleet>/mask,
# then /), so a value one tool rewrote unchanged is not a difference. Run it while the fleet's
# state directory still exists; for upper directories outside that layout, set LOWERS_A and
# LOWERS_B to colon-separated lower directories (top first), or leave them empty to treat paths
# not in an upper directory as absent.
#
# Per path it compares the type, the permission bits, the owner and group, a file's content (a
# unified diff for text) and a symlink's target. It ignores timestamps, and these paths, which
# differ between any two runs or between the two tools' transports without being configuration:
#   run/sshd.pid, run/sshd/        the twin's sshd
#   root/.ansible/, root/.cache/   Ansible's remote temp directory
#   etc/ssh/, root/.ssh/           SSH
#   tmp/, var/tmp/                 temporary files
#   var/log/                       logs: wtmp and lastlog (Ansible asks for a tty, so sshd records
#                                  logins), apt and dpkg logs
#   var/cache/apt/                 apt's binary caches (pkgcache.bin, srcpkgcache.bin), rebuilt by
#                                  whichever apt front end opens the cache
#   var/cache/debconf/*-old        debconf's copy of its database before the last write
#   var/lib/apt/lists/             downloaded package indexes, their lock and partial/
#   var/lib/dpkg/lock*, var/lib/dpkg/triggers/Lock, var/lib/dpkg/updates/
#                                  dpkg's lock files and journal (empty once dpkg is done)
#   var/lib/dpkg/status-old        dpkg's copy of the status before its last write: how many
#                                  writes each tool makes, not the package state (status is
#                                  compared: versions, holds)
#   run/twin/kmsg, run/twin/journal, run/twin/systemd/.*
#                                  the twin's kernel log and journal (timestamped) and the
#                                  systemctl stand-in's scratch files
#   __pycache__/, *.pyc            Python byte code
set -euo pipefail

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -d "$2" ]; then
	echo "usage: $0 UPPER_A UPPER_B (two host twins' overlay upper directories)" >&2
	exit 2
fi

# lowers UPPER prints the lower layers of a roce-twin host, colon-separated, top first.
lowers() {
	local host fleet
	host=$(cd "$1/.." && pwd)
	fleet=$(cd "$host/../.." && pwd)
	if [ -d "$host/layer" ] && [ -d "$fleet/base" ] && [ -d "$fleet/mask" ]; then
		echo "$host/layer:$fleet/base:$fleet/mask:/"
	fi
}

export LOWERS_A="${LOWERS_A-$(lowers "$1")}" LOWERS_B="${LOWERS_B-$(lowers "$2")}"
exec python3 - "$1" "$2" <<'PY'
import difflib, grp, hashlib, os, pwd, re, stat, sys

IGNORE = re.compile("|".join([
    r"^run/sshd\.pid$", r"^run/sshd(/|$)",
    r"^root/\.ansible(/|$)", r"^root/\.cache(/|$)",
    r"^etc/ssh(/|$)", r"^root/\.ssh(/|$)",
    r"^(tmp|var/tmp)(/|$)",
    r"^var/log(/|$)",
    r"^var/cache/apt(/|$)", r"^var/cache/debconf/[^/]*-old$",
    r"^var/lib/apt/lists(/|$)",
    r"^var/lib/dpkg/(lock|lock-frontend|triggers/Lock|status-old)$", r"^var/lib/dpkg/updates(/|$)",
    r"^run/twin/(kmsg|journal)$", r"^run/twin/systemd/\.",
    r"(^|/)__pycache__(/|$)", r"\.pyc$",
]))

def walk(top):
    """Relative paths of everything under top, not following symlinks."""
    out = set()
    for dirpath, dirs, files in os.walk(top):
        rel = os.path.relpath(dirpath, top)
        for n in dirs + files:
            out.add(n if rel == "." else rel + "/" + n)
    return out

def whiteout(st):
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == 0

def opaque(path):
    try:
        return os.getxattr(path, "trusted.overlay.opaque", follow_symlinks=False) == b"y"
    except OSError:
        return False

def resolve(rel, layers):
    """The layer path that the overlay shows for rel, or None when it is absent."""
    parts = rel.split("/")
    for layer in layers:
        p = os.path.join(layer, rel)
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            st = None
        except NotADirectoryError:
            return None
        if st is not None:
            return None if whiteout(st) else p
        # A whiteout or an opaque directory on the way hides the layers below.
        for i in range(1, len(parts)):
            d = os.path.join(layer, *parts[:i])
            try:
                dst = os.lstat(d)
            except OSError:
                break
            if whiteout(dst) or not stat.S_ISDIR(dst.st_mode) or opaque(d):
                return None
    return None

def user(uid):
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)

def group(gid):
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)

def describe(p):
    if p is None:
        return ("absent",), None
    st = os.lstat(p)
    meta = (oct(stat.S_IMODE(st.st_mode)), user(st.st_uid), group(st.st_gid))
    if stat.S_ISLNK(st.st_mode):
        return ("symlink", os.readlink(p)) + meta[1:], None
    if stat.S_ISDIR(st.st_mode):
        return ("dir",) + meta, None
    if stat.S_ISREG(st.st_mode):
        with open(p, "rb") as f:
            data = f.read()
        return ("file", hashlib.sha256(data).hexdigest()[:16], len(data)) + meta, data
    return ("special", oct(stat.S_IFMT(st.st_mode))) + meta, None

def text(data):
    try:
        return data.decode("utf-8").splitlines(keepends=True)
    except UnicodeDecodeError:
        return None

a_up, b_up = sys.argv[1], sys.argv[2]
a_layers = [a_up] + [l for l in os.environ.get("LOWERS_A", "").split(":") if l]
b_layers = [b_up] + [l for l in os.environ.get("LOWERS_B", "").split(":") if l]
if len(a_layers) == 1 or len(b_layers) == 1:
    print("note: no lower layers for one side: paths outside its upper directory count as absent", file=sys.stderr)

paths = sorted(p for p in walk(a_up) | walk(b_up) if not IGNORE.search(p))
diffs = 0
for rel in paths:
    da, ca = describe(resolve(rel, a_layers))
    db, cb = describe(resolve(rel, b_layers))
    if da == db:
        continue
    diffs += 1
    print(f"--- /{rel}")
    print(f"  A: {' '.join(map(str, da))}")
    print(f"  B: {' '.join(map(str, db))}")
    if da[0] == db[0] == "file" and ca != cb:
        ta, tb = text(ca), text(cb)
        if ta is not None and tb is not None and len(ta) + len(tb) < 2000:
            for line in difflib.unified_diff(ta, tb, "A/" + rel, "B/" + rel, n=1):
                print("  " + line, end="" if line.endswith("\n") else "\n")
print(f"compare: {len(paths)} paths checked, {diffs} differ")
sys.exit(1 if diffs else 0)
PY
