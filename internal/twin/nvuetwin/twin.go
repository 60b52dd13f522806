// Package nvuetwin is a twin of an NVIDIA Cumulus Linux switch's NVUE REST API, for tests and
// users' CI: HTTPS with basic authentication on loopback, the configuration tree of a Spectrum-4
// switch seeded with Cumulus 5.x defaults, and the revision state machine (a revision is a copy
// of the applied configuration; PATCH and DELETE stage changes in it; an apply validates the
// whole revision and either replaces the applied configuration with it or leaves it untouched).
//
// Modelled from the Cumulus Linux 5.9 to 5.14 user guides ("NVUE API", "Quality of Service",
// "RDMA over Converged Ethernet - RoCE"; CumulusNetworks/docs) and real API output in NVIDIA's
// automation workshop (CL 5.5.1). What the docs leave open the twin decides strictly: unknown
// keys, out-of-range values and references to missing profiles or interfaces make the revision
// invalid.
package nvuetwin

import (
	"crypto/subtle"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/nvue"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// Options configure a twin.
type Options struct {
	// Release is the Cumulus Linux release, "5.9" to "5.14". Default DefaultRelease.
	Release string
	// Ports is how many front-panel ports exist, swp1..swpN. Default 32.
	Ports int
	// Username and Password are required with basic authentication on every request.
	Username, Password string
	// TLS serves HTTPS; required, as on the switch.
	TLS *tls.Config
	// AutoSaveOff turns auto-save off (nv set system config auto-save enable off): an apply
	// then ends "applied" and reaches the startup configuration only when the applied
	// revision is saved. From 5.9 it is on by default (NVUE command reference, nv config
	// apply); before, off.
	AutoSaveOff bool
	// Now is the twin's clock (default time.Now). Each state of an apply lasts StepTime on it,
	// and a commit-confirm's window runs on it: tests that walk an apply through its states or
	// let a confirmation lapse give the twin a clock they move (lifecycle.go).
	Now func() time.Time
	// StepTime is how long each state of an apply lasts (checking, verifying, readying,
	// reloading). Default 10 ms.
	StepTime time.Duration
	// ViewerUsername and ViewerPassword, when set, are a second user outside group nvapply:
	// it reads, and every change it asks for is answered 403 ("Add the user to nvapply group
	// to make NVUE config changes", NVUE API guide 5.14, API-only User).
	ViewerUsername, ViewerPassword string
}

// DefaultRelease is the release a twin runs by default.
const DefaultRelease = "5.12"

var releases = []string{"5.9", "5.10", "5.11", "5.12", "5.13", "5.14"}

// Twin is one switch. Its methods are safe for concurrent use.
type Twin struct {
	opts Options
	// minor is the release's minor number (12 for 5.12).
	minor int

	mu      sync.Mutex
	applied nvue.Tree
	// startup is what the switch boots with (/etc/nvue.d/startup.yaml).
	startup nvue.Tree
	revs    map[string]*revision
	nextRev int
	applies int
	// queued numbers the revisions asked to apply, in the order they wait for their turn.
	queued int
	// revisions and patches count the revisions created and the PATCHes that staged changes.
	revisions, patches int
	// fault is what the next apply does instead of succeeding: faultFail, faultHang or
	// faultDrop, fault504; "" applies normally.
	fault string

	// counters are the ports' operational QoS counters (counters.go), made on first use.
	counters map[string]*portCounters
	// handEdited are files NVUE manages that someone edited outside NVUE (EditByHand),
	// which the next apply prompts about (prompt.go).
	handEdited []string

	srv  *http.Server
	addr string
}

type revision struct {
	state    string
	config   nvue.Tree
	issues   []issue
	progress string
	// turn is the revision's place in the queue while it waits in state apply; 0 otherwise.
	turn int
	// since is when the current state of an apply began; deadline when its confirmation
	// window ends.
	since, deadline time.Time
	// ays is the answer given ahead to a prompt; confirm the commit-confirm window asked for.
	ays     string
	confirm time.Duration
	// ops are the changes staged, in order: an apply replays them over the configuration
	// applied when it runs, so a revision created before another one applied keeps that
	// one's change (NVUE revisions are changesets over their parent, the applied revision:
	// "additional-data": {"parent-revision-id": "applied"},
	// dsx-ai-factory/infra-controller crates/nvue-client/src/types/revision.rs).
	ops []stagedOp
	// fault is what the twin was told to do to this apply; hung an apply that never moves on.
	fault string
	hung  bool
	// before is the applied configuration this revision replaced, kept until it is confirmed.
	before nvue.Tree
}

type issue struct {
	Code     string         `json:"code"`
	Data     map[string]any `json:"data"`
	Message  string         `json:"message"`
	Severity string         `json:"severity"`
	// schema marks a violation of the API's schema (an unknown key, a value of the wrong type
	// or outside its enum or range), which the API refuses at PATCH; the rest are rules an
	// apply checks.
	schema bool
}

// New returns a stopped twin.
func New(opts Options) (*Twin, error) {
	if opts.Release == "" {
		opts.Release = DefaultRelease
	}
	if !slices.Contains(releases, opts.Release) {
		return nil, fmt.Errorf("nvuetwin: release %q: use one of %s", opts.Release, strings.Join(releases, ", "))
	}
	if opts.Ports == 0 {
		opts.Ports = 32
	}
	if opts.Ports < 1 || opts.Ports > 64 {
		return nil, fmt.Errorf("nvuetwin: ports %d out of range 1..64", opts.Ports)
	}
	if opts.Username == "" || opts.Password == "" || opts.TLS == nil {
		return nil, errors.New("nvuetwin: a username, a password and TLS are required, as on a switch")
	}
	minor, _ := strconv.Atoi(strings.TrimPrefix(opts.Release, "5."))
	applied := seed(opts.Release)
	return &Twin{opts: opts, minor: minor, applied: applied, startup: nvue.Clone(applied), revs: map[string]*revision{}, nextRev: 1}, nil
}

// Start serves on addr ("127.0.0.1:0" when empty) and returns the address bound.
func (t *Twin) Start(addr string) (string, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", err
	}
	t.srv = &http.Server{Handler: http.HandlerFunc(t.serve), TLSConfig: t.opts.TLS.Clone()}
	go func() { _ = t.srv.ServeTLS(l, "", "") }()
	t.addr = l.Addr().String()
	return t.addr, nil
}

