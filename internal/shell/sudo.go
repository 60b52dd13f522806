package shell

import "errors"

// SudoOptions says how [Sudo] runs a command.
type SudoOptions struct {
	// User runs the command as this user (sudo -u) instead of root when set.
	User string
	// Password makes sudo read the password from standard input (sudo -S)
	// with an empty prompt (-p ''). The password never appears on the command
	// line: the caller must write it, followed by "\n", to the command's
	// standard input before any other input. Without Password, sudo runs
	// non-interactively (sudo -n) and fails instead of prompting.
	Password bool
}

// Sudo returns c decorated to run through sudo:
//
//	sudo -n -- cmd args...
//	sudo -S -p '' -- cmd args...      (opts.Password; password on stdin)
//
// Environment assignments of c are passed through env(1) after the "--"
// ("sudo -n -- env KEY=value cmd"), because sudo's own environment policy
// would otherwise drop or reject them. Redirections of c stay outside sudo:
// the calling shell performs them as the login user (see [Redirect]).
func Sudo(c Command, opts SudoOptions) Command {
	out := Command{name: "sudo", redirs: c.redirs, err: c.err}
	if opts.Password {
		out.args = append(out.args, "-S", "-p", "")
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
	return out
}
