package nvue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
)

// Revision states, as the revision resource reports them. NVIDIA documents pending, apply,
// applied, invalid and ays_fail, and applied_and_saved with auto-save (on by default from
// 5.9); the rest are those real clients wait on (entropia/gpn-noc-gpncfg deployment).
var (
	successStates = []string{"applied", "applied_and_saved", "auto_save"}
	failureStates = []string{"apply_error", "apply_fail", "ays_fail", "confirm_fail", "invalid", "ready_error", "verify_error", "ays_no", "ignore_fail_no"}
)

// refusedStates are the failures NVUE reaches before it changes the applied configuration:
// the revision failed validation, or its "are you sure" prompt was refused (NVUE API guide:
// invalid and ays_fail). Every other failure may follow a partial apply.
// confirm_fail is a commit-confirmed apply rolled back, because its client refused it or did
// not confirm it in time: the configuration it replaced is back ("the configuration rolls
// back automatically", nvue-reference Config-Commands.md, nv config apply --confirm).
var refusedStates = []string{"invalid", "ays_fail", "ays_no", stateConfirmFail}

// The states of a commit-confirmed apply (entropia/gpn-noc-gpncfg gpncfg/deployment/__init__.py:
// NT_CONFIRM, confirm_revision's confirm_yes, and confirm_fail among its failures).
const (
	stateConfirm     = "confirm"
	stateConfirmYes  = "confirm_yes"
	stateConfirmNo   = "confirm_no"
	stateConfirmFail = "confirm_fail"
)

// Settled reports whether err, from Transaction, leaves the applied configuration as it was:
// the revision was never asked to apply, or NVUE refused it before applying anything. A
// revision that failed while applying, timed out or lost its client is unsettled.
func Settled(err error) bool {
	if _, ok := errors.AsType[*RolledBackError](err); ok {
		return true // seen rolled back
	}
	var ae *ApplyError
	if errors.As(err, &ae) {
		return !ae.TimedOut && slices.Contains(refusedStates, ae.State)
	}
	var se *stagedError
	return errors.As(err, &se)
}

// stagedError is a Transaction failure before the revision was asked to apply, or whose
// request to apply NVUE refused.
type stagedError struct{ err error }

func (e *stagedError) Error() string { return e.err.Error() }
func (e *stagedError) Unwrap() error { return e.err }

// noConfigDiff is the issue NVUE reports for an apply that changes nothing, sometimes with a
// failure-like state; it is a success.
const noConfigDiff = "config apply executed with no config diff"

// Issue is one problem a revision reports.
type Issue struct {
	Code     string         `json:"code"`
	Message  string         `json:"message"`
	Severity string         `json:"severity"`
	Data     map[string]any `json:"data"`
}

// revisionStatus is the revision resource: {"state": ..., "transition": {"issue": {"0": ...}, "progress": ...}},
// either flat or keyed by the revision id (both shapes appear in NVIDIA's examples).
type revisionStatus struct {
	State      string `json:"state"`
	Transition struct {
		Issue    map[string]Issue `json:"issue"`
		Progress string           `json:"progress"`
	} `json:"transition"`
}

func decodeStatus(raw json.RawMessage) (revisionStatus, error) {
	var flat revisionStatus
	if err := json.Unmarshal(raw, &flat); err == nil && flat.State != "" {
		return flat, nil
	}
	var keyed map[string]revisionStatus
	if err := json.Unmarshal(raw, &keyed); err != nil {
		return revisionStatus{}, err
	}
	for _, s := range keyed {
		return s, nil
	}
	return revisionStatus{}, errors.New("empty revision status")
}

func (s revisionStatus) issues() []Issue {
	keys := make([]string, 0, len(s.Transition.Issue))
	for k := range s.Transition.Issue {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]Issue, 0, len(keys))
	for _, k := range keys {
		out = append(out, s.Transition.Issue[k])
	}
	return out
}

