package facts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MlnxQoS is the host QoS state of one interface as printed by mlnx_qos.
type MlnxQoS struct {
	// DCBXMode is "OS controlled" or "Firmware controlled".
	DCBXMode string
	// Trust is the priority trust state: "dscp", "pcp" or "none".
	Trust string
	// DSCPToPrio maps each listed DSCP (0..63) to its priority; printed only
	// with trust dscp.
	DSCPToPrio map[int]int
	// DefaultPrio lists the priorities under "default priority:", if any.
	DefaultPrio []int
	// BufferSize is the receive buffer size per buffer in bytes, and
	// TotalBufferSize the total when printed; nil/-1 on versions or systems
	// without buffer support.
	BufferSize      []int64
	TotalBufferSize int64
	// CableLen is the "Cable len" value; -1 when not printed.
	CableLen int
	// PFC reports PFC enabled per priority 0..7.
	PFC [8]bool
	// PrioToBuffer is the "buffer" row under the PFC configuration; nil when
	// not printed.
	PrioToBuffer []int
	// PrioToTC maps each priority to its traffic class; -1 where no tc block
	// lists the priority.
	PrioToTC [8]int
	// TCs are the "tc:" blocks in the order printed.
	TCs []MlnxTC
	// Warnings are lines mlnx_qos printed about itself, such as the lldpad
	// warning or "Buffers commands are not supported on your system".
	Warnings []string
}

// MlnxTC is one traffic class block of mlnx_qos.
type MlnxTC struct {
	// TC is the traffic class, 0..7.
	TC int
	// RateLimit is "unlimited" or e.g. "25.0 Gbps".
	RateLimit string
	// TSA is the transmission selection algorithm: "vendor", "strict",
	// "ets" or "unknown".
	TSA string
	// BW is the ETS bandwidth share in percent; -1 when not ETS.
	BW int
	// Priorities are the priorities mapped to this class.
	Priorities []int
}

var (
	qosDSCPLine = regexp.MustCompile(`^prio:\s*(\d+)\s+dscp:\s*([0-9,\s]*)$`)
	qosPrioLine = regexp.MustCompile(`^prio:\s*(\d+)$`)
	qosTCLine   = regexp.MustCompile(`^tc:\s*(\d+)\s+ratelimit:\s*([^,]+),\s*tsa:\s*([A-Za-z]+)(?:,\s*bw:\s*(\d+)\s*%)?\s*$`)
)

