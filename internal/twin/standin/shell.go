package standin

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"strings"
	"syscall"
)

// Models of the shell and coreutils pieces the setters' pinned behaviour
// depends on beyond what the read-only tools need: pipelines of echo into cut or
// awk, field splitting with a non-blank IFS, pathname expansion of unquoted
// words, mkdir -p, redirections that create files, and mv.

// cmdSubst is $(...) of output: trailing newlines removed.
func cmdSubst(out string) string { return strings.TrimRight(out, "\n") }

// records splits what a command printed into newline-terminated lines, as
// cut and awk read them; a last line without a newline is one too.
func records(s string) []string { return awkRecords(s) }

// ifsSplit is the field splitting of an unquoted expansion with IFS set to
// the single non-blank character sep: each sep ends a field, so empty
// fields are kept except after the last sep; nothing gives no field.
func ifsSplit(s string, sep byte) []string {
	if s == "" {
		return nil
	}
	f := strings.Split(s, string(sep))
	if f[len(f)-1] == "" {
		f = f[:len(f)-1]
	}
	return f
}

// globWords is pathname expansion of each word (unquoted, after field
// splitting): a word with *, ? or [ becomes the names it matches, sorted,
// or stays as it is when none does.
func globWords(words []string) []string {
	var out []string
	for _, w := range words {
		out = append(out, glob(w)...)
	}
	return out
}

// glob expands one word as dash does (relative words against the working
// directory).
func glob(w string) []string {
	if !strings.ContainsAny(w, "*?[") {
		return []string{w}
	}
	comps := strings.Split(w, "/")
	paths := []string{""}
	for i, comp := range comps {
		last := i == len(comps)-1
		var next []string
		for _, p := range paths {
			sep := p
			if i > 0 {
				sep += "/"
			}
			if !hasMeta(comp) {
				np := sep + unescapeGlob(comp)
				if _, err := os.Lstat(np); last && err != nil {
					continue
				}
				next = append(next, np)
				continue
			}
			dir := p
			if i == 0 {
				dir = "."
			} else if dir == "" {
				dir = "/"
			}
			f, err := os.Open(dir)
			if err != nil {
				continue
			}
			names, _ := f.Readdirnames(-1)
			f.Close()
			slices.Sort(names)
			for _, n := range names {
				if n[0] == '.' && comp[0] != '.' {
					continue
				}
				if n == "." || n == ".." {
					continue
				}
				if !globMatch(comp, n) {
					continue
				}
				if !last && !isDir(sep+n) {
					continue
				}
				next = append(next, sep+n)
			}
		}
		paths = next
		if len(paths) == 0 {
			return []string{w}
		}
	}
	slices.Sort(paths)
	return paths
}

// hasMeta reports whether a pattern component has an unescaped *, ? or a
// [ that a ] closes.
func hasMeta(p string) bool {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '*', '?':
			return true
		case '[':
			if _, ok := bracketEnd(p, i); ok {
				return true
			}
		}
	}
	return false
}