// ApplyError is a revision that did not end applied.
type ApplyError struct {
	Address  string
	Revision string
	// State is the last state the revision reached; TimedOut when the wait ran out before it
	// reached a final one.
	State    string
	TimedOut bool
	Progress string
	Issues   []Issue
}

func (e *ApplyError) Error() string {
	var b strings.Builder
	if e.TimedOut {
		fmt.Fprintf(&b, "nvue %s: revision %s still %q when the apply timeout ran out", e.Address, e.Revision, e.State)
	} else {
		fmt.Fprintf(&b, "nvue %s: revision %s ended %q", e.Address, e.Revision, e.State)
	}
	if e.Progress != "" {
		fmt.Fprintf(&b, " (%s)", e.Progress)
	}
	for _, i := range e.Issues {
		fmt.Fprintf(&b, "; %s", strings.TrimSpace(i.Message)) // NVUE ends an x-cue-error reason with a newline
	}
	return b.String()
}

// promptStates are the states of a revision NVUE stopped at its "are you sure" prompt:
// ays_fail, when the prompt was not answered yes ("Configuration Apply Fails with Warnings",
// progress "Aborted apply after warnings": CumulusNetworks/docs
// content/cumulus-linux-514/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-API.md,
// Troubleshoot Configuration Changes), and ays_no, the answer no as a state (real clients
// list it: entropia/gpn-noc-gpncfg's deploy driver). Both leave the applied configuration as it
// was (refusedStates).
var promptStates = []string{"ays_fail", "ays_no"}

// PromptError is an apply NVUE stopped at an "are you sure" prompt that the client did not
// answer yes ([Config.AssumeYes] off). The revision was detached: nothing was applied.
type PromptError struct{ *ApplyError }

func (e *PromptError) Error() string {
	return e.ApplyError.Error() + "; NVUE asks before it applies this change, as it does when a file it manages was edited by hand " +
		"outside NVUE (for QoS /etc/cumulus/datapath/qos/qos_features.conf, /etc/mlx/datapath/qos/qos_infra.conf, " +
		"/etc/cumulus/switchd.d/qos.conf), and the provider answers no unless told otherwise. Nothing was applied. " +
		"Check what changed there (nv config apply on the switch prints the prompt): move a change you want to keep into NVUE, " +
		"or exclude its file (nv set system config apply ignore <file>); or set assume_yes = true in the nvue block to answer yes " +
		"and let NVUE overwrite it"
}

func (e *PromptError) Unwrap() error { return e.ApplyError }

// Transaction applies one change as one revision: create it, stage every change in one PATCH of
// the root, apply it answering NVUE's "are you sure" prompt as [Config.AssumeYes] says (no
// by default), and wait until it is applied. A
// revision that fails is detached, so nothing of it stays staged on the switch; NVUE applies a
// revision as a whole, so the switch holds all of the change or none. Only one runs per client.
func (c *Client) Transaction(ctx context.Context, patch map[string]any) (revision string, err error) {
	return c.TransactionVerified(ctx, patch, nil)
}

// TransactionVerified is Transaction whose commit-confirmed apply ([Config.ConfirmWindow]) is
// confirmed only once the change reads back from the applied configuration over a new
// connection and verify, when not nil, passes too. A read-back or verify that fails refuses the
// confirmation, and the switch rolls the change back: a [RolledBackError].
func (c *Client) TransactionVerified(ctx context.Context, patch map[string]any, verify func(context.Context) error) (revision string, err error) {
	c.applyMu.Lock()
	defer c.applyMu.Unlock()
	if err := c.checkNoOtherRevision(ctx); err != nil {
		return "", &stagedError{err}
	}
	rev, err := c.createRevision(ctx)
	if err != nil {
		return "", &stagedError{err}
	}
	for _, part := range SplitPatch(patch) {
		if err := c.do(ctx, http.MethodPatch, "/", url.Values{"rev": {rev}}, part, nil); err != nil {
			c.detach(rev)
			return rev, &stagedError{fmt.Errorf("stage the change in revision %s: %w", rev, err)}
		}
	}
	check := func(ctx context.Context) error {
		if err := c.readBack(ctx, patch); err != nil {
			return err
		}
		if verify != nil {
			return verify(ctx)
		}
		return nil
	}
	if err := c.apply(ctx, rev, check); err != nil {
		// Only a revision that reached a final state is detached: one still applying, or whose
		// client stopped waiting, could be raced by the detach.
		if ae := (*ApplyError)(nil); Settled(err) || errors.As(err, &ae) && !ae.TimedOut {
			c.detach(rev)
		}
		return rev, err
	}
	return rev, nil
}

