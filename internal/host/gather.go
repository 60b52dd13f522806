package host

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// Gather reads the facts of want on the host behind r in one remote command,
// without sudo. A fact whose command fails (a tool that is not installed, a
// driver that is not loaded) is recorded in Facts.Absent with the reason and
// is not an error; output that a parser cannot read is a *GatherError naming
// the host and the fact, as is a failure to run the command at all.
func Gather(ctx context.Context, r Runner, want Want) (Facts, error) {
	return gather(ctx, r, want, false)
}

func gather(ctx context.Context, r Runner, want Want, sudo bool) (Facts, error) {
	host := r.Address()
	want = want.withDependencies()
	steps, err := gatherSteps(want)
	if err != nil {
		return Facts{}, &GatherError{Host: host, Err: err}
	}
	script := gatherCommand(steps)
	if _, err := script.Render(); err != nil {
		return Facts{}, &GatherError{Host: host, Err: fmt.Errorf("render gather script: %w", err)}
	}
	nonce, err := newNonce()
	if err != nil {
		return Facts{}, &GatherError{Host: host, Err: err}
	}
	res, err := r.Run(ctx, script, ssh.RunOptions{Stdin: strings.NewReader(nonce + "\n"), Sudo: sudo, AllowFailure: true})
	if err != nil {
		return Facts{}, &GatherError{Host: host, Err: explainLost(err, "the fact gather, which only reads: nothing on the host was changed by it")}
	}
	secs, err := splitGather(steps, nonce, res.Stdout, res.Stderr)
	if err != nil {
		if res.ExitStatus != 0 {
			err = fmt.Errorf("gather script exited with status %d (%s): %w", res.ExitStatus, lastLine(string(res.Stderr)), err)
		}
		return Facts{}, &GatherError{Host: host, Err: err}
	}
	return readSections(host, want, steps, secs)
}

// readSections parses every section into a new Facts.
func readSections(host string, want Want, steps []step, secs []section) (Facts, error) {
	f := Facts{Host: host, Gathered: want, Absent: map[string]string{}}
	if want.Has(FactQoS) {
		f.QoS = map[string]facts.MlnxQoS{}
	}
	if want.Has(FactCCParams) {
		f.CCParams = map[string]facts.CCParams{}
	}
	if want.Has(FactTrafficClass) {
		f.TrafficClass = map[string]int{}
	}
	if want.Has(FactCMARoCETos) {
		f.CMARoCETos = map[string]int{}
	}
	if want.Has(FactNVConfig) {
		f.NVConfig = map[string]facts.NVConfig{}
	}
	if len(want.files) > 0 {
		f.Files = map[string]FileInfo{}
	}
	for _, sec := range secs {
		s := steps[sec.step]
		label := s.label
		if sec.key != "" {
			label += " " + sec.key
		}
		// A loop's one section without a key says that the loop could not
		// run at all (its tool is missing): the whole fact is absent.
		if !s.accepts(sec.status) || s.loop && sec.key == "" {
			f.Absent[label] = absentReason(sec)
			continue
		}
		if err := s.parse(&f, sec.key, sec.stdout); err != nil {
			return Facts{}, &GatherError{Host: host, Fact: label, Err: err}
		}
	}
	if want.Has(FactQoS) {
		for _, n := range f.Netdevs {
			if n.IsVF {
				f.Absent[FactQoS.String()+" "+n.Name] = "virtual function: QoS is set on the physical function"
			}
		}
	}
	detach(&f)
	return f, nil
}

// absentReason says why a fact's command failed: its exit status and the
// last line it printed on standard error.
func absentReason(sec section) string {
	r := "exit status " + strconv.Itoa(sec.status)
	if l := lastLine(sec.stderr); l != "" {
		r += ": " + l
	}
	return r
}

// lastLine returns the last non-blank line of s, trimmed and shortened.
func lastLine(s string) string {
	ls := strings.Split(strings.TrimSpace(s), "\n")
	return cut(strings.TrimSpace(ls[len(ls)-1]))
}
