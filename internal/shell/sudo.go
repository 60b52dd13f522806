package shell

import (
	"errors"
	"strings"
)

// SudoOptions says how [Sudo] runs a command.
type SudoOptions struct {
	// User runs the command as this user (sudo -u) instead of root when set.
	User string
	// Prompt makes sudo read the password from standard input (sudo -S) after
	// printing Prompt on standard error (-p). The password never appears on
	// the command line: the caller writes it to standard input when the
	// prompt appears, and only then (a NOPASSWD rule or a cached timestamp
	// means sudo never asks). Prompt must hold no % (sudo expands it).
	// Without Prompt, sudo runs non-interactively (sudo -n) and fails
	// instead of prompting.
	Prompt string
}

// Sudo returns c decorated to run through sudo:
//
//	sudo -n -- cmd args...
//	sudo -S -p PROMPT -- cmd args...      (opts.Prompt; password on stdin)
//
// Environment assignments of c are passed through env(1) after the "--"
// ("sudo -n -- env KEY=value cmd"), because sudo's own environment policy
// would otherwise drop or reject them. Redirections of c stay outside sudo:
// the calling shell performs them as the login user (see [Redirect]).
func Sudo(c Command, opts SudoOptions) Command {
	out := Command{name: "sudo", redirs: c.redirs, err: c.err}
	if opts.Prompt != "" {
		out.args = append(out.args, "-S", "-p", opts.Prompt)
	} else {
		out.args = append(out.args, "-n")
	}
	if opts.User != "" {
		out.args = append(out.args, "-u", opts.User)
	}
	out.args = append(out.args, "--")
	if len(c.env) > 0 {
		out.args = append(out.args, "env")
		for _, e := range c.env {
			out.args = append(out.args, e.key+"="+e.value)
		}
	}
	out.args = append(out.args, c.name)
	out.args = append(out.args, c.args...)
	if c.name == "" {
		out.setErr(errors.New("sudo of an empty command"))
	}
	if strings.Contains(opts.Prompt, "%") {
		out.setErr(errors.New("sudo prompt with a %: sudo would expand it"))
	}
	return out
}