// BusyError is another revision on the switch that is not final: an operator's change not yet
// applied (pending) or one still applying. Applying beside it would race it, or apply it along
// with this change, so nothing is sent.
type BusyError struct {
	Address string
	// Revisions are the ids and states of the revisions in the way.
	Revisions []string
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("nvue %s: another change is on the switch and not finished: revision %s; apply or detach it there "+
		"(nv config diff shows a pending one, nv config detach drops it) and apply again. Nothing was sent",
		e.Address, strings.Join(e.Revisions, ", "))
}

// checkNoOtherRevision refuses to go on while a revision other than a final one exists.
func (c *Client) checkNoOtherRevision(ctx context.Context) error {
	var all map[string]json.RawMessage
	if err := c.do(ctx, http.MethodGet, "/revision", nil, nil, &all); err != nil {
		return fmt.Errorf("list the revisions: %w", err)
	}
	var busy []string
	for id, raw := range all {
		st, err := decodeStatus(raw)
		if err != nil || st.State == "" {
			continue
		}
		if !slices.Contains(successStates, st.State) && !slices.Contains(failureStates, st.State) {
			busy = append(busy, fmt.Sprintf("%s (%s)", id, st.State))
		}
	}
	if len(busy) == 0 {
		return nil
	}
	slices.Sort(busy)
	return &BusyError{Address: c.cfg.Address, Revisions: busy}
}

func (c *Client) createRevision(ctx context.Context) (string, error) {
	var out map[string]json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/revision", nil, map[string]any{}, &out); err != nil {
		return "", fmt.Errorf("create a revision: %w", err)
	}
	if len(out) != 1 {
		return "", fmt.Errorf("nvue %s: create a revision: want one revision id in the answer, got %d", c.cfg.Address, len(out))
	}
	for id := range out {
		return id, nil
	}
	return "", nil
}

func revPath(rev string) string { return "/revision/" + url.PathEscape(rev) }

