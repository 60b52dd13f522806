package shell

import (
	"errors"
	"strings"
)

// ErrNUL is returned when a word of a command line contains a NUL byte, which
// no shell command line can carry.
var ErrNUL = errors.New("contains a NUL byte")

// ErrInvalidName is returned when an environment variable name is not a valid
// shell name ([A-Za-z_][A-Za-z0-9_]*).
var ErrInvalidName = errors.New("not a valid shell variable name")

// Quote returns s as one shell word that every POSIX shell reads back as
// exactly s. Strings made only of the conservative safe set
// [A-Za-z0-9_@%+=:,./-] are returned bare, except those starting with '='
// (zsh, a common login shell, expands "=cmd" to the path of cmd);
// everything else, including the empty string, is wrapped in single quotes,
// and each embedded single quote is closed, escaped and reopened:
//
//	it's  ->  'it'\''s'
//
// Quote does not reject NUL bytes: a NUL stays inside the quotes, so a shell
// that truncates at it sees an unterminated quote and refuses to run anything.
// Use [Command.Render] or [Script.Render], which report [ErrNUL], to catch it
// before sending.
//
// A leading dash is not special to the shell and is left alone; protect
// programs from option injection with a "--" argument where they support it.
func Quote(s string) string {
	if s == "" {
		return "''"
	}
	if isSafe(s) {
		return s
	}
	return forceQuote(s)
}

// forceQuote wraps s in single quotes even when it is made of safe bytes.
func forceQuote(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b.WriteString(`'\''`)
			continue
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('\'')
	return b.String()
}

// isSafe reports whether s is non-empty, does not start with '=', and is made
// only of bytes that no POSIX shell treats specially in an argument position.
func isSafe(s string) bool {
	if s == "" || s[0] == '=' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !safeByte(s[i]) {
			return false
		}
	}
	return true
}

func safeByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("_@%+=:,./-", c) >= 0
}

// reserved lists the words that shells treat as syntax when they appear
// unquoted in command position (POSIX plus common bash and ksh additions).
var reserved = map[string]bool{
	"if": true, "then": true, "else": true, "elif": true, "fi": true,
	"do": true, "done": true, "case": true, "esac": true, "while": true,
	"until": true, "for": true, "in": true, "function": true, "select": true,
	"time": true, "coproc": true,
}

// quoteName quotes a command name. Besides what [Quote] does, it quotes safe
// names that a shell would not run as a command: reserved words, and words
// containing '=' that would be read as a variable assignment.
func quoteName(s string) string {
	if isSafe(s) && (reserved[s] || strings.IndexByte(s, '=') >= 0) {
		return forceQuote(s)
	}
	return Quote(s)
}

// ValidName reports whether s is a valid shell variable name.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