// Stop closes the server.
func (t *Twin) Stop() {
	if t.srv != nil {
		_ = t.srv.Close()
	}
}

// Applied returns a copy of the applied configuration.
func (t *Twin) Applied() nvue.Tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance()
	return nvue.Clone(t.applied)
}

// SetApplied changes the applied configuration out of band at path, as an operator's nv set
// and nv config apply would: use it to create drift. A nil value unsets.
func (t *Twin) SetApplied(path string, v any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := nvue.Path(path)
	if v == nil {
		if parent := nvue.Object(t.applied, keys[:len(keys)-1]...); parent != nil {
			delete(parent, keys[len(keys)-1])
		}
		return
	}
	nvue.Set(t.applied, v, keys...)
}

// Faults the next apply can be given.
const (
	faultFail  = "fail"
	faultHang  = "hang"
	faultDrop  = "drop"
	fault504   = "504"
	faultIssue = "issue"
)

// ErrorIssueOnNextApply applies the next revision and ends it "applied" with an issue of
// severity error, a failure NVUE reports under a state that reads as success.
func (t *Twin) ErrorIssueOnNextApply() { t.setFault(faultIssue) }

// FailNextApply makes the next apply end in apply_fail with an issue, applying nothing, as
// when switchd refuses the new configuration.
func (t *Twin) FailNextApply() { t.setFault(faultFail) }

// HangNextApply leaves the next revision in state apply for good, applying nothing.
func (t *Twin) HangNextApply() { t.setFault(faultHang) }

// DropAfterNextApply applies the next revision and then drops the connection before answering,
// as a switch does when the apply restarts the management interface.
func (t *Twin) DropAfterNextApply() { t.setFault(faultDrop) }

// GatewayTimeoutAfterNextApply applies the next revision and answers its apply request with
// 504, as the nginx in front of nvued does when nvued is slower than its proxy timeout.
func (t *Twin) GatewayTimeoutAfterNextApply() { t.setFault(fault504) }

func (t *Twin) setFault(f string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fault = f
}

// Applies counts the revisions applied.
func (t *Twin) Applies() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance()
	return t.applies
}

// Requests returns how many revisions were created and how many PATCHes staged changes.
func (t *Twin) Requests() (revisions, patches int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.revisions, t.patches
}

