package nvuetwin_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

// Item 8: an apply answers at once and runs through NVUE's states; a second one waits its
// turn; failures are issues of severity error.
func TestConformanceRevisionStates(t *testing.T) {
	t.Run("an apply passes through the documented states", func(t *testing.T) {
		// src: api Make a Configuration Change (the apply PATCH answers {"state": "apply",
		// "transition": {"issue": {}, "progress": ""}}; GET /revision/2 later "applied"); gpn
		// NT_PREPROCESS (checking, verifying, readying), NT_RELOADING (reloading),
		// NT_APPLIED; cfg nv config apply (5.9 and later save: applied_and_saved).
		s := newSwitch(t, nvuetwin.Options{})
		id := s.newRevision()
		s.stage(id, losslessPFC())
		s.apply(id, obj("auto-prompt", obj("ays", "ays_no")))
		seen, out := s.states(id)
		want := []string{"checking", "verifying", "readying", "reloading", "applied_and_saved"}
		if !slices.Equal(seen, want) {
			t.Errorf("states %v, want %v", seen, want)
		}
		wantEqual(t, "issues of a clean apply", lookup(out, "transition", "issue"), obj())
	})
	t.Run("a second apply waits in apply for its turn", func(t *testing.T) {
		// src: gpn NT_WAIT_FOR_TURN ("apply": the revision is waiting on other revisions) and
		// its "revision is being blocked by earlier revision, waiting".
		s := newSwitch(t, nvuetwin.Options{})
		first, second := s.newRevision(), s.newRevision()
		s.stage(first, losslessPFC())
		s.stage(second, obj("qos", obj("pfc-watchdog", obj("robustness", 5))))
		s.apply(first, nil)
		s.apply(second, nil)
		if st := lookup(s.get(revURL(second)), "state"); st != "apply" {
			t.Errorf("second revision is %v while the first applies, want apply (queued)", st)
		}
		_, out := s.states(first)
		wantState(t, out, "applied_and_saved")
		seen, out := s.states(second)
		wantState(t, out, "applied_and_saved")
		if seen[0] != "checking" && seen[0] != "apply" {
			t.Errorf("second revision's states %v", seen)
		}
		// Each revision is applied over the one before: the second holds the first's change.
		if lookup(s.get("/qos/pfc/ROCE?rev=applied&filled=false"), "cable-length") != 5.0 {
			t.Error("the second apply lost the first one's change")
		}
	})
	t.Run("the revision list shows every revision and its state", func(t *testing.T) {
		// src: gpn is_ready (GET /revision, each with a state; another revision blocking);
		// ans httpapi.py apply_config escapes "/" in revision ids (changeset/...).
		s := newSwitch(t, nvuetwin.Options{})
		other := s.tw.OperatorRevision("pending")
		if !strings.Contains(other, "/") {
			t.Fatalf("operator revision id %q: NVUE's CLI revisions are changeset/<user>/...", other)
		}
		if st := lookup(s.get("/revision"), other, "state"); st != "pending" {
			t.Errorf("GET /revision: %s is %v, want pending", other, st)
		}
		if st := lookup(s.get(revURL(other)), "state"); st != "pending" {
			t.Errorf("GET %s: state %v, want pending", revURL(other), st)
		}
	})
	t.Run("failure is an issue of severity error", func(t *testing.T) {
		// src: api Troubleshoot Configuration Changes (issue code, data, message, severity
		// "error"); dsx-ai-factory/infra-controller crates/nvue-client/src/types/revision.rs
		// apply_status (an error issue fails a revision whatever its state).
		s := newSwitch(t, nvuetwin.Options{})
		s.tw.ErrorIssueOnNextApply()
		_, out := s.change(losslessPFC(), nil)
		is := issues(out)
		if len(is) == 0 || is[len(is)-1]["severity"] != "error" {
			t.Errorf("issues %v, want one of severity error", is)
		}
	})
}

// Item 8: a user outside group nvapply reads but cannot change the configuration.
func TestConformanceNVApply(t *testing.T) {
	// src: api API-only User ("Add the user to nvapply group to make NVUE config changes");
	// api Use the API (403 responses until the cumulus password is changed).
	s := newSwitch(t, nvuetwin.Options{ViewerUsername: "viewer", ViewerPassword: "View3r!"})
	v := s.as("viewer", "View3r!")
	if code, _ := v.do(http.MethodGet, "/qos?rev=applied&filled=false", nil); code != http.StatusOK {
		t.Errorf("viewer GET: %d, want 200", code)
	}
	if code, _ := v.do(http.MethodPost, "/revision", obj()); code != http.StatusForbidden {
		t.Errorf("viewer POST /revision: %d, want 403", code)
	}
	id := s.newRevision()
	if code, _ := v.do(http.MethodPatch, "/"+revQuery(id), losslessPFC()); code != http.StatusForbidden {
		t.Errorf("viewer PATCH: %d, want 403", code)
	}
	if code, _ := s.as("viewer", "wrong").do(http.MethodGet, "/qos", nil); code != http.StatusUnauthorized {
		t.Errorf("a wrong password: %d, want 401", code)
	}
}

