package nvuetwin_test

// The NVUE conformance suite: what a Cumulus Linux 5.9 to 5.14 switch does at its REST API,
// each case written from NVIDIA's published sources or a real client, named in its src, and
// run against the twin over HTTPS as a client would see it. The twin's own code is not a
// source here: where it disagreed, the twin was fixed.
//
// Sources (CumulusNetworks/docs unless named):
//   api:  content/cumulus-linux-514/System-Configuration/NVIDIA-User-Experience-NVUE/NVUE-API.md
//   qos:  content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md
//   roce: content/cumulus-linux-514/Layer-1-and-Switch-Ports/Quality-of-Service/RDMA-over-Converged-Ethernet-RoCE.md
//   cfg:  content/nvue-reference/Config-Commands.md
//   spec: static/cumulus-linux-53/api/openapi.json (x-defs named in the case)
//   gpn:  entropia/gpn-noc-gpncfg gpncfg/deployment/__init__.py (states, state-controls)
//   ans:  stackhpc/ansible-nvidia-nvue plugins/httpapi/httpapi.py, plugins/modules/qos.py

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/nvuetwin"
)

// clock is a clock the suite moves by hand: each state of an apply lasts one step.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const step = time.Second

// sw is one switch under test and a raw HTTPS client of its API.
type sw struct {
	t     *testing.T
	tw    *nvuetwin.Twin
	clock *clock
	http  *http.Client
	base  string
	user  string
	pass  string
}

func newSwitch(t *testing.T, opts nvuetwin.Options) *sw {
	t.Helper()
	c := &clock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	opts.Ports, opts.Username, opts.Password = 8, "cumulus", "Passw0rd!"
	opts.Now, opts.StepTime = c.Now, step
	if opts.Release == "" {
		opts.Release = "5.14"
	}
	tw, ca, err := nvuetwin.StartWithCA(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	pem, err := os.ReadFile(ca)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	t.Cleanup(client.CloseIdleConnections)
	return &sw{t: t, tw: tw, clock: c, http: client, base: "https://" + tw.Addr() + "/nvue_v1", user: "cumulus", pass: "Passw0rd!"}
}

// as returns the switch seen with another login.
func (s *sw) as(user, pass string) *sw { c := *s; c.user, c.pass = user, pass; return &c }

// do sends one request; path is below /nvue_v1 and may carry a query.
func (s *sw) do(method, path string, body any) (int, any) {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		r = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		s.t.Fatal(err)
	}
	req.SetBasicAuth(s.user, s.pass)
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.http.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out any
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := json.Unmarshal(raw, &out); err != nil {
			s.t.Fatalf("%s %s: answer %q is not JSON: %v", method, path, raw, err)
		}
	}
	return resp.StatusCode, out
}

func (s *sw) get(path string) any {
	s.t.Helper()
	code, out := s.do(http.MethodGet, path, nil)
	if code != http.StatusOK {
		s.t.Fatalf("GET %s: %d %v", path, code, out)
	}
	return out
}

// newRevision is POST /revision: {"<id>": {"state": "pending", ...}} (api, Make a Configuration Change).
func (s *sw) newRevision() string {
	s.t.Helper()
	code, out := s.do(http.MethodPost, "/revision", map[string]any{})
	m, _ := out.(map[string]any)
	if code != http.StatusOK || len(m) != 1 {
		s.t.Fatalf("POST /revision: %d %v", code, out)
	}
	for id, st := range m {
		if state := lookup(st, "state"); state != "pending" {
			s.t.Fatalf("a new revision is %v, want pending", state)
		}
		return id
	}
	return ""
}

func revURL(id string) string   { return "/revision/" + url.PathEscape(id) }
func revQuery(id string) string { return "?rev=" + url.QueryEscape(id) }

// stage PATCHes the root of revision id and fails the test unless it is taken.
func (s *sw) stage(id string, patch any) {
	s.t.Helper()
	if code, out := s.do(http.MethodPatch, "/"+revQuery(id), patch); code != http.StatusOK {
		s.t.Fatalf("PATCH %v: %d %v", patch, code, out)
	}
}

