package nvuetwin

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
)

// An apply runs asynchronously through the states NVUE reports for it. The PATCH that asks
// for it answers "apply" at once; the revision waits in "apply" while another revision is
// applying or waiting for its confirmation (queued), then passes checking, verifying,
// readying and reloading, each taking Options.StepTime on the twin's clock, and ends applied
// (applied_and_saved with auto-save on), invalid, ays_fail or apply_fail. With
// "state-controls": {"confirm": <seconds>} it waits in "confirm" after reloading, and rolls
// back to the configuration it replaced unless it is confirmed (state confirm_yes) in time,
// ending confirm_fail. The state names are those real clients wait on
// (entropia/gpn-noc-gpncfg gpncfg/deployment/__init__.py: NT_PREPROCESS, NT_RELOADING,
// NT_CONFIRM, NT_WAIT_FOR_TURN, and its apply_revision/confirm_revision bodies); the CLI's
// nv config apply --confirm rolls back "if you do not confirm" in time (nvue-reference
// Config-Commands.md, nv config apply).
var applySteps = []string{"checking", "verifying", "readying", "reloading"}

// Final states of an apply.
const (
	stateConfirm     = "confirm"
	stateConfirmFail = "confirm_fail"
)

// defaultStepTime is how long each state of an apply lasts by default: short, so a client
// polling every half second sees an apply end at its second read.
const defaultStepTime = 10 * time.Millisecond

func (t *Twin) now() time.Time {
	if t.opts.Now != nil {
		return t.opts.Now()
	}
	return time.Now()
}

func (t *Twin) stepTime() time.Duration {
	if t.opts.StepTime > 0 {
		return t.opts.StepTime
	}
	return defaultStepTime
}

// active reports whether r holds the switch: it is applying (past its turn) or waiting for its
// confirmation. A hung revision holds it for good.
func (r *revision) active() bool {
	return r.hung || slices.Contains(applySteps, r.state) || r.state == stateConfirm
}

// queue asks for rev to be applied: it waits in "apply" for its turn.
func (t *Twin) queue(rev *revision, ays string, confirm time.Duration) {
	t.queued++
	rev.state, rev.progress, rev.issues = "apply", "", nil
	rev.turn, rev.ays, rev.confirm = t.queued, ays, confirm
	rev.fault, t.fault = t.fault, ""
	if rev.fault == faultHang {
		rev.hung = true
	}
	t.advance()
}

// advance moves every revision on to where the twin's clock says it is. It runs under t.mu at
// the start of every request and accessor, so what a client reads is always current.
func (t *Twin) advance() {
	now := t.now()
	for {
		var cur, next *revision
		for _, r := range t.revs {
			switch {
			case r.active():
				cur = r
			case r.state == "apply" && r.turn > 0 && (next == nil || r.turn < next.turn):
				next = r
			}
		}
		if cur == nil && next != nil {
			next.state, next.since, next.turn = applySteps[0], now, 0
			continue
		}
		if cur == nil || cur.hung {
			return
		}
		if cur.state == stateConfirm {
			if now.Before(cur.deadline) {
				return
			}
			t.rollback(cur, "Rolled back: the apply was not confirmed in time")
			continue
		}
		at := cur.since.Add(t.stepTime())
		if now.Before(at) {
			return
		}
		t.step(cur, at)
	}
}

// step ends rev's current state at time at.
func (t *Twin) step(rev *revision, at time.Time) {
	rev.since = at
	switch rev.state {
	case "checking":
		if rev.ops != nil {
			rev.config = replay(t.applied, rev.ops)
		}
		if equalTrees(rev.config, t.applied) {
			rev.state, rev.progress = "applied", ""
			rev.issues = []issue{{Code: "no_config_diff", Message: "config apply executed with no config diff", Severity: "info", Data: map[string]any{}}}
			return
		}
		if problems := validate(rev.config, t.minor, hardware(t.applied, t.opts.Ports)); len(problems) > 0 {
			rev.state, rev.progress, rev.issues = "invalid", "Invalid config", problems
			return
		}
		rev.state = "verifying"
	case "verifying":
		if !t.prompt(rev, rev.ays) {
			return
		}
		rev.state = "readying"
	case "readying":
		if rev.fault == faultFail {
			rev.state, rev.progress = "apply_fail", "Apply failed"
			rev.issues = []issue{{Code: "apply_fail", Message: "switchd failed to apply the QoS configuration", Severity: "error", Data: map[string]any{}}}
			return
		}
		rev.state = "reloading"
	case "reloading":
		rev.before = t.applied
		t.applied = nvue.Clone(rev.config)
		t.applies++
		if rev.confirm > 0 {
			rev.state, rev.deadline = stateConfirm, at.Add(rev.confirm)
			return
		}
		t.finish(rev)
	}
}