// OperatorRevision leaves a revision of another session in state ("pending": an operator's
// nv set not yet applied; "apply": one applying; "confirm": one applied with nv config apply
// --confirm and not confirmed yet) and returns its id.
func (t *Twin) OperatorRevision(state string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	id := "changeset/operator/" + strconv.Itoa(t.nextRev)
	t.nextRev++
	// One applying holds the switch for good, as a hung apply does; one waiting for its
	// confirmation holds it for the CLI's default window (nvue-reference Config-Commands.md).
	rev := &revision{state: state, config: nvue.Clone(t.applied), hung: state == "apply"}
	if state == stateConfirm {
		rev.before, rev.deadline = nvue.Clone(t.applied), t.now().Add(10*time.Minute)
	}
	t.revs[id] = rev
	return id
}

// Detach drops a revision, as nv config detach does.
func (t *Twin) Detach(id string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.revs, id)
}

// Startup returns a copy of the startup configuration, what the switch boots with.
func (t *Twin) Startup() nvue.Tree {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance()
	return nvue.Clone(t.startup)
}

// Revisions returns the ids of the revisions that exist, applied ones included.
func (t *Twin) Revisions() map[string]string {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance()
	out := map[string]string{}
	for id, r := range t.revs {
		out[id] = r.state
	}
	return out
}

