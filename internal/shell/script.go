package shell

import (
	"errors"
	"fmt"
	"strings"
)

// Runnable is anything that renders to one shell command line: a [Command] or
// a [Script].
type Runnable interface {
	// Render returns the command line, or the error found while building it.
	Render() (string, error)
	// String returns the command line for display, even when Render fails.
	String() string
	prec() precedence
}

var (
	_ Runnable = Command{}
	_ Runnable = Script{}
)

// precedence orders shell constructs from the tightest binding to the
// loosest; an operand binding more loosely than its operator allows is
// wrapped in a brace group.
type precedence int

const (
	precSimple   precedence = iota // a simple command with its redirections
	precPipeline                   // a | b
	precAndOr                      // a && b, a || b
	precList                       // a; b, and Raw fragments
)

// Script is a composition of commands (a pipeline, an AND-OR list, a
// sequence) or a trusted raw fragment. Scripts are values, rendered when
// built; errors of their parts surface from [Script.Render].
type Script struct {
	text string
	p    precedence
	err  error
}

// Pipe connects the standard output of each part to the standard input of the
// next: "a | b | c".
func Pipe(parts ...Runnable) Script { return join(" | ", precPipeline, parts) }

// And runs each part only if the previous one succeeded: "a && b && c".
func And(parts ...Runnable) Script { return join(" && ", precAndOr, parts) }

// Or runs each part only if the previous one failed: "a || b". Or(c,
// New("true")) is the usual "c || true" that ignores a failure.
func Or(parts ...Runnable) Script { return join(" || ", precAndOr, parts) }

// Seq runs the parts one after another regardless of their exit status:
// "a; b; c". The exit status is that of the last part.
func Seq(parts ...Runnable) Script { return join("; ", precList, parts) }

// Raw returns s as a script without any quoting. It is the explicit escape
// hatch for trusted constant fragments written in this code base (a loop, a
// case statement); never pass it anything derived from input, configuration
// or remote output — use [Command] and [Quote] for those. s must be a complete
// shell list that does not end in a comment or in '&', because it may be
// wrapped in a brace group when combined.
func Raw(s string) Script {
	sc := Script{text: s, p: precList}
	switch {
	case strings.TrimSpace(s) == "":
		sc.err = errors.New("empty raw script")
	case strings.IndexByte(s, 0) >= 0:
		sc.err = fmt.Errorf("raw script: %w", ErrNUL)
	}
	return sc
}

// With returns a copy of s with the redirections applied to the whole script;
// a compound script is wrapped in a brace group first ("{ a | b; } 2>/dev/null").
func (s Script) With(r ...Redirect) Script {
	if len(r) == 0 {
		return s
	}
	out := Script{text: s.text, p: precSimple, err: s.err}
	if s.text == "" && out.err == nil {
		out.err = errors.New("redirection of an empty script")
	}
	if s.p != precSimple {
		out.text = group(s.text)
	}
	for _, x := range r {
		if x.err != nil && out.err == nil {
			out.err = fmt.Errorf("redirection: %w", x.err)
		}
		out.text += " " + x.text()
	}
	return out
}

// Render returns the script, or the first error found while building it.
func (s Script) Render() (string, error) {
	if s.err != nil {
		return "", s.err
	}
	if s.text == "" {
		return "", errors.New("empty script")
	}
	return s.text, nil
}

// String returns the script for display, even when Render fails.
func (s Script) String() string { return s.text }

func (s Script) prec() precedence { return s.p }

// Sh returns the command "sh -c <script>", which runs r in a fresh POSIX
// shell. Use it to run a [Script] where a single [Command] is needed, for
// example under [Sudo].
func Sh(r Runnable) Command {
	text, err := r.Render()
	c := New("sh", "-c", text)
	if err != nil {
		c.setErr(err)
	}
	return c
}

// Exec returns "exec <c>": the shell that runs it becomes c, in the same process (the same
// PID and process group, the same standard streams), rather than forking a child for it.
func Exec(c Command) Script {
	text, err := c.Render()
	if err != nil {
		return Script{text: "exec " + c.String(), p: precSimple, err: err}
	}
	return Script{text: "exec " + text, p: precSimple}
}

// join renders parts separated by op. Every part must bind at least as
// tightly as the operator allows, otherwise it is wrapped in a brace group.
// Pipelines and sequences are associative, so parts of the same level join
// bare; && and || share one left-associative level, so only the first part of
// an AND-OR list may itself be one.
func join(op string, p precedence, parts []Runnable) Script {
	if len(parts) == 0 {
		return Script{p: p, err: fmt.Errorf("no commands to join with %q", strings.TrimSpace(op))}
	}
	if len(parts) == 1 {
		return toScript(parts[0])
	}
	out := Script{p: p}
	texts := make([]string, len(parts))
	for i, part := range parts {
		text, err := part.Render()
		if err != nil && out.err == nil {
			out.err = err
		}
		if text == "" {
			text = part.String()
		}
		limit := p
		if i > 0 && p == precAndOr {
			limit = precPipeline
		}
		if part.prec() > limit {
			text = group(text)
		}
		texts[i] = text
	}
	out.text = strings.Join(texts, op)
	return out
}

func toScript(r Runnable) Script {
	if s, ok := r.(Script); ok {
		return s
	}
	text, err := r.Render()
	if err != nil {
		text = r.String()
	}
	return Script{text: text, p: r.prec(), err: err}
}

// group wraps text in a brace group, which runs it in the current shell. Text
// that could swallow or clash with a following "; }" (a trailing ';' or '&', a
// comment, several lines) closes the group on a new line instead.
func group(text string) string {
	t := strings.TrimRight(text, " \t\n")
	if strings.ContainsAny(t, "#\n") || strings.HasSuffix(t, ";") || strings.HasSuffix(t, "&") {
		return "{ " + t + "\n}"
	}
	return "{ " + t + "; }"
}

// Let assigns value, quoted, to the shell variable name ("r_='/sys/class/net'"), so that a
// constant fragment after it can use "$name" instead of having the value spliced into its text.
func Let(name, value string) Script {
	sc := Script{text: name + "=" + Quote(value), p: precSimple}
	switch {
	case !ValidName(name):
		sc.err = fmt.Errorf("let: %q is not a shell variable name", name)
	case strings.IndexByte(value, 0) >= 0:
		sc.err = fmt.Errorf("let %s: %w", name, ErrNUL)
	}
	return sc
}

// ForIn loops name over words, each quoted, running body, a trusted constant fragment (see
// [Raw]): "for name in 'w1' 'w2'; do body; done".
func ForIn(name string, words []string, body string) Script {
	quoted := make([]string, len(words))
	var err error
	for i, w := range words {
		if strings.IndexByte(w, 0) >= 0 {
			err = fmt.Errorf("for %s: %w", name, ErrNUL)
		}
		quoted[i] = Quote(w)
	}
	if !ValidName(name) {
		err = fmt.Errorf("for: %q is not a shell variable name", name)
	}
	sc := Raw("for " + name + " in " + strings.Join(quoted, " ") + "; do " + body + "; done")
	if err != nil {
		sc.err = err
	}
	return sc
}
