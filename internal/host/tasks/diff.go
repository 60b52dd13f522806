package tasks

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// sha256Hex returns the hex SHA-256 of b.
func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// shortHash is the first 12 hex digits of a SHA-256, for readable lines.
func shortHash(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}

// lineDiff counts the lines only in newText (added) and only in oldText
// (removed), as multisets: a line moved elsewhere counts as neither. It is a
// summary for a plan, not a patch.
func lineDiff(oldText, newText string) (added, removed int) {
	count := map[string]int{}
	for _, l := range splitLines(oldText) {
		count[l]++
	}
	for _, l := range splitLines(newText) {
		if count[l] > 0 {
			count[l]--
			continue
		}
		added++
	}
	for _, n := range count {
		removed += n
	}
	return added, removed
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// diffSummary describes how newText differs from oldText, e.g. "+2 -1 lines".
func diffSummary(oldText, newText string) string {
	a, r := lineDiff(oldText, newText)
	if a == 0 && r == 0 {
		return "lines reordered or line endings changed"
	}
	return "+" + strconv.Itoa(a) + " -" + strconv.Itoa(r) + " " + pluralLines(a+r)
}

func pluralLines(n int) string {
	if n == 1 {
		return "line"
	}
	return "lines"
}
