package standin

import "strings"

// ParseProfileEnv reads /etc/twin/profile.env the way sh's ". file" does,
// for the subset hostprofile writes: commands made only of NAME=WORD
// assignments (later ones win), with WORD's single quotes, double quotes and
// backslashes removed as the shell removes them; blank lines and # comments.
// A command with any other word runs a program in sh, which this cannot, so
// it is skipped along with its assignments (they are only its
// environment). $ expansions are kept literally: hostprofile quotes every $.
// An unterminated quote ends the file.
func ParseProfileEnv(s string) map[string]string {
	vars, _ := parseAssignments(s)
	return vars
}

// parseAssignments is ParseProfileEnv that also tells whether the file ends
// inside a quote, which is a syntax error when sh sources it.
func parseAssignments(s string) (vars map[string]string, unterminated bool) {
	vars, _, unterminated = parseCommands(s)
	return vars, unterminated
}

// skippedCommand is a command of a sourced file that runs a program: its
// line and its first word that is no assignment.
type skippedCommand struct {
	line int
	word string
}

// parseCommands is parseAssignments that also returns the commands it
// skipped.
func parseCommands(s string) (vars map[string]string, skipped []skippedCommand, unterminated bool) {
	vars = map[string]string{}
	p := envParser{s: s}
	for p.i < len(p.s) {
		words, ok := p.command()
		if !ok {
			return vars, skipped, true
		}
		assigns := true
		for _, w := range words {
			if !w.assign && assigns {
				assigns = false
				skipped = append(skipped, skippedCommand{line: 1 + strings.Count(s[:w.start], "\n"), word: w.value})
			}
		}
		if assigns {
			for _, w := range words {
				vars[w.name] = w.value
			}
		}
	}
	return vars, skipped, false
}

type envWord struct {
	start       int // offset in the file
	assign      bool
	name, value string
}

type envParser struct {
	s string
	i int
}

// command reads the words up to the end of a command (newline, ';', '&', '|'
// or the end); false at an unterminated quote.
func (p *envParser) command() ([]envWord, bool) {
	var words []envWord
	for {
		for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t') {
			p.i++
		}
		if p.i >= len(p.s) {
			return words, true
		}
		switch p.s[p.i] {
		case '\n', ';', '&', '|':
			p.i++
			return words, true
		case '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
			continue
		case '\\':
			if p.i+1 < len(p.s) && p.s[p.i+1] == '\n' {
				p.i += 2
				continue
			}
		}
		w, ok := p.word()
		if !ok {
			return nil, false
		}
		words = append(words, w)
	}
}

// word reads one word and removes its quotes.
func (p *envParser) word() (envWord, bool) {
	w := envWord{start: p.i}
	if n := nameLen(p.s[p.i:]); n > 0 && p.i+n < len(p.s) && p.s[p.i+n] == '=' {
		w.assign, w.name = true, p.s[p.i:p.i+n]
		p.i += n + 1
	}
	var b []byte
	for p.i < len(p.s) {
		ch := p.s[p.i]
		switch ch {
		case ' ', '\t', '\n', ';', '&', '|':
			w.value = string(b)
			return w, true
		case '\'':
			j := p.i + 1
			for j < len(p.s) && p.s[j] != '\'' {
				j++
			}
			if j >= len(p.s) {
				return w, false
			}
			b = append(b, p.s[p.i+1:j]...)
			p.i = j + 1
		case '"':
			j := p.i + 1
			for ; j < len(p.s) && p.s[j] != '"'; j++ {
				if p.s[j] == '\\' && j+1 < len(p.s) {
					switch p.s[j+1] {
					case '$', '`', '"', '\\':
						j++
						b = append(b, p.s[j])
						continue
					case '\n':
						j++
						continue
					}
				}
				b = append(b, p.s[j])
			}
			if j >= len(p.s) {
				return w, false
			}
			p.i = j + 1
		case '\\':
			if p.i+1 < len(p.s) {
				if p.s[p.i+1] != '\n' {
					b = append(b, p.s[p.i+1])
				}
				p.i += 2
				continue
			}
			p.i++
		default:
			b = append(b, ch)
			p.i++
		}
	}
	w.value = string(b)
	return w, true
}

// nameLen is the length of the shell name that s starts with, 0 if none.
func nameLen(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' {
			continue
		}
		return i
	}
	return len(s)
}
