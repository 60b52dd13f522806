package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// The CPU split of a step. The controller is the command the step runs with everything it
// waited for: terraform with its provider processes, or ansible-playbook with its workers and
// ssh clients. Their CPU reaches this process's RUSAGE_CHILDREN when the command exits, so
// the delta over the step is the controller's alone (the host twins' sshd processes are this
// process's children too, but run for the whole scenario and are reaped only at its end).
// The rest of the machine's busy time over the step is the twins: the host twins' sessions
// and stand-ins, and the switch twins, which run inside this process. No cgroup is needed.

// clockTick is USER_HZ, the unit of /proc/stat: 100 on every Linux architecture Go builds
// for (the kernel's ABI, whatever CONFIG_HZ is).
const clockTick = 10 * time.Millisecond

// cpuSample is one reading of the two clocks the split needs.
type cpuSample struct {
	children time.Duration // user+system CPU of reaped children
	machine  time.Duration // busy time of all CPUs
}

func sampleCPU() (cpuSample, error) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return cpuSample{}, fmt.Errorf("getrusage: %w", err)
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSample{}, err
	}
	busy, err := parseProcStat(string(b))
	if err != nil {
		return cpuSample{}, err
	}
	return cpuSample{
		children: time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		machine:  busy,
	}, nil
}

// parseProcStat returns the busy time in the aggregate "cpu" line of /proc/stat: user, nice,
// system, irq, softirq and steal (proc(5); guest time is already inside user), not idle or
// iowait.
func parseProcStat(s string) (time.Duration, error) {
	for line := range strings.Lines(s) {
		f := strings.Fields(line)
		if len(f) == 0 || f[0] != "cpu" {
			continue
		}
		if len(f) < 9 {
			return 0, fmt.Errorf("/proc/stat: cpu line has %d fields, want at least 9: %q", len(f), strings.TrimSpace(line))
		}
		var busy int64
		for _, i := range []int{1, 2, 3, 6, 7, 8} { // user nice system irq softirq steal
			n, err := strconv.ParseInt(f[i], 10, 64)
			if err != nil {
				return 0, fmt.Errorf("/proc/stat: cpu field %d: %w", i, err)
			}
			busy += n
		}
		return time.Duration(busy) * clockTick, nil
	}
	return 0, fmt.Errorf("/proc/stat has no aggregate cpu line")
}

// split returns the controller's and the twins' CPU between two samples.
func split(before, after cpuSample) (controller, twins time.Duration) {
	controller = after.children - before.children
	twins = max(after.machine-before.machine-controller, 0)
	return controller, twins
}
