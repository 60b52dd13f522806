package shell

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hostile are words that break naive command assembly.
var hostile = []string{
	"",
	" ",
	"two words",
	"it's",
	"'",
	"''",
	`"double"`,
	`\`,
	`back\slash`,
	"$(id)",
	"${HOME}",
	"$HOME",
	"`id`",
	"a;b",
	"a && b",
	"a || b",
	"a | b",
	"x > /etc/passwd",
	"<in",
	"line1\nline2",
	"\n",
	"tab\there",
	"\r\n",
	"*",
	"/tmp/*.txt",
	"?",
	"[a-z]",
	"{a,b}",
	"~",
	"~root",
	"-rf",
	"--",
	"-",
	"#comment",
	"!",
	"!!",
	"a=b",
	"=ls",
	"%1",
	"ünïcödé",
	"日本語",
	"emoji 🚀",
	"\xff\xfe invalid utf-8",
	"\x01\x02\x7f",
	"'; rm -rf / #",
	`'"'"'`,
}

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", "''"},
		{"plain", "plain"},
		{"mlx5_0", "mlx5_0"},
		{"/sys/class/net/ens1f0np0/ecn", "/sys/class/net/ens1f0np0/ecn"},
		{"a=b,c:d@e%f+g.h-i", "a=b,c:d@e%f+g.h-i"},
		{"-rf", "-rf"},
		{"a=b", "a=b"},
		{"=ls", "'=ls'"},
		{"==mlx5_0", "'==mlx5_0'"},
		{" ", "' '"},
		{"two words", "'two words'"},
		{"it's", `'it'\''s'`},
		{"'", `''\'''`},
		{`"x"`, `'"x"'`},
		{"$(id)", "'$(id)'"},
		{"`id`", "'`id`'"},
		{"a;b", "'a;b'"},
		{"a && b", "'a && b'"},
		{"a|b", "'a|b'"},
		{"line1\nline2", "'line1\nline2'"},
		{"*", "'*'"},
		{"~", "'~'"},
		{"#x", "'#x'"},
		{"ünï", "'ünï'"},
		{"a\x00b", "'a\x00b'"},
	}
	for _, tt := range tests {
		if got := Quote(tt.in); got != tt.want {
			t.Errorf("Quote(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestQuoteName(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"ls", "ls"},
		{"/usr/bin/env", "/usr/bin/env"},
		{"if", "'if'"},
		{"done", "'done'"},
		{"A=b", "'A=b'"},
		{"my prog", "'my prog'"},
	}
	for _, tt := range tests {
		if got := quoteName(tt.in); got != tt.want {
			t.Errorf("quoteName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, s := range []string{"A", "_", "NCCL_IB_HCA", "a1", "_9"} {
		if !ValidName(s) {
			t.Errorf("ValidName(%q) = false, want true", s)
		}
	}
	for _, s := range []string{"", "1A", "A-B", "A B", "A=B", "$A", "ü", "A\x00"} {
		if ValidName(s) {
			t.Errorf("ValidName(%q) = true, want false", s)
		}
	}
}

// shells returns the POSIX shells available on this machine; the remote login
// shell is usually one of them.
func shells(t testing.TB) []string {
	t.Helper()
	var out []string
	seen := map[string]bool{}
	for _, name := range []string{"/bin/sh", "dash", "bash", "busybox"} {
		path, err := exec.LookPath(name)
		if err != nil || seen[path] {
			continue
		}
		seen[path] = true
		out = append(out, path)
	}
	if len(out) == 0 {
		t.Fatal("no POSIX shell found (/bin/sh, dash, bash or busybox)")
	}
	return out
}

// echoArgs runs printf '%s\0' with the quoted words in the given shell and
// returns the words the shell passed to printf.
func echoArgs(t testing.TB, sh string, words []string) []string {
	t.Helper()
	var line strings.Builder
	line.WriteString(`printf '%s\0'`)
	for _, w := range words {
		line.WriteString(" ")
		line.WriteString(Quote(w))
	}
	args := []string{"-c", line.String()}
	if strings.HasSuffix(sh, "busybox") {
		args = append([]string{"sh"}, args...)
	}
	cmd := exec.Command(sh, args...)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "LC_ALL=C"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s -c %q: %v: %s", sh, line.String(), err, stderr.String())
	}
	got := strings.Split(string(out), "\x00")
	return got[:len(got)-1] // printf ends every word with NUL
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, sh := range shells(t) {
		t.Run(sh, func(t *testing.T) {
			for _, w := range hostile {
				got := echoArgs(t, sh, []string{w})
				if diff := cmp.Diff([]string{w}, got); diff != "" {
					t.Errorf("word %q through %s (-want +got):\n%s", w, sh, diff)
				}
			}
			got := echoArgs(t, sh, hostile)
			if diff := cmp.Diff(hostile, got); diff != "" {
				t.Errorf("all words at once through %s (-want +got):\n%s", sh, diff)
			}
		})
	}
}

func FuzzQuote(f *testing.F) {
	for _, w := range hostile {
		f.Add(w)
	}
	sh := shells(f)[0]
	f.Fuzz(func(t *testing.T, s string) {
		if strings.IndexByte(s, 0) >= 0 {
			t.Skip("a NUL byte cannot pass through a shell")
		}
		q := Quote(s)
		if isSafe(s) != (q == s) {
			t.Fatalf("Quote(%q) = %q: bare iff safe violated", s, q)
		}
		got := echoArgs(t, sh, []string{s, "end"})
		if diff := cmp.Diff([]string{s, "end"}, got); diff != "" {
			t.Fatalf("Quote(%q) = %q does not round-trip (-want +got):\n%s", s, q, diff)
		}
	})
}

func TestChmodMode(t *testing.T) {
	tests := []struct {
		mode os.FileMode
		want string
	}{
		{0o644, "0644"},
		{0o600, "0600"},
		{0o755 | os.ModeSetuid, "4755"},
		{0o2775&0o777 | os.ModeSetgid, "2775"},
		{0o777 | os.ModeSticky, "1777"},
	}
	for _, tt := range tests {
		if got := ChmodMode(tt.mode); got != tt.want {
			t.Errorf("ChmodMode(%v) = %q, want %q", tt.mode, got, tt.want)
		}
	}
}
