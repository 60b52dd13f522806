package host

import (
	"fmt"
	"strconv"
	"strings"
)

// section is what one step printed: one command, or one netdev of a loop.
type section struct {
	step   int
	key    string // the netdev of a loop section, "" otherwise
	status int
	stdout string
	stderr string
}

// chunk is the text before one delimiter of one stream, and that delimiter.
type chunk struct {
	step   int
	status int
	key    string
	text   string
}

// splitGather cuts the two output streams of the gather script of steps into
// sections and checks that they are complete and in order.
func splitGather(steps []step, nonce string, stdout, stderr []byte) ([]section, error) {
	outs, err := splitStream(string(stdout), nonce)
	if err != nil {
		return nil, fmt.Errorf("standard output: %w", err)
	}
	errs, err := splitStream(string(stderr), nonce)
	if err != nil {
		return nil, fmt.Errorf("standard error: %w", err)
	}
	if len(outs) != len(errs) {
		return nil, fmt.Errorf("%d delimiters on standard output but %d on standard error", len(outs), len(errs))
	}
	secs := make([]section, len(outs))
	for i, o := range outs {
		e := errs[i]
		if o.step != e.step || o.key != e.key || o.status != e.status {
			return nil, fmt.Errorf("delimiter %d differs between standard output and standard error", i+1)
		}
		secs[i] = section{step: o.step, key: o.key, status: o.status, stdout: o.text, stderr: e.text}
	}
	if err := checkOrder(steps, secs); err != nil {
		return nil, err
	}
	return secs, nil
}

// splitStream cuts s at every delimiter line of nonce. Text after the last
// delimiter is an error: the script prints nothing after it.
func splitStream(s, nonce string) ([]chunk, error) {
	marker := "\n" + nonce + " "
	var chunks []chunk
	for {
		i := strings.Index(s, marker)
		if i < 0 {
			break
		}
		line, rest, ok := strings.Cut(s[i+len(marker):], "\n")
		if !ok {
			return nil, fmt.Errorf("delimiter %d not terminated", len(chunks)+1)
		}
		c, err := parseDelimiter(line)
		if err != nil {
			return nil, fmt.Errorf("delimiter %d: %w", len(chunks)+1, err)
		}
		c.text = s[:i]
		chunks = append(chunks, c)
		s = rest
	}
	if s != "" {
		return nil, fmt.Errorf("%d bytes after the last delimiter: %q", len(s), cut(s))
	}
	return chunks, nil
}

// parseDelimiter reads "<step> <status> <key>" (the part after the nonce).
func parseDelimiter(line string) (chunk, error) {
	f := strings.Split(line, " ")
	if len(f) != 3 {
		return chunk{}, fmt.Errorf("want <step> <status> <key>, got %q", cut(line))
	}
	st, err1 := strconv.Atoi(f[0])
	status, err2 := strconv.Atoi(f[1])
	if err1 != nil || err2 != nil || st < 0 || status < 0 || status > 255 {
		return chunk{}, fmt.Errorf("bad step or status in %q", cut(line))
	}
	key := f[2]
	if key == "-" {
		key = ""
	}
	return chunk{step: st, status: status, key: key}, nil
}

// checkOrder requires every single step exactly once with no key, loop steps
// any number of times with a valid key (a netdev name, a PCI address) or
// once without one (the loop could not run), all in step order.
func checkOrder(steps []step, secs []section) error {
	pos := 0
	for i, s := range steps {
		if s.loop {
			if pos < len(secs) && secs[pos].step == i && secs[pos].key == "" {
				pos++
				continue
			}
			for pos < len(secs) && secs[pos].step == i {
				if !s.validKey(secs[pos].key) {
					return fmt.Errorf("%s: bad key %q", s.label, secs[pos].key)
				}
				pos++
			}
			continue
		}
		if pos >= len(secs) {
			return fmt.Errorf("%s: no output: the gather script ended early", s.label)
		}
		if secs[pos].step != i || secs[pos].key != "" {
			return fmt.Errorf("%s: want its delimiter, got one for step %d %q", s.label, secs[pos].step, secs[pos].key)
		}
		pos++
	}
	if pos != len(secs) {
		return fmt.Errorf("%d delimiters for no step", len(secs)-pos)
	}
	return nil
}