// Item 9: NVUE prompts only where it documents a prompt, and an unanswered prompt fails the
// apply; the answer is given only when the client asks for it.
func TestConformancePrompts(t *testing.T) {
	// src: api Troubleshoot Configuration Changes, Configuration Apply Fails with Warnings
	// ("if you change a file manually instead of using NVUE, you see a warning prompt and the
	// apply fails": ays_fail, client_timeout "Timeout while waiting for client response",
	// progress "Aborted apply after warnings"; the fix: "auto-prompt":{"ays": "ays_yes"});
	// ans httpapi.py apply_config (auto-prompt only with force).
	t.Run("no prompt for a QoS change", func(t *testing.T) {
		s := newSwitch(t, nvuetwin.Options{})
		_, out := s.change(losslessPFC(), nil)
		wantState(t, out, "applied_and_saved")
	})
	t.Run("a hand-edited file, unanswered", func(t *testing.T) {
		s := newSwitch(t, nvuetwin.Options{})
		if err := s.tw.EditByHand("/etc/cumulus/datapath/qos/qos_features.conf"); err != nil {
			t.Fatal(err)
		}
		_, out := s.change(losslessPFC(), nil)
		wantState(t, out, "ays_fail")
		is := issues(out)
		if lookup(out, "transition", "progress") != "Aborted apply after warnings" || len(is) != 1 ||
			is[0]["code"] != "client_timeout" || is[0]["message"] != "Timeout while waiting for client response" || is[0]["severity"] != "error" {
			t.Errorf("answer %v, want the guide's ays_fail", out)
		}
		if lookup(s.get("/qos/pfc?rev=applied&filled=false"), "ROCE") != nil {
			t.Error("an apply that failed at its prompt changed the applied configuration")
		}
		_, out = s.change(losslessPFC(), obj("auto-prompt", obj("ays", "ays_yes")))
		wantState(t, out, "applied_and_saved")
	})
}

// Item 12: with auto-save off an apply ends applied and reaches the startup configuration only
// when the applied revision is saved.
func TestConformanceSave(t *testing.T) {
	// src: api Save a Configuration (PATCH /nvue_v1/revision/applied {"state": "save",
	// "auto-prompt": {"ays": "ays_yes"}} answers {"state": "save", ...}); cfg nv config apply
	// (auto save on by default from 5.9; nv set system config auto-save enable).
	s := newSwitch(t, nvuetwin.Options{AutoSaveOff: true})
	_, out := s.change(losslessPFC(), nil)
	wantState(t, out, "applied")
	if lookup(s.get("/qos/pfc?rev=startup&filled=false"), "ROCE") != nil {
		t.Error("with auto-save off the apply reached the startup configuration")
	}
	code, out := s.do(http.MethodPatch, "/revision/applied", obj("state", "save", "auto-prompt", obj("ays", "ays_yes")))
	if code != http.StatusOK || lookup(out, "state") != "save" {
		t.Fatalf("save: %d %v", code, out)
	}
	if lookup(s.get("/qos/pfc/ROCE?rev=startup&filled=false"), "cable-length") != 5.0 {
		t.Error("the saved startup configuration lacks the change")
	}
	on := newSwitch(t, nvuetwin.Options{})
	on.change(losslessPFC(), nil)
	if lookup(on.get("/qos/pfc/ROCE?rev=startup&filled=false"), "cable-length") != 5.0 {
		t.Error("with auto-save on (5.9 and later) the apply did not reach the startup configuration")
	}
}

