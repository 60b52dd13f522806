#!/bin/sh
# Test double for sudo(8), installed as "sudo" first on the PATH of a test
# sshd. It accepts the options package ssh uses (-n, -S, -p '', -u USER, --),
# asks for the password like sudo -S unless $FAKE_SUDO_DIR/nopasswd exists
# (sudoers NOPASSWD), appends "USER ARGS..." to $FAKE_SUDO_DIR/log and runs
# the command as the current user.
set -u
dir=${FAKE_SUDO_DIR:?}
nonint=no
stdinpw=no
user=root
while [ $# -gt 0 ]; do
	case $1 in
	-n) nonint=yes ;;
	-S) stdinpw=yes ;;
	-p)
		shift
		[ "$1" = "" ] || { echo "fake sudo: prompt must be empty" >&2; exit 90; }
		;;
	-u)
		shift
		user=$1
		;;
	--)
		shift
		break
		;;
	*)
		echo "fake sudo: unexpected option $1" >&2
		exit 91
		;;
	esac
	shift
done
if [ ! -e "$dir/nopasswd" ]; then
	if [ $nonint = yes ]; then
		echo "sudo: a password is required" >&2
		exit 1
	fi
	[ $stdinpw = yes ] || { echo "fake sudo: a password is required and -S is missing" >&2; exit 92; }
	# The shell's read takes one byte at a time from a pipe: the rest of
	# standard input stays for the command, as with sudo.
	IFS= read -r pw || pw=
	if [ "$pw" != "$(cat "$dir/password")" ]; then
		echo "sudo: 1 incorrect password attempt" >&2
		exit 1
	fi
fi
printf '%s %s\n' "$user" "$*" >>"$dir/log"
exec "$@"
