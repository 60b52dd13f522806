package gnmi

import (
	"slices"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
)

// Path is a gNMI path: an origin and element names, without element keys (the servers this
// client talks to address everything by names; SONiC's composite key "Ethernet0|3" is one
// element). Treat a Path as immutable.
type Path struct {
	Origin string
	Elems  []string
}

// elemEscaper escapes the separator and the escape character inside a path element. It is
// built once: a Replacer builds its tables on first use, and a plan renders a path per read.
var elemEscaper = strings.NewReplacer(`\`, `\\`, `/`, `\/`)

// String returns the readable form "origin:a/b/c", with "/" and "\" inside an element
// escaped by "\"; Get keys its answers by it.
func (p Path) String() string {
	var b strings.Builder
	if p.Origin != "" {
		b.WriteString(p.Origin)
		b.WriteByte(':')
	}
	for i, e := range p.Elems {
		if i > 0 {
			b.WriteByte('/')
		}
		b.WriteString(elemEscaper.Replace(e))
	}
	return b.String()
}

// Proto returns p as a gNMI path.
func (p Path) Proto() *gpb.Path {
	out := &gpb.Path{Origin: p.Origin, Elem: make([]*gpb.PathElem, len(p.Elems))}
	for i, e := range p.Elems {
		out.Elem[i] = &gpb.PathElem{Name: e}
	}
	return out
}

// PathFromProto returns prefix + p as a Path; the origin of p wins over the prefix's.
// Element keys are ignored.
func PathFromProto(prefix, p *gpb.Path) Path {
	out := Path{Origin: p.GetOrigin()}
	if out.Origin == "" {
		out.Origin = prefix.GetOrigin()
	}
	for _, e := range append(slices.Clone(prefix.GetElem()), p.GetElem()...) {
		out.Elems = append(out.Elems, e.GetName())
	}
	return out
}