// applyBody is the guide's apply (api, Replace an Entire Configuration step 5), with extra
// fields merged in.
func (s *sw) apply(id string, extra map[string]any) {
	s.t.Helper()
	body := map[string]any{"state": "apply"}
	for k, v := range extra {
		body[k] = v
	}
	code, out := s.do(http.MethodPatch, revURL(id), body)
	if code != http.StatusOK || lookup(out, "state") != "apply" {
		s.t.Fatalf("apply %s: %d %v, want 200 with state apply", id, code, out)
	}
}

// states walks revision id with the clock until it leaves the states an apply passes through,
// and returns every state read on the way and the last answer.
func (s *sw) states(id string) ([]string, any) {
	s.t.Helper()
	var seen []string
	for range 20 {
		out := s.get(revURL(id))
		st, _ := lookup(out, "state").(string)
		if len(seen) == 0 || seen[len(seen)-1] != st {
			seen = append(seen, st)
		}
		switch st {
		case "apply", "checking", "verifying", "readying", "reloading":
			s.clock.Add(step)
			continue
		}
		return seen, out
	}
	s.t.Fatalf("revision %s never left the apply states: %v", id, seen)
	return nil, nil
}

// change stages patch in a new revision, applies it and returns the revision's final answer.
func (s *sw) change(patch any, extra map[string]any) (string, any) {
	s.t.Helper()
	id := s.newRevision()
	s.stage(id, patch)
	s.apply(id, extra)
	_, out := s.states(id)
	return id, out
}

func lookup(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// issues returns a revision answer's issues in order of their keys.
func issues(out any) []map[string]any {
	m, _ := lookup(out, "transition", "issue").(map[string]any)
	var list []map[string]any
	for i := range len(m) {
		if is, ok := m[fmt.Sprint(i)].(map[string]any); ok {
			list = append(list, is)
		}
	}
	return list
}

func obj(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].(string)
		m[k] = kv[i+1]
	}
	return m
}

var member = map[string]any{}

// losslessPFC is the QoS guide's PFC setup: memory for the lossless pool (Flow Control
// Buffers: default-lossless and default-lossy 50 % each) and a PFC profile naming its priority.
func losslessPFC() map[string]any {
	return obj("qos", obj(
		"traffic-pool", obj("default-lossless", obj("memory-percent", 50), "default-lossy", obj("memory-percent", 50)),
		"pfc", obj("ROCE", obj("switch-priority", obj("3", member), "cable-length", 5))))
}

// wantInvalid checks an apply NVUE refused: state invalid, progress "Invalid config", an
// issue config_invalid of severity error whose reason is want, at location, and whose
// message is "Config invalid at <location>: <reason>" (api, Troubleshoot Configuration
// Changes, Configuration Fails Because of a Dependency).
func wantInvalid(t *testing.T, s *sw, out any, location, reason string) {
	t.Helper()
	if lookup(out, "state") != "invalid" || lookup(out, "transition", "progress") != "Invalid config" {
		t.Fatalf("answer %v, want state invalid, progress Invalid config", out)
	}
	for _, is := range issues(out) {
		if lookup(is, "data", "reason") == reason && lookup(is, "data", "location") == location {
			if is["code"] != "config_invalid" || is["severity"] != "error" || is["message"] != "Config invalid at "+location+": "+reason {
				t.Errorf("issue %v: want code config_invalid, severity error, message Config invalid at %s: %q", is, location, reason)
			}
			return
		}
	}
	t.Errorf("issues %v: none at %s with reason %q", issues(out), location, reason)
	_ = s
}

func wantState(t *testing.T, out any, want string) {
	t.Helper()
	if got := lookup(out, "state"); got != want {
		t.Fatalf("revision %v, want state %s", out, want)
	}
}

func wantEqual(t *testing.T, what string, got, want any) {
	t.Helper()
	gj, _ := json.Marshal(got)
	wj, _ := json.Marshal(want)
	if !bytes.Equal(gj, wj) {
		t.Errorf("%s = %s, want %s", what, gj, wj)
	}
}