func (t *Twin) serve(w http.ResponseWriter, r *http.Request) {
	user, pass, ok := r.BasicAuth()
	same := func(a, b string) bool { return b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }
	viewer := same(user, t.opts.ViewerUsername) && same(pass, t.opts.ViewerPassword)
	if !ok || !viewer && (!same(user, t.opts.Username) || !same(pass, t.opts.Password)) {
		writeError(w, http.StatusUnauthorized, "Unauthorized")
		return
	}
	if viewer && r.Method != http.MethodGet {
		writeError(w, http.StatusForbidden, "Forbidden: "+user+" is not in group nvapply")
		return
	}
	path, ok := strings.CutPrefix(r.URL.Path, "/nvue_v1")
	if !ok {
		writeError(w, http.StatusNotFound, "Not Found")
		return
	}
	path = strings.Trim(path, "/")
	t.mu.Lock()
	defer t.mu.Unlock()
	t.advance()
	switch {
	case path == "revision" && r.Method == http.MethodPost:
		t.createRevision(w)
	case path == "revision" && r.Method == http.MethodGet:
		all := map[string]any{}
		for id, rev := range t.revs {
			all[id] = t.status(rev)
		}
		writeJSON(w, http.StatusOK, all)
	case strings.HasPrefix(path, "revision/"):
		t.revisionResource(w, r, strings.TrimPrefix(path, "revision/"))
	case r.Method == http.MethodGet:
		t.get(w, r, path)
	case r.Method == http.MethodPatch || r.Method == http.MethodDelete:
		t.stage(w, r, path)
	default:
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError answers in the problem+json shape the API's framework (connexion) uses.
func writeError(w http.ResponseWriter, status int, detail string) {
	writeJSON(w, status, map[string]any{"status": status, "title": http.StatusText(status), "detail": detail, "type": "about:blank"})
}

func (t *Twin) status(r *revision) map[string]any {
	issues := map[string]any{}
	for i, is := range r.issues {
		issues[strconv.Itoa(i)] = is
	}
	return map[string]any{"state": r.state, "transition": map[string]any{"issue": issues, "progress": r.progress}}
}

func (t *Twin) createRevision(w http.ResponseWriter) {
	id := strconv.Itoa(t.nextRev)
	t.nextRev++
	t.revisions++
	r := &revision{state: "pending", config: nvue.Clone(t.applied)}
	t.revs[id] = r
	writeJSON(w, http.StatusOK, map[string]any{id: t.status(r)})
}

func (t *Twin) revisionResource(w http.ResponseWriter, r *http.Request, id string) {
	rev, ok := t.revs[id]
	if id == nvue.RevApplied {
		rev, ok = &revision{state: "applied", config: t.applied}, true
	}
	if !ok {
		writeError(w, http.StatusNotFound, "The requested item does not exist.")
		return
	}
	switch r.Method {
	case http.MethodGet:
		writeJSON(w, http.StatusOK, t.status(rev))
	case http.MethodDelete:
		delete(t.revs, id)
		t.deleted(w)
	case http.MethodPatch:
		t.patchRevision(w, r, id, rev)
	default:
		writeError(w, http.StatusMethodNotAllowed, "Method Not Allowed")
	}
}

// deleted answers a DELETE: 204 from 5.10, 200 with {} before (NVUE API guide).
func (t *Twin) deleted(w http.ResponseWriter) {
	if t.minor >= 10 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

func equalTrees(a, b nvue.Tree) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// get reads the tree at path from the applied configuration or a revision.
func (t *Twin) get(w http.ResponseWriter, r *http.Request, path string) {
	tree := t.applied
	rev := r.URL.Query().Get("rev")
	if rev == "" || rev == nvue.RevOperational {
		if v, found, ok := t.operational(path); ok {
			if !found {
				writeError(w, http.StatusNotFound, "The requested item does not exist.")
				return
			}
			writeJSON(w, http.StatusOK, v)
			return
		}
	}
	switch rev {
	case "", nvue.RevApplied, nvue.RevOperational:
	case "startup":
		tree = t.startup
	default:
		rv, ok := t.revs[rev]
		if !ok {
			writeError(w, http.StatusNotFound, "The requested item does not exist.")
			return
		}
		tree = rv.config
	}
	if r.URL.Query().Get("filled") != "false" {
		tree = filled(tree)
	}
	if rev == "" || rev == nvue.RevOperational {
		tree = withRoCEOperational(tree, t.applied, t.minor)
	}
	if path == "" {
		out := nvue.Clone(tree)
		out["header"] = map[string]any{"model": "SN5600", "nvue-api-version": "nvue_v1", "rev-id": 1.0, "version": "Cumulus Linux " + t.opts.Release + ".0"}
		writeJSON(w, http.StatusOK, out)
		return
	}
	if path == "system/version" && t.minor < 10 { // nv show system version is new in 5.10
		writeError(w, http.StatusNotFound, "The requested item does not exist.")
		return
	}
	v, ok := nvue.Lookup(tree, nvue.Path(path)...)
	if !ok {
		writeError(w, http.StatusNotFound, "The requested item does not exist.")
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// stage applies a PATCH (merge) or DELETE to a pending revision.
func (t *Twin) stage(w http.ResponseWriter, r *http.Request, path string) {
	rev, ok := t.revs[r.URL.Query().Get("rev")]
	if !ok {
		writeError(w, http.StatusBadRequest, "a change needs ?rev=<a pending revision>")
		return
	}
	if rev.state != "pending" {
		writeError(w, http.StatusBadRequest, "revision is "+rev.state+", not pending")
		return
	}
	keys := []string{}
	if path != "" {
		keys = nvue.Path(path)
	}
	if r.Method == http.MethodDelete {
		rev.ops = append(rev.ops, stagedOp{keys: keys, remove: true})
		removeAt(rev.config, keys)
		t.deleted(w)
		return
	}
	t.patches++
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	patch, err := nvue.DecodeTree(raw)
	if err != nil {
		writeError(w, http.StatusBadRequest, "the body is not a JSON object: "+err.Error())
		return
	}
	// "The input payload in a PATCH request can have either a set or unset json object for the
	// same resource, but not both" (5.14 NVUE API guide, Supported HTTP Methods): the twin
	// refuses any PATCH that holds both, the strictest reading.
	if sets, unsets := patchKinds(patch); sets && unsets {
		writeError(w, http.StatusBadRequest, "a PATCH can set or unset, not both: its order is not deterministic and not supported")
		return
	}
	// A PATCH below the root creates the objects on the way, as nv set does; it cannot go
	// through a value. It is merged into a copy, which the schema check below reads.
	staged := nvue.Clone(rev.config)
	target, blocked := objectAt(staged, keys)
	if blocked != "" {
		writeError(w, http.StatusBadRequest, "cannot patch into "+path+": "+blocked+" is a value")
		return
	}
	// "when using well-named interface names like swp1, NVUE configures the type
	// automatically" and answers with it (NVUE API guide 5.14, Supported HTTP Methods).
	named := inferTypes(keys, patch)
	nvue.Merge(target, patch)
	// The API validates a PATCH against its OpenAPI schema (additionalProperties false, enums,
	// types and ranges: NVUE OpenAPI 5.3) and answers 400 before anything is staged; rules
	// between objects wait for the apply.
	var refused []string
	for _, is := range validate(staged, t.minor, hardware(t.applied, t.opts.Ports)) {
		if is.schema {
			refused = append(refused, is.Message)
		}
	}
	if len(refused) > 0 {
		writeError(w, http.StatusBadRequest, strings.Join(refused, "; "))
		return
	}
	rev.config = staged
	rev.ops = append(rev.ops, stagedOp{keys: keys, patch: nvue.Clone(patch)})
	if t.minor >= 10 {
		writeJSON(w, http.StatusOK, named) // 5.10 and later answer with the change
		return
	}
	writeJSON(w, http.StatusOK, rev.config) // 5.9 answers with the whole configuration
}

// StartWithCA starts a twin on loopback serving a certificate from a fresh CA, whose PEM it
// writes to dir, as a switch with an imported certificate. It returns the running twin and the
// CA file a client verifies it with; opts.TLS is set here.
func StartWithCA(dir string, opts Options) (tw *Twin, caFile string, err error) {
	pki, err := switchtwin.NewPKI("nvuetwin")
	if err != nil {
		return nil, "", err
	}
	files, err := pki.WriteFiles(dir)
	if err != nil {
		return nil, "", err
	}
	opts.TLS = pki.ServerTLS(false)
	if tw, err = New(opts); err != nil {
		return nil, "", err
	}
	if _, err = tw.Start(""); err != nil {
		return nil, "", err
	}
	return tw, files.CA, nil
}

// Addr returns the address the twin listens on.
func (t *Twin) Addr() string { return t.addr }

// patchKinds reports whether patch sets something (a value or a member) and whether it
// removes something (a null).
func patchKinds(patch nvue.Tree) (sets, unsets bool) {
	for _, v := range patch {
		switch pv := v.(type) {
		case nil:
			unsets = true
		case map[string]any:
			if len(pv) == 0 {
				sets = true
				continue
			}
			s, u := patchKinds(pv)
			sets, unsets = sets || s, unsets || u
		default:
			sets = true
		}
	}
	return sets, unsets
}

// swpName is a well-named switch port.
var swpName = regexp.MustCompile(`^swp[0-9]+(s[0-9]+)?$`)

// inferTypes adds "type": "swp" to each switch port patch (at keys) creates or changes without
// a type, and returns the patch as NVUE answers it.
func inferTypes(keys []string, patch nvue.Tree) nvue.Tree {
	var ifaces nvue.Tree
	switch {
	case len(keys) == 0:
		ifaces = nvue.Object(patch, "interface")
	case len(keys) == 1 && keys[0] == "interface":
		ifaces = patch
	case len(keys) == 2 && keys[0] == "interface" && swpName.MatchString(keys[1]):
		if _, typed := patch["type"]; !typed {
			patch["type"] = "swp"
		}
		return patch
	}
	for name, v := range ifaces {
		if m, ok := v.(map[string]any); ok && swpName.MatchString(name) {
			if _, typed := m["type"]; !typed {
				m["type"] = "swp"
			}
		}
	}
	return patch
}

// stagedOp is one PATCH (a merge of patch at keys) or DELETE (of keys) staged in a revision.
type stagedOp struct {
	keys   []string
	patch  nvue.Tree
	remove bool
}

// removeAt deletes what is at keys in cfg; the root empties it.
func removeAt(cfg nvue.Tree, keys []string) {
	if len(keys) == 0 {
		clear(cfg)
		return
	}
	if parent := nvue.Object(cfg, keys[:len(keys)-1]...); parent != nil {
		delete(parent, keys[len(keys)-1])
	}
}

// replay returns base with ops applied in order. A merge that would go through a value is
// left out, as its PATCH was refused.
func replay(base nvue.Tree, ops []stagedOp) nvue.Tree {
	cfg := nvue.Clone(base)
	for _, op := range ops {
		if op.remove {
			removeAt(cfg, op.keys)
			continue
		}
		if target, blocked := objectAt(cfg, op.keys); blocked == "" {
			nvue.Merge(target, nvue.Clone(op.patch))
		}
	}
	return cfg
}

// objectAt returns the object of tree at keys, creating the objects on the way as nv set
// does; blocked names the key whose value is not an object, which a PATCH cannot go through.
func objectAt(tree nvue.Tree, keys []string) (target nvue.Tree, blocked string) {
	target = tree
	for _, k := range keys {
		switch next := target[k].(type) {
		case map[string]any:
			target = next
		case nil:
			created := nvue.Tree{}
			target[k] = created
			target = created
		default:
			return nil, k
		}
	}
	return target, ""
}