// apply asks for the revision to be applied and polls it until it is applied, fails or the
// apply timeout runs out.
func (c *Client) apply(ctx context.Context, rev string, check func(context.Context) error) error {
	// The answer is given ahead: the API has no one to ask, and an apply left without one
	// waits and ends ays_fail ("Timeout while waiting for client response", NVUE API guide).
	// ays_yes and ays_no are the CLI's --assume-yes and --assume-no (NVUE-CLI.md 5.14,
	// Configuration Management Commands).
	ays := "ays_no"
	if c.cfg.AssumeYes {
		ays = "ays_yes"
	}
	body := map[string]any{"state": "apply", "auto-prompt": map[string]string{"ays": ays}}
	confirming := c.cfg.ConfirmWindow > 0
	if confirming {
		body["state-controls"] = map[string]any{"confirm": int((c.cfg.ConfirmWindow + time.Second - 1) / time.Second)}
	}
	var he *HTTPError
	if err := c.do(ctx, http.MethodPatch, revPath(rev), nil, body, nil); errors.As(err, &he) && he.Status < 500 {
		return &stagedError{fmt.Errorf("apply revision %s: %w", rev, err)} // refused: nothing applied
	} else if ctx.Err() != nil {
		return fmt.Errorf("apply revision %s: %w", rev, err)
	} else if err != nil {
		// The connection was lost after the request left, or a proxy in front of nvued
		// (nginx) answered 5xx: the switch may be applying it, so its state decides (the
		// polling below reads it on a new connection).
		c.http.CloseIdleConnections()
	}
	deadline := time.Now().Add(c.cfg.ApplyTimeout)
	var refused error // the read-back that made the client refuse the confirmation
	for {
		var raw json.RawMessage
		if err := c.do(ctx, http.MethodGet, revPath(rev), nil, nil, &raw); err != nil {
			return fmt.Errorf("read revision %s: %w", rev, err)
		}
		st, err := decodeStatus(raw)
		if err != nil {
			return fmt.Errorf("nvue %s: revision %s: %w", c.cfg.Address, rev, err)
		}
		issues := st.issues()
		errs := slices.DeleteFunc(slices.Clone(issues), func(i Issue) bool { return i.Severity != "error" })
		switch {
		case slices.ContainsFunc(issues, func(i Issue) bool { return strings.Contains(i.Message, noConfigDiff) }):
			return nil
		case slices.Contains(successStates, st.State) && len(errs) > 0:
			// An issue of severity error fails the apply whatever the state says, as
			// NVIDIA's own clients read it (dsx-ai-factory/infra-controller nvue-client).
			return &ApplyError{Address: c.cfg.Address, Revision: rev, State: st.State, Progress: st.Transition.Progress, Issues: errs}
		case st.State == stateConfirm && confirming:
			confirming = false // one answer per apply
			if refused, err = c.confirm(ctx, rev, check); err != nil {
				return err
			}
			continue // on to applied, or rolled back when refused
		case st.State == stateConfirmFail && refused != nil:
			return &RolledBackError{Address: c.cfg.Address, Revision: rev, Err: refused}
		case st.State == "applied":
			return c.save(ctx)
		case slices.Contains(successStates, st.State):
			return nil
		case slices.Contains(promptStates, st.State):
			return &PromptError{&ApplyError{Address: c.cfg.Address, Revision: rev, State: st.State, Progress: st.Transition.Progress, Issues: issues}}
		case slices.Contains(failureStates, st.State):
			return &ApplyError{Address: c.cfg.Address, Revision: rev, State: st.State, Progress: st.Transition.Progress, Issues: issues}
		case time.Now().After(deadline):
			return &ApplyError{Address: c.cfg.Address, Revision: rev, State: st.State, TimedOut: true, Progress: st.Transition.Progress, Issues: issues}
		}
		timer := time.NewTimer(c.cfg.PollInterval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("nvue %s: waiting for revision %s (last state %q): %w", c.cfg.Address, rev, st.State, ctx.Err())
		case <-timer.C:
		}
	}
}

// confirm answers a commit-confirmed apply waiting for its confirmation: yes once check
// passes, else no, which rolls it back at once (the window would roll it back too, later).
// It returns the check's failure when it refused, and an error when it could not answer.
func (c *Client) confirm(ctx context.Context, rev string, check func(context.Context) error) (refused, err error) {
	// A new connection: the read-back proves the switch is still reachable after the change,
	// not only through a connection the change left open.
	c.http.CloseIdleConnections()
	if refused := check(ctx); refused != nil {
		if err := c.do(ctx, http.MethodPatch, revPath(rev), nil, map[string]any{"state": stateConfirmNo}, nil); err != nil {
			return refused, fmt.Errorf("nvue %s: revision %s: the read-back failed (%w) and refusing its confirmation failed too, so the switch rolls it back when its %s window ends: %v",
				c.cfg.Address, rev, refused, c.cfg.ConfirmWindow, err)
		}
		return refused, nil
	}
	if err := c.do(ctx, http.MethodPatch, revPath(rev), nil, map[string]any{"state": stateConfirmYes}, nil); err != nil {
		return nil, fmt.Errorf("confirm revision %s (the switch rolls it back unless confirmed within %s): %w", rev, c.cfg.ConfirmWindow, err)
	}
	return nil, nil
}

