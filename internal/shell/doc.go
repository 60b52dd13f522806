// Package shell is the one place where a remote command line is assembled.
//
// Remote commands reach a host as a single string that the login shell of the
// remote user parses (OpenSSH passes it to "$SHELL -c"). Every word that is not
// a trusted constant must therefore be quoted, and the quoting must hold in any
// POSIX shell (dash, bash, busybox ash). This package builds commands as values
// and renders them last, so a plan can print them before anything runs and
// golden tests can pin them byte for byte.
//
// The building blocks are:
//
//   - [Quote], POSIX single-quote quoting of one word;
//   - [Command], a simple command with environment assignments, arguments and
//     redirections;
//   - [Script], a composition of commands with |, &&, || and ; built by
//     [Pipe], [And], [Or] and [Seq], plus [Raw] for trusted constant fragments;
//   - [Sudo], a decorator that runs a command through sudo without ever putting
//     a password on the command line.
//
// A NUL byte cannot be carried through a shell command line (execve truncates
// at the first NUL), so rendering a command or script that contains one fails
// with [ErrNUL] instead of producing a truncated command.
package shell