func unescapeGlob(p string) string {
	if !strings.Contains(p, `\`) {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// bracketEnd is the index of the ] that closes the bracket expression at
// p[i] == '['.
func bracketEnd(p string, i int) (int, bool) {
	j := i + 1
	if j < len(p) && p[j] == '!' {
		j++
	}
	if j < len(p) && p[j] == ']' {
		j++
	}
	for ; j < len(p); j++ {
		if p[j] == ']' {
			return j, true
		}
	}
	return 0, false
}

// globMatch is fnmatch of pattern p against name s: *, ?, [...] with ! and
// ranges, backslash quoting the next character.
func globMatch(p, s string) bool {
	for len(p) > 0 {
		switch p[0] {
		case '*':
			for len(p) > 0 && p[0] == '*' {
				p = p[1:]
			}
			if p == "" {
				return true
			}
			for i := 0; i <= len(s); i++ {
				if globMatch(p, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			p, s = p[1:], s[1:]
		case '[':
			end, ok := bracketEnd(p, 0)
			if !ok {
				if s == "" || s[0] != '[' {
					return false
				}
				p, s = p[1:], s[1:]
				continue
			}
			if s == "" {
				return false
			}
			set := p[1:end]
			neg := false
			if set != "" && set[0] == '!' {
				neg, set = true, set[1:]
			}
			match := false
			for k := 0; k < len(set); k++ {
				lo := set[k]
				if k+2 < len(set) && set[k+1] == '-' {
					if s[0] >= lo && s[0] <= set[k+2] {
						match = true
					}
					k += 2
					continue
				}
				if s[0] == lo {
					match = true
				}
			}
			if match == neg {
				return false
			}
			p, s = p[end+1:], s[1:]
		case '\\':
			if len(p) > 1 {
				p = p[1:]
			}
			fallthrough
		default:
			if s == "" || s[0] != p[0] {
				return false
			}
			p, s = p[1:], s[1:]
		}
	}
	return s == ""
}

// mkdirP is GNU mkdir -p: it creates what is missing of p and complains,
// naming the first component that is no directory, when it cannot.
func (c *ctx) mkdirP(p string) {
	if isDir(p) {
		return
	}
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		pre := p[:i]
		if pre == "" || strings.HasSuffix(pre, "/") || isDir(pre) {
			continue
		}
		rest := strings.Trim(p[i:], "/")
		err := os.Mkdir(pre, 0o777)
		switch {
		case err == nil:
			continue
		case errors.Is(err, fs.ErrExist) && rest != "":
			err = syscall.ENOTDIR
		}
		c.errf("mkdir: cannot create directory '%s': %s\n", pre, errText(err))
		return
	}
}

// createErr is dash's message for a ">file" redirection that failed.
func createErr(err error) string {
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return "Directory nonexistent"
	}
	return errText(err)
}

// create is ">file": the file truncated or made, or dash's complaint at
// line (the caller decides whether the shell goes on).
func (c *ctx) create(line int, p string) (*os.File, bool) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		c.shErr(line, "cannot create "+p+": "+createErr(err))
		return nil, false
	}
	return f, true
}

// mv is "mv src dst" of one file: into dst when that is a directory.
func (c *ctx) mv(src, dst string) {
	if isDir(dst) {
		dst = strings.TrimRight(dst, "/") + "/" + src[strings.LastIndexByte(src, '/')+1:]
		if isDir(dst) {
			c.errf("mv: cannot overwrite directory '%s' with non-directory\n", dst)
			return
		}
	}
	if err := os.Rename(src, dst); err != nil {
		c.errf("mv: cannot move '%s' to '%s': %s\n", src, dst, errText(err))
	}
}

// mawkVar is the value of mawk's -v NAME=VALUE: escape sequences replaced
// (\n, \t, \\, \", octal and \x hex; others kept with their backslash).
func mawkVar(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch ch := s[i]; ch {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'b':
			b.WriteByte('\b')
		case 'v':
			b.WriteByte('\v')
		case 'a':
			b.WriteByte('\a')
		case '\\':
			b.WriteByte('\\')
		case '"':
			b.WriteByte('"')
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				v = v*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(v))
			i = j - 1
		case 'x':
			v, j := 0, i+1
			for ; j < len(s) && j < i+3 && hexDigit(s[j]) >= 0; j++ {
				v = v*16 + hexDigit(s[j])
			}
			if j == i+1 {
				b.WriteString(`\x`)
				continue
			}
			b.WriteByte(byte(v))
			i = j - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(ch)
		}
	}
	return b.String()
}

// awkSplitVals is split(s, a, ",") of mawk: the elements, typed as input.
func awkSplitVals(s string) []awkVal {
	if s == "" {
		return nil
	}
	parts := strings.Split(s, ",")
	out := make([]awkVal, len(parts))
	for i, p := range parts {
		out[i] = awkInput(p)
	}
	return out
}

// awkAt is a[i] (from 1) of a split array: uninitialized past its end.
func awkAt(a []awkVal, i int) awkVal {
	if i >= 1 && i <= len(a) {
		return a[i-1]
	}
	return awkVal{}
}

// awkField is $i of a record split on blanks: "" (a string) past NF.
func awkField(f []string, i int) awkVal {
	if i >= 1 && i <= len(f) {
		return awkInput(f[i-1])
	}
	return awkVal{kind: awkStr}
}

// awkGreater0 is v > 0 in awk: numeric unless v is a plain string.
func awkGreater0(v awkVal) bool {
	if v.kind == awkStr {
		return v.s > "0"
	}
	return v.n > 0
}

// awkNum is v's number.
func (v awkVal) num() float64 {
	if v.kind == awkStr {
		return awkToNum(v.s)
	}
	return v.n
}

// accessible is test's -r (mode 4), -w (2) or -x (1): access(2) with the
// real ids, which is what dash's test uses for root.
func accessible(p string, mode uint32) bool { return syscall.Access(p, mode) == nil }

// onPath reports whether sh would find command name as a builtin or on
// PATH; when it would not, running it says "name: not found" (127).
func (c *ctx) onPath(name string) bool {
	if slices.Contains(shBuiltins, name) || strings.Contains(name, "/") {
		return true // not modelled: these run
	}
	for _, dir := range strings.Split(c.get("PATH"), ":") {
		if dir == "" {
			dir = "."
		}
		if st, err := os.Stat(dir + "/" + name); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// shBuiltins are dash's builtins and reserved words.
var shBuiltins = strings.Fields(`. : [ alias bg break cd command continue echo eval exec exit export false fc fg getopts
	hash jobs kill local printf pwd read readonly return set shift test times trap true type ulimit umask unalias unset wait
	if then else elif fi do done case esac while until for in { } ! ( )`)