// RolledBackError is a commit-confirmed apply whose read-back failed: the client refused to
// confirm it, and the switch rolled it back to the configuration it replaced (the revision
// was seen in confirm_fail).
type RolledBackError struct {
	Address, Revision string
	Err               error
}

func (e *RolledBackError) Error() string {
	return fmt.Sprintf("nvue %s: revision %s was applied but did not read back (%v), so it was not confirmed and the switch rolled it back; nothing of it stays applied",
		e.Address, e.Revision, e.Err)
}

func (e *RolledBackError) Unwrap() error { return e.Err }

// readBack checks that the applied configuration holds patch: every value it sets, and
// nothing it unsets.
func (c *Client) readBack(ctx context.Context, patch map[string]any) error {
	raw, err := c.Get(ctx, "", RevApplied)
	if err != nil {
		return fmt.Errorf("read back the applied configuration: %w", err)
	}
	applied, err := DecodeTree(raw)
	if err != nil {
		return fmt.Errorf("read back the applied configuration: %w", err)
	}
	if where := missing(applied, patch, ""); where != "" {
		return fmt.Errorf("the applied configuration does not hold %s", where)
	}
	return nil
}

// missing returns the first path of patch that have does not hold, "" when it holds all.
func missing(have Tree, patch map[string]any, at string) string {
	for _, k := range slices.Sorted(maps.Keys(patch)) {
		p := strings.TrimPrefix(at+"/"+k, "/")
		v, ok := have[k]
		switch want := patch[k].(type) {
		case nil:
			if ok {
				return p + " (unset)"
			}
		case map[string]any:
			sub, isTree := v.(map[string]any)
			if !ok || !isTree {
				return p
			}
			if m := missing(sub, want, p); m != "" {
				return m
			}
		default:
			if !ok || fmt.Sprint(v) != fmt.Sprint(want) {
				return fmt.Sprintf("%s = %v", p, want)
			}
		}
	}
	return ""
}

// save writes the applied configuration to the startup one, which an apply that ended
// "applied", not "applied_and_saved", did not: auto-save is off (nv set system config
// auto-save enable off), and the switch would boot without the change (NVUE API guide, Save
// a Configuration: PATCH the applied revision with state save).
func (c *Client) save(ctx context.Context) error {
	// The guide's save sends ays_yes; it saves what the apply just ran, which an answered or
	// absent prompt already allowed.
	body := map[string]any{"state": "save", "auto-prompt": map[string]string{"ays": "ays_yes"}}
	if err := c.do(ctx, http.MethodPatch, revPath(RevApplied), nil, body, nil); err != nil {
		return &SaveError{Address: c.cfg.Address, Err: err}
	}
	return nil
}

// SaveError is an apply that succeeded, but whose configuration could not be saved: the
// switch runs it and would boot without it.
type SaveError struct {
	Address string
	Err     error
}

func (e *SaveError) Error() string {
	return fmt.Sprintf("nvue %s: the change is applied but not saved, so the switch would boot without it (auto-save is off): %v; "+
		"run nv config save on the switch, or turn auto-save on (nv set system config auto-save enable on)", e.Address, e.Err)
}

func (e *SaveError) Unwrap() error { return e.Err }

// detach deletes a revision that is not going to be applied (nv config detach), with its own
// short deadline: it runs after the caller's context may have ended.
func (c *Client) detach(rev string) {
	ctx, cancel := context.WithTimeout(context.Background(), c.cfg.RequestTimeout)
	defer cancel()
	_ = c.do(ctx, http.MethodDelete, revPath(rev), nil, nil, nil)
}