// Commit-confirm: an apply with "state-controls": {"confirm": N} waits in confirm and rolls back
// unless confirmed within N seconds.
func TestConformanceCommitConfirm(t *testing.T) {
	// src: gpn apply_revision ("state-controls": {"confirm": <minutes> * 60}), NT_CONFIRM,
	// confirm_revision ({"state": "confirm_yes"}), confirm_fail among its failures; cfg nv
	// config apply --confirm ("If you do not confirm within ten minutes, the configuration
	// rolls back automatically").
	confirm := obj("state-controls", obj("confirm", 60), "auto-prompt", obj("ays", "ays_no"))
	t.Run("confirmed in time", func(t *testing.T) {
		s := newSwitch(t, nvuetwin.Options{})
		id := s.newRevision()
		s.stage(id, losslessPFC())
		s.apply(id, confirm)
		_, out := s.states(id)
		wantState(t, out, "confirm")
		if lookup(s.get("/qos/pfc/ROCE?rev=applied&filled=false"), "cable-length") != 5.0 {
			t.Error("a revision waiting for its confirmation is not applied")
		}
		if lookup(s.get("/qos/pfc?rev=startup&filled=false"), "ROCE") != nil {
			t.Error("an unconfirmed apply was saved")
		}
		if code, out := s.do(http.MethodPatch, revURL(id), obj("state", "confirm_yes")); code != http.StatusOK {
			t.Fatalf("confirm_yes: %d %v", code, out)
		}
		wantState(t, s.get(revURL(id)), "applied_and_saved")
		s.clock.Add(time.Hour)
		if lookup(s.get("/qos/pfc/ROCE?rev=applied&filled=false"), "cable-length") != 5.0 {
			t.Error("a confirmed apply rolled back when its window passed")
		}
	})
	t.Run("not confirmed", func(t *testing.T) {
		s := newSwitch(t, nvuetwin.Options{})
		before := s.get("/?rev=applied&filled=false")
		id := s.newRevision()
		s.stage(id, losslessPFC())
		s.apply(id, confirm)
		_, out := s.states(id)
		wantState(t, out, "confirm")
		s.clock.Add(59 * time.Second)
		wantState(t, s.get(revURL(id)), "confirm")
		s.clock.Add(2 * time.Second)
		wantState(t, s.get(revURL(id)), "confirm_fail")
		wantEqual(t, "applied configuration after the rollback", s.get("/?rev=applied&filled=false"), before)
	})
	t.Run("a confirm window must be whole seconds", func(t *testing.T) {
		s := newSwitch(t, nvuetwin.Options{})
		id := s.newRevision()
		s.stage(id, losslessPFC())
		if code, _ := s.do(http.MethodPatch, revURL(id), obj("state", "apply", "state-controls", obj("confirm", "soon"))); code != http.StatusBadRequest {
			t.Errorf("confirm \"soon\": %d, want 400", code)
		}
	})
}

// Beyond the real clients: the provider's client refuses to apply while another revision is
// pending or applying on the switch, naming it, and sends nothing.
func TestConformanceRefusesBesideAnotherRevision(t *testing.T) {
	// src: gpn is_ready (refuses while another revision is in a blocking state, naming it).
	for _, state := range []string{"pending", "apply", "confirm"} {
		t.Run(state, func(t *testing.T) {
			s := newSwitch(t, nvuetwin.Options{})
			other := s.tw.OperatorRevision(state)
			c, err := nvue.Dial(nvue.Config{Address: s.tw.Addr(), Username: "cumulus", Password: "Passw0rd!", Insecure: true, PollInterval: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			_, err = c.Transaction(context.Background(), losslessPFC())
			var be *nvue.BusyError
			if !errors.As(err, &be) || !strings.Contains(err.Error(), other) {
				t.Errorf("transaction beside %s (%s): %v, want a BusyError naming it", other, state, err)
			}
			if revs, patches := s.tw.Requests(); revs != 0 || patches != 0 {
				t.Errorf("the refused transaction created %d revisions and staged %d PATCHes", revs, patches)
			}
		})
	}
}

// The answers that changed between releases, for the requests the provider sends.
func TestConformanceAnswersByRelease(t *testing.T) {
	// src: api Supported HTTP Methods, notes: "In Cumulus Linux 5.9 and earlier, the REST API
	// PATCH response returns the full state of the NVUE system ... In Cumulus Linux 5.10 and
	// later, the REST API PATCH response returns only the resulting configuration change";
	// "In Cumulus Linux 5.10 and later, DELETE responses return a 204(No Content) status
	// code. In Cumulus Linux 5.9 and earlier, DELETE responses return 200 with an empty json
	// body ({})".
	for _, c := range []struct {
		release    string
		fullPatch  bool
		deleteCode int
	}{{"5.9", true, http.StatusOK}, {"5.10", false, http.StatusNoContent}, {"5.14", false, http.StatusNoContent}} {
		t.Run(c.release, func(t *testing.T) {
			s := newSwitch(t, nvuetwin.Options{Release: c.release})
			id := s.newRevision()
			code, out := s.do(http.MethodPatch, "/qos/pfc-watchdog"+revQuery(id), obj("robustness", 5))
			if code != http.StatusOK {
				t.Fatalf("PATCH: %d %v", code, out)
			}
			full := lookup(out, "qos") != nil
			if full != c.fullPatch {
				t.Errorf("PATCH answer %v: full configuration %v, want %v", out, full, c.fullPatch)
			}
			if !c.fullPatch {
				wantEqual(t, "PATCH answer", out, obj("robustness", 5))
			}
			code, out = s.do(http.MethodDelete, "/qos/pfc-watchdog/robustness"+revQuery(id), nil)
			if code != c.deleteCode || c.deleteCode == http.StatusOK && !equalEmpty(out) {
				t.Errorf("DELETE: %d %v, want %d", code, out, c.deleteCode)
			}
		})
	}
}

func equalEmpty(v any) bool { m, ok := v.(map[string]any); return ok && len(m) == 0 }
