package standin

import (
	"errors"
	"io/fs"
	"os"
	"strings"
	"syscall"
)

// lsmod imitates kmod's lsmod: the loaded modules ($TWIN_RUN/modules, in load
// order) newest first, sizes from modules.db and "Used by" from the loaded
// modules that need each one.
func lsmod(c *ctx, _ []string) int {
	mods, db := c.run+"/modules", c.lib+"/modules.db"
	const atEAccess = 0x200
	if syscall.Faccessat(-100, mods, 4, atEAccess) != nil {
		// A missing list is created, so a later reader finds it.
		f, err := os.OpenFile(mods, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
		if err != nil {
			msg := errText(err)
			if errors.Is(err, fs.ErrNotExist) {
				msg = "Directory nonexistent"
			}
			// A failed redirection of the special builtin ":" ends sh.
			c.shErr(8, "cannot create "+mods+": "+msg)
			return 2
		}
		f.Close()
	}
	size, deps := map[string]string{}, map[string]string{}
	if b, err := readBounded(db, 16<<20); err == nil {
		for _, l := range awkRecords(string(b)) {
			if strings.HasPrefix(l, "#") {
				continue
			}
			f := fields(l)
			size[at(f, 1)], deps[at(f, 1)] = at(f, 2), ","+at(f, 3)+","
		}
	}
	b, err := readBounded(mods, 16<<20)
	if err != nil {
		c.errf("mawk: cannot open %s (%s)\n", mods, errText(err))
		return 2
	}
	var order []string
	for _, l := range awkRecords(string(b)) {
		order = append(order, at(fields(l), 1))
	}
	c.print("Module                  Size  Used by\n")
	for i := len(order) - 1; i >= 0; i-- {
		m, h, n := order[i], "", 0
		for j := len(order) - 1; j >= 0; j-- {
			if strings.Contains(deps[order[j]], ","+m+",") {
				if n > 0 {
					h += ","
				}
				h += order[j]
				n++
			}
		}
		if n > 0 {
			h = " " + h
		}
		c.print(pad(m, 19, true), " ", pad(itoa(awkInt(awkToNum(size[m]))), 8, false), "  ", itoa(int64(n)), h, "\n")
	}
	return 0
}

// awkRecords splits input into awk's newline-terminated records; a last
// line without a newline is one too.
func awkRecords(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
