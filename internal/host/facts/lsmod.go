package facts

import (
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Module is one loaded kernel module as listed by lsmod.
type Module struct {
	// Size is the module size in bytes.
	Size int64
	// Refs is the use count; -1 when lsmod printed "-".
	Refs int
	// UsedBy lists the modules holding this one, e.g. ["nvidia_peermem"].
	UsedBy []string
	// Permanent reports a module that cannot be unloaded ("[permanent]").
	Permanent bool
}

// LsmodCommand lists loaded kernel modules.
var LsmodCommand = shell.New("lsmod")

// LsmodProbe is the loaded-modules probe.
var LsmodProbe = Probe[map[string]Module]{Name: "lsmod", Command: LsmodCommand, Parse: ParseLsmod}

// ParseLsmod reads the output of lsmod: a "Module Size Used by" header, then
// "name size refs [holder,holder...]" lines.
func ParseLsmod(out string) (map[string]Module, error) {
	const fact = "lsmod"
	mods := map[string]Module{}
	for i, line := range lines(out) {
		f := strings.Fields(line)
		if len(f) == 0 || i == 0 && f[0] == "Module" {
			continue
		}
		if len(f) < 3 {
			return nil, lineError(fact, i+1, line, "want \"name size refs [used by]\"")
		}
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || size < 0 {
			return nil, wrapLineError(fact, i+1, line, err, "size")
		}
		m := Module{Size: size, Refs: -1}
		if f[2] != "-" {
			if m.Refs, err = atoi(f[2]); err != nil || m.Refs < 0 {
				return nil, wrapLineError(fact, i+1, line, err, "use count")
			}
		}
		for _, extra := range f[3:] {
			for _, h := range strings.Split(extra, ",") {
				switch h = strings.TrimSpace(h); h {
				case "":
				case "[permanent]":
					m.Permanent = true
				default:
					m.UsedBy = append(m.UsedBy, h)
				}
			}
		}
		mods[f[0]] = m
	}
	return mods, nil
}
