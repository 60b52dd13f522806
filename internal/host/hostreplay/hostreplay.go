// Package hostreplay records what a host answers to the bootstrapper and replays it without
// the host: the fast test tier's stand-in for SSH. A Recorder wraps a real host.Runner (a
// host twin, whose tools print the captures under host/facts/testdata) and keeps every call
// with its answer; a Player answers the same calls, in the same order, from the recording
// and keeps the calls it got, so a test can assert what was run. A call the recording does
// not hold fails, naming the command: what the provider runs changed, and the recording is
// made again from the twins.
//
// A recording holds no secret of a real host: it is made against twins with test
// credentials, and each gather's random nonce is stored as {{nonce}}.
package hostreplay

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"sync"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Op is the Runner method of a call.
type Op string

// The Runner methods.
const (
	OpRun   Op = "run"
	OpWrite Op = "write"
	OpRead  Op = "read"
)

// Call is one Runner call and the host's answer.
type Call struct {
	Op Op `json:"op"`
	// Command is the rendered command line of a run.
	Command string `json:"command,omitempty"`
	// Path is the file of a write or a read.
	Path  string `json:"path,omitempty"`
	Sudo  bool   `json:"sudo,omitempty"`
	Stdin string `json:"stdin,omitempty"`
	// Data is what a write wrote, with its mode and owner.
	Data  string      `json:"data,omitempty"`
	Mode  fs.FileMode `json:"mode,omitempty"`
	Owner string      `json:"owner,omitempty"`
	// Stdout, Stderr and Exit are a run's result; Stdout is also what a read returned.
	Stdout string `json:"stdout,omitempty"`
	Stderr string `json:"stderr,omitempty"`
	Exit   int    `json:"exit,omitempty"`
	// Failure is the error the call returned, by kind: "command" (an ssh.CommandError of
	// Exit and Stderr), "missing" (a read of a file that does not exist), or "other" with
	// its text in Stderr.
	Failure string `json:"failure,omitempty"`
}

// key is what a replayed call must match: everything the caller sent.
func (c Call) key() string {
	return strings.Join([]string{string(c.Op), c.Command, c.Path, fmt.Sprint(c.Sudo), c.Stdin, c.Data, c.Mode.String(), c.Owner}, "\x00")
}

// describe names a call in an error.
func (c Call) describe() string {
	if c.Op == OpRun {
		cmd := c.Command
		if len(cmd) > 300 {
			cmd = cmd[:300] + "…"
		}
		return fmt.Sprintf("run %q (sudo %v)", cmd, c.Sudo)
	}
	return fmt.Sprintf("%s %s (sudo %v)", c.Op, c.Path, c.Sudo)
}

// nonceRE finds a gather nonce: 128 random bits in hex (host/gather_script.go).
var nonceRE = regexp.MustCompile(`\b[0-9a-f]{32}\b`)

const nonceMark = "{{nonce}}"

// tempRE finds the random part of an atomic write's temporary name (shell.AtomicWrite:
// ".<name>.tmp-" and 64 random bits in hex), which no two runs share.
var tempRE = regexp.MustCompile(`\.tmp-[0-9a-f]{16}\b`)

// withoutTemp stands the random part of temporary names in a command line in for one mark.
func withoutTemp(line string) string { return tempRE.ReplaceAllString(line, ".tmp-{{random}}") }

// withoutNonce replaces the nonce of stdin, if it brings one, in stdin and the outputs.
func withoutNonce(stdin string, outs ...*string) string {
	n := nonceRE.FindString(stdin)
	if n == "" {
		return stdin
	}
	for _, o := range outs {
		*o = strings.ReplaceAll(*o, n, nonceMark)
	}
	return strings.ReplaceAll(stdin, n, nonceMark)
}

// readStdin reads a call's standard input whole.
func readStdin(r io.Reader) (string, error) {
	if r == nil {
		return "", nil
	}
	b, err := io.ReadAll(r)
	return string(b), err
}

// Recorder is a host.Runner that passes every call to Runner and records it.
type Recorder struct {
	host.Runner
	mu    sync.Mutex
	calls []Call
}

// Record wraps r.
func Record(r host.Runner) *Recorder { return &Recorder{Runner: r} }

func (r *Recorder) add(c Call) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls = append(r.calls, c)
}

// Run implements host.Runner.
func (r *Recorder) Run(ctx context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	line, err := cmd.Render()
	if err != nil {
		return r.Runner.Run(ctx, cmd, opts)
	}
	stdin, err := readStdin(opts.Stdin)
	if err != nil {
		return ssh.Result{}, err
	}
	opts.Stdin = strings.NewReader(stdin)
	res, runErr := r.Runner.Run(ctx, cmd, opts)
	c := Call{Op: OpRun, Command: withoutTemp(line), Sudo: opts.Sudo, Stdout: string(res.Stdout), Stderr: string(res.Stderr), Exit: res.ExitStatus}
	var ce *ssh.CommandError
	switch {
	case errors.As(runErr, &ce):
		c.Failure, c.Exit, c.Stderr = "command", ce.ExitStatus, string(ce.Stderr)
	case runErr != nil:
		c.Failure, c.Stderr = "other", runErr.Error()
	}
	c.Stdin = withoutNonce(stdin, &c.Stdout, &c.Stderr)
	r.add(c)
	return res, runErr
}

