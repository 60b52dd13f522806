// Package verdict is the one shape of a judgement the provider reports: a host's GPUDirect
// pre-flight, the fabric's health and an NCCL test all say, per check and subject, whether it
// passed, what was seen and what to do.
package verdict

// Verdict is the outcome of one check on one subject.
type Verdict struct {
	// Check is the stable check id ("lossless_drops", "gpudirect").
	Check string
	// Target is the switch or host address; "" for the fabric, or where the caller judged one
	// target (a host's pre-flight).
	Target string
	// Subject is what was checked on it: a port, a queue, a GPU, an RDMA device; "" for the
	// target as a whole.
	Subject string
	// Pass reports whether the check passed.
	Pass bool
	// Detail says what was seen.
	Detail string
	// Remedy says what to do about a failure; empty when Pass.
	Remedy string
}

// Line renders a failed verdict on one line: "<check> <target> <subject>: <detail>. Remedy:
// <remedy>", leaving out what is empty.
func (v Verdict) Line() string {
	line := v.Check
	for _, part := range []string{v.Target, v.Subject} {
		if part != "" {
			line += " " + part
		}
	}
	return line + ": " + v.Detail + ". Remedy: " + v.Remedy
}

// Count returns how many of vs passed and failed.
func Count(vs []Verdict) (passed, failed int) {
	for _, v := range vs {
		if v.Pass {
			passed++
		} else {
			failed++
		}
	}
	return passed, failed
}