// ParseMlnxQoS reads the output of "mlnx_qos -i <netdev>", which prints the
// full state after any change too, so the same parser reads the result of a
// set command. It reads it by its labels: "DCBX
// mode:", "Priority trust state:", "prio:N dscp:..." lines, "Cable len:",
// the "enabled" and "buffer" rows under "PFC configuration:", and the "tc:"
// blocks with their "priority:" lines. Output without a PFC "enabled" row is
// an error (mlnx_qos failed or printed usage).
func ParseMlnxQoS(out string) (MlnxQoS, error) {
	const fact = "mlnx_qos"
	q := MlnxQoS{DSCPToPrio: map[int]int{}, CableLen: -1, TotalBufferSize: -1}
	for i := range q.PrioToTC {
		q.PrioToTC[i] = -1
	}
	sawPFC := false
	section := ""
	var tc *MlnxTC
	for i, line := range lines(out) {
		t := strings.TrimSpace(line)
		fail := func(err error, format string, args ...any) (MlnxQoS, error) {
			return MlnxQoS{}, wrapLineError(fact, i+1, line, err, format, args...)
		}
		switch {
		case t == "":
		case strings.HasPrefix(t, "DCBX mode:"):
			q.DCBXMode = strings.TrimSpace(strings.TrimPrefix(t, "DCBX mode:"))
		case strings.HasPrefix(t, "Priority trust state:"):
			q.Trust = strings.TrimSpace(strings.TrimPrefix(t, "Priority trust state:"))
		case t == "dscp2prio mapping:":
			section = "dscp"
		case t == "default priority:":
			section = "default"
		case t == "PFC configuration:":
			section = "pfc"
		case strings.HasPrefix(t, "Receive buffer size (bytes):"):
			if err := q.readBuffers(strings.TrimPrefix(t, "Receive buffer size (bytes):")); err != nil {
				return fail(err, "receive buffer sizes")
			}
		case strings.HasPrefix(t, "Cable len:"):
			n, err := atoi(strings.TrimSpace(strings.TrimPrefix(t, "Cable len:")))
			if err != nil {
				return fail(err, "cable length")
			}
			q.CableLen = n
		case strings.HasPrefix(t, "tc:"):
			m := qosTCLine.FindStringSubmatch(t)
			if m == nil {
				return fail(nil, "want \"tc: N ratelimit: R, tsa: T[, bw: B%%]\"")
			}
			n, _ := atoi(m[1])
			if n > 7 {
				return fail(nil, "traffic class %d out of range 0..7", n)
			}
			bw := -1
			if m[4] != "" {
				bw, _ = atoi(m[4])
			}
			q.TCs = append(q.TCs, MlnxTC{TC: n, RateLimit: strings.TrimSpace(m[2]), TSA: m[3], BW: bw})
			tc, section = &q.TCs[len(q.TCs)-1], "tc"
		case strings.HasPrefix(t, "priority:") && section == "tc":
			p, err := prio(strings.TrimSpace(strings.TrimPrefix(t, "priority:")))
			if err != nil {
				return fail(err, "priority")
			}
			tc.Priorities = append(tc.Priorities, p)
			q.PrioToTC[p] = tc.TC
		case section == "pfc" && strings.HasPrefix(t, "priority"):
		case section == "pfc" && strings.HasPrefix(t, "enabled"):
			vals, err := eightInts(strings.TrimPrefix(t, "enabled"), 1)
			if err != nil {
				return fail(err, "PFC enabled row")
			}
			for p, v := range vals {
				q.PFC[p] = v == 1
			}
			sawPFC = true
		case section == "pfc" && strings.HasPrefix(t, "buffer"):
			vals, err := eightInts(strings.TrimPrefix(t, "buffer"), 7)
			if err != nil {
				return fail(err, "PFC buffer row")
			}
			q.PrioToBuffer = vals
		case section == "dscp" && qosDSCPLine.MatchString(t):
			if err := q.readDSCP(qosDSCPLine.FindStringSubmatch(t)); err != nil {
				return fail(err, "dscp2prio")
			}
		case section == "default" && qosPrioLine.MatchString(t):
			p, err := prio(qosPrioLine.FindStringSubmatch(t)[1])
			if err != nil {
				return fail(err, "default priority")
			}
			q.DefaultPrio = append(q.DefaultPrio, p)
		case strings.Contains(t, "WARNING") || strings.Contains(t, "not supported"):
			q.Warnings = append(q.Warnings, t)
		}
	}
	if !sawPFC {
		return MlnxQoS{}, &ParseError{Fact: fact, Msg: "no PFC \"enabled\" row"}
	}
	return q, nil
}

// readDSCP records one "prio:N dscp:a,b,c," line.
func (q *MlnxQoS) readDSCP(m []string) error {
	p, err := prio(m[1])
	if err != nil {
		return err
	}
	for _, d := range strings.Split(m[2], ",") {
		if d = strings.TrimSpace(d); d == "" {
			continue
		}
		n, err := atoi(d)
		if err != nil {
			return err
		}
		if n < 0 || n > 63 {
			return rangeError("dscp", n, 63)
		}
		q.DSCPToPrio[n] = p
	}
	return nil
}

// readBuffers reads "130944,130944,0,0,0,0,0,0,max_buffer_size=..." (current mlnx-tools;
// older releases print total_size=).
func (q *MlnxQoS) readBuffers(s string) error {
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		tot, ok := strings.CutPrefix(f, "max_buffer_size=")
		if !ok {
			tot, ok = strings.CutPrefix(f, "total_size=")
		}
		if ok {
			n, err := strconv.ParseInt(tot, 10, 64)
			if err != nil {
				return err
			}
			q.TotalBufferSize = n
			continue
		}
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return err
		}
		q.BufferSize = append(q.BufferSize, n)
	}
	return nil
}

// eightInts reads a row of eight small integers no larger than limit.
func eightInts(s string, limit int) ([]int, error) {
	f := strings.Fields(s)
	if len(f) != 8 {
		return nil, fmt.Errorf("want 8 values, got %d", len(f))
	}
	vals := make([]int, 8)
	for i, x := range f {
		n, err := atoi(x)
		if err != nil {
			return nil, err
		}
		if n < 0 || n > limit {
			return nil, rangeError("value", n, limit)
		}
		vals[i] = n
	}
	return vals, nil
}

// prio parses a priority 0..7.
func prio(s string) (int, error) {
	n, err := atoi(s)
	if err != nil {
		return 0, err
	}
	if n < 0 || n > 7 {
		return 0, rangeError("priority", n, 7)
	}
	return n, nil
}

// rangeError reports an integer outside 0..limit.
func rangeError(what string, n, limit int) error {
	return fmt.Errorf("%s %d out of range 0..%d", what, n, limit)
}