// finish ends an applied revision: saved with auto-save on, with the error issue a fault asks.
func (t *Twin) finish(rev *revision) {
	rev.state, rev.progress, rev.issues = "applied", "", nil
	if t.minor >= 9 && !t.opts.AutoSaveOff { // auto-save is on by default from 5.9
		rev.state = "applied_and_saved"
		t.startup = nvue.Clone(t.applied)
	}
	if rev.fault == faultIssue {
		rev.issues = append(rev.issues, issue{Code: "apply_error", Message: "switchd could not program one of the ports", Severity: "error", Data: map[string]any{}})
	}
}

// rollback puts back the configuration rev replaced. The reason is the twin's wording: the docs
// print no REST answer of a rollback.
func (t *Twin) rollback(rev *revision, reason string) {
	t.applied = rev.before
	rev.before = nil
	rev.state, rev.progress = stateConfirmFail, reason
	rev.issues = []issue{{Code: "confirm_fail", Message: reason, Severity: "error", Data: map[string]any{}}}
}

// patchRevision changes a revision's state: apply a pending one (with an answer given ahead
// to a prompt and, optionally, a commit-confirm window in seconds), confirm or refuse an
// applied one waiting in "confirm", or save the applied revision.
func (t *Twin) patchRevision(w http.ResponseWriter, r *http.Request, id string, rev *revision) {
	var body struct {
		State         string            `json:"state"`
		AutoPrompt    map[string]string `json:"auto-prompt"`
		StateControls map[string]any    `json:"state-controls"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		writeError(w, http.StatusBadRequest, "the body is not a revision change: "+err.Error())
		return
	}
	switch body.State {
	case "save":
		if id != nvue.RevApplied {
			writeError(w, http.StatusBadRequest, "only the applied revision can be saved")
			return
		}
		t.startup = nvue.Clone(t.applied)
		writeJSON(w, http.StatusOK, map[string]any{"state": "save", "transition": map[string]any{"issue": map[string]any{}, "progress": ""}})
	case "apply":
		if rev.state != "pending" {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("revision %s is %s, not pending", id, rev.state))
			return
		}
		var confirm time.Duration
		if v, ok := body.StateControls["confirm"]; ok {
			f, isNumber := v.(float64)
			if !isNumber || f < 1 || f != math.Trunc(f) {
				writeError(w, http.StatusBadRequest, fmt.Sprintf("state-controls confirm %v is not a whole number of seconds", v))
				return
			}
			confirm = time.Duration(f) * time.Second
		}
		t.queue(rev, body.AutoPrompt["ays"], confirm)
		switch rev.fault {
		case fault504:
			writeError(w, http.StatusGatewayTimeout, "504 Gateway Time-out")
			return
		case faultDrop:
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
					return
				}
			}
		}
		writeJSON(w, http.StatusOK, map[string]any{"state": "apply", "transition": map[string]any{"issue": map[string]any{}, "progress": ""}})
	case "confirm_yes", "confirm_no":
		if rev.state != stateConfirm {
			writeError(w, http.StatusBadRequest, fmt.Sprintf("revision %s is %s, not waiting for a confirmation", id, rev.state))
			return
		}
		if body.State == "confirm_yes" {
			t.finish(rev)
		} else {
			t.rollback(rev, "Rolled back: the apply was refused at its confirmation")
		}
		t.advance()
		writeJSON(w, http.StatusOK, t.status(rev))
	default:
		writeError(w, http.StatusBadRequest, fmt.Sprintf("state %q: the twin models apply, confirm_yes, confirm_no and, on the applied revision, save", body.State))
	}
}