// WriteFile implements host.Runner.
func (r *Recorder) WriteFile(ctx context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	err := r.Runner.WriteFile(ctx, path, data, mode, owner, sudo)
	c := Call{Op: OpWrite, Path: path, Data: string(data), Mode: mode, Owner: owner, Sudo: sudo}
	if err != nil {
		c.Failure, c.Stderr = "other", err.Error()
	}
	r.add(c)
	return err
}

// ReadFile implements host.Runner.
func (r *Recorder) ReadFile(ctx context.Context, path string, sudo bool) ([]byte, error) {
	b, err := r.Runner.ReadFile(ctx, path, sudo)
	c := Call{Op: OpRead, Path: path, Sudo: sudo, Stdout: string(b)}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Failure = "missing"
	case err != nil:
		c.Failure, c.Stderr = "other", err.Error()
	}
	r.add(c)
	return b, err
}

// Calls returns the calls recorded so far.
func (r *Recorder) Calls() []Call {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Call(nil), r.calls...)
}

// Player is a host.Runner that answers from a recording.
type Player struct {
	address string
	mu      sync.Mutex
	calls   []Call
	used    []bool
	got     []Call
}

// Play answers as the host at address did in calls.
func Play(address string, calls []Call) *Player {
	return &Player{address: address, calls: calls, used: make([]bool, len(calls))}
}

// Address implements host.Runner.
func (p *Player) Address() string { return p.address }

// answer takes the first unused recorded call that matches c, and records c as got.
func (p *Player) answer(c Call) (Call, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.got = append(p.got, c)
	want := c.key()
	for i, rec := range p.calls {
		if !p.used[i] && rec.key() == want {
			p.used[i] = true
			return rec, nil
		}
	}
	return Call{}, fmt.Errorf("%s: the recording holds no %s, or none left: what the provider sends changed, so record the host again", p.address, c.describe())
}

// Run implements host.Runner.
func (p *Player) Run(_ context.Context, cmd shell.Runnable, opts ssh.RunOptions) (ssh.Result, error) {
	line, err := cmd.Render()
	if err != nil {
		return ssh.Result{}, fmt.Errorf("run on %s: %w", p.address, err)
	}
	stdin, err := readStdin(opts.Stdin)
	if err != nil {
		return ssh.Result{}, err
	}
	nonce := nonceRE.FindString(stdin)
	rec, err := p.answer(Call{Op: OpRun, Command: withoutTemp(line), Sudo: opts.Sudo, Stdin: withoutNonce(stdin)})
	if err != nil {
		return ssh.Result{}, err
	}
	fill := func(s string) []byte {
		if nonce == "" {
			return []byte(s)
		}
		return []byte(strings.ReplaceAll(s, nonceMark, nonce))
	}
	res := ssh.Result{Stdout: fill(rec.Stdout), Stderr: fill(rec.Stderr), ExitStatus: rec.Exit}
	switch rec.Failure {
	case "command":
		return ssh.Result{}, &ssh.CommandError{Host: p.address, Command: line, ExitStatus: rec.Exit, Stderr: fill(rec.Stderr)}
	case "other":
		return ssh.Result{}, errors.New(rec.Stderr)
	}
	return res, nil
}

// WriteFile implements host.Runner.
func (p *Player) WriteFile(_ context.Context, path string, data []byte, mode os.FileMode, owner string, sudo bool) error {
	rec, err := p.answer(Call{Op: OpWrite, Path: path, Data: string(data), Mode: mode, Owner: owner, Sudo: sudo})
	if err != nil {
		return err
	}
	if rec.Failure != "" {
		return errors.New(rec.Stderr)
	}
	return nil
}

// ReadFile implements host.Runner.
func (p *Player) ReadFile(_ context.Context, path string, sudo bool) ([]byte, error) {
	rec, err := p.answer(Call{Op: OpRead, Path: path, Sudo: sudo})
	if err != nil {
		return nil, err
	}
	switch rec.Failure {
	case "missing":
		return nil, fmt.Errorf("read %s on %s: %w", path, p.address, fs.ErrNotExist)
	case "other":
		return nil, errors.New(rec.Stderr)
	}
	return []byte(rec.Stdout), nil
}

// Got returns the calls the player was asked, in order, answered or not.
func (p *Player) Got() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Call(nil), p.got...)
}

// Unused returns the recorded calls nobody asked for: work the host did when recorded that
// the replay did not ask for.
func (p *Player) Unused() []Call {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Call
	for i, c := range p.calls {
		if !p.used[i] {
			out = append(out, c)
		}
	}
	return out
}

// Recording is the calls of several hosts, by name, as stored in a file.
type Recording map[string][]Call

// Load reads a recording file: gzip-compressed JSON (a host's gathers are about 100 KiB of
// text each).
func Load(path string) (Recording, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var rec Recording
	if err := json.NewDecoder(zr).Decode(&rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rec, nil
}

// Save writes rec to path as Load reads it; zcat shows it indented, one field a line.
func (rec Recording) Save(path string) error {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	enc.SetIndent("", " ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
