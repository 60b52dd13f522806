package hosttwin

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// setupScript runs as the twin's first process, already in its own mount
// namespace (private propagation, so nothing it mounts is seen outside).
// It mounts the twin's root and then becomes sshd by exec, keeping its PID.
//
// Overlayfs refuses a lower layer that lies inside another lower layer
// ("overlapping lowerdir path"). When the layers are on the same filesystem
// as / (the usual case: a state directory under /tmp on the root disk), /
// is therefore first mounted as a read-only overlay of its own ("rootview",
// with an empty tmpfs directory as the second layer a read-only overlay
// needs), which is a separate filesystem. When they are on another
// filesystem, / is used directly; that also works where / is itself an
// overlay (containers), which could not be stacked twice more.
//
// Positional parameters: $1 host name, $2 host directory, $3 base layer,
// $4 mask layer, $5 state directory (hidden inside the twin), $6
// "rootview" or "direct", $7 the directory to bind over /proc/driver/nvidia,
// $8 the source name of the root overlay (the launch's marker), $9 "veth"
// when the script runs in a network namespace of its own, whose link
// (netlink.go) the parent creates before it writes a line on stdin.
const setupScript = `set -eu
name=$1 dir=$2 base=$3 mask=$4 hide=$5 mode=$6 nvidia=$7 marker=$8 net=$9
if [ "$net" = veth ]; then
	read -r _
	ip link set lo up
	ip addr add ` + linkInsideAddr + `/64 dev ` + linkInsideName + ` nodad
	ip link set ` + linkInsideName + ` up
fi
m=$dir/merged
lowest=/
if [ "$mode" = rootview ]; then
	rv=$dir/rootview
	mount -t tmpfs -o size=64k,mode=0755 "twin-rootview-$name" "$rv"
	mkdir "$rv/empty" "$rv/view"
	mount -t overlay "twin-rootview-$name" -o "ro,lowerdir=/:$rv/empty" "$rv/view"
	lowest=$rv/view
fi
mount -t overlay "$marker" -o "lowerdir=$dir/layer:$base:$mask:$lowest,upperdir=$dir/upper,workdir=$dir/work" "$m"
mount -t proc "twin-proc-$name" "$m/proc"
mount --rbind /dev "$m/dev"
mount --bind "$dir/sshd" "$m/etc/ssh/twin"
nv=$m$nvidia
if [ -d "$nv" ] && [ -d "$m/proc/driver" ]; then
	if [ ! -d "$m/proc/driver/nvidia" ]; then
		mount -t tmpfs -o size=64k,mode=0755 "twin-procdriver-$name" "$m/proc/driver"
		mkdir "$m/proc/driver/nvidia"
	fi
	mount --bind "$nv" "$m/proc/driver/nvidia"
fi
if [ -d "$m$hide" ]; then
	mount -t tmpfs -o size=64k,mode=0755 "twin-hide-$name" "$m$hide"
fi
hostname "$name"
exec chroot "$m" ` + sshdPath + ` -D -e -f ` + twinSSHDConfig + " </dev/null\n"

// twinEnv is the environment of sshd and of commands run in a twin.
var twinEnv = []string{
	"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
	"HOME=/root",
	"LANG=C.UTF-8",
}

// process is a twin's sshd started by this process.
type process struct {
	cmd  *exec.Cmd
	done chan struct{} // closed once the process has exited and been reaped
}

// launchSpec is what launch needs to start one twin.
type launchSpec struct {
	name     string
	marker   string
	paths    hostPaths
	baseDir  string
	maskDir  string
	stateDir string
	rootview bool
	logFile  string
	listen   string // sshd's listen address, as its log prints it
	port     int
	// link, when set, puts the twin in a network namespace of its own
	// reached through a veth pair whose outer end gets this name.
	link string
}

// launch starts the twin's namespace and sshd and waits until sshd listens.
// On failure nothing of the attempt is left running.
func launch(ctx context.Context, s launchSpec) (*process, error) {
	logf, err := os.OpenFile(s.logFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	offset, err := logf.Seek(0, io.SeekEnd)
	if err != nil {
		logf.Close()
		return nil, err
	}
	mode := "direct"
	if s.rootview {
		mode = "rootview"
	}
	network := "none"
	// A new mount namespace for the script (Go makes / private in it) and a
	// process group of its own, so the sshd listener and anything the
	// script runs can be killed as one.
	// A UTS namespace of its own, so the hostname command inside says the twin name.
	attr := &syscall.SysProcAttr{Setpgid: true, Unshareflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWUTS}
	if s.link != "" {
		network = "veth"
		attr.Unshareflags |= syscall.CLONE_NEWNET
	}
	cmd := exec.Command("/bin/sh", "-c", setupScript, "twin-setup-"+s.name,
		s.name, string(s.paths), s.baseDir, s.maskDir, s.stateDir, mode, procDriverNVIDIA, s.marker, network)
	cmd.Dir = "/"
	cmd.Env = twinEnv
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = attr
	var linkReady io.WriteCloser
	if s.link != "" {
		if linkReady, err = cmd.StdinPipe(); err != nil {
			logf.Close()
			return nil, err
		}
	}
	err = cmd.Start()
	logf.Close()
	if err != nil {
		return nil, fmt.Errorf("start sshd: %w", err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		_ = cmd.Wait() // exit status is in the log; Wait reaps
		close(p.done)
	}()
	if linkReady != nil {
		err := addLink(ctx, s.link, cmd.Process.Pid)
		if err == nil {
			_, err = io.WriteString(linkReady, "link\n")
		}
		linkReady.Close()
		if err != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
			return nil, fmt.Errorf("network link: %w", err)
		}
	}
	if err := p.waitListening(ctx, s.logFile, offset, s.listen, s.port); err != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
		return nil, err
	}
	return p, nil
}

// waitListening polls the log (from offset on) until sshd reports that it
// listens on port, the process exits, or ctx ends.
func (p *process) waitListening(ctx context.Context, logFile string, offset int64, listen string, port int) error {
	want := []byte(fmt.Sprintf("Server listening on %s port %d.", listen, port))
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		out := readFrom(logFile, offset)
		if bytes.Contains(out, want) {
			return nil
		}
		select {
		case <-p.done:
			out = readFrom(logFile, offset)
			if bytes.Contains(out, []byte("Address already in use")) {
				return &portInUseError{port: port, log: tail(out)}
			}
			return fmt.Errorf("sshd exited before listening on port %d; log:\n%s", port, tail(out))
		case <-ctx.Done():
			return fmt.Errorf("sshd not listening on port %d: %w; log:\n%s", port, ctx.Err(), tail(readFrom(logFile, offset)))
		case <-tick.C:
		}
	}
}

// portInUseError reports that sshd could not bind its port.
type portInUseError struct {
	port int
	log  string
}

func (e *portInUseError) Error() string {
	return fmt.Sprintf("port %d already in use; log:\n%s", e.port, e.log)
}

// readFrom returns the file's content after offset (nothing on error).
func readFrom(path string, offset int64) []byte {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil
	}
	b, _ := io.ReadAll(f)
	return b
}

// tailLines is how much of a log goes into an error.
const tailLines = 20

// tail returns the last tailLines lines of b.
func tail(b []byte) string {
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > tailLines {
		lines = lines[len(lines)-tailLines:]
	}
	return strings.Join(lines, "\n")
}
