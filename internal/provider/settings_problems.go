package provider

import (
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/clusterbid/terraform-provider-roce/internal/configcheck"
)

// attributes are the attributes of a block behind the fields of a transport's configuration,
// by the fields' Go names.
type attributes struct {
	block  path.Path
	fields map[string]setting
}

// of returns the attribute behind field; a field no attribute sets is the block itself.
func (a attributes) of(field string) setting {
	if s, ok := a.fields[field]; ok {
		return s
	}
	return setting{path: a.block, v: types.StringNull()}
}

// placement is how the provider puts the problems of a transport's Check
// ([configcheck.Problem]) on the attributes of its block.
type placement[R ~int] struct {
	// attrs are the attributes behind the fields of the part of the configuration a
	// problem is in (its Scope: 0 for the configuration itself).
	attrs func(scope int) attributes
	// leave reports a problem that is checked elsewhere (the address, which is each
	// resource's); nil when none is.
	leave func(e *configcheck.Problem[R]) bool
	// word says, for the attribute to fix, where the value came from, what is wrong with
	// it and how to fix it.
	word func(e *configcheck.Problem[R], f func(field string) setting) (at path.Path, summary, detail string)
}

// place puts each problem on its attribute, leaving alone one that reads an attribute not
// known yet: the apply checks it.
func (p placement[R]) place(r *resolver, problems []*configcheck.Problem[R]) {
	for _, e := range problems {
		f := p.attrs(e.Scope)
		if p.leave != nil && p.leave(e) || slices.ContainsFunc(e.Fields, func(name string) bool { return f.of(name).v.IsUnknown() }) {
			continue
		}
		at, summary, detail := p.word(e, f.of)
		r.attrError(at, summary, detail)
	}
}

// ownProblem is a problem of a switch's connection settings put on the resource's attribute.
type ownProblem struct {
	at              path.Path
	summary, detail string
}

// ownProblems words the problems of a switch's configuration, the resource's block over the
// provider's, that the resource's block takes part in (word reports the others false); own
// names the block's attributes. With rules, only problems of those rules count.
func ownProblems[R ~int](problems []*configcheck.Problem[R], own map[string]setting,
	word func(e *configcheck.Problem[R], own map[string]setting) (at path.Path, summary, detail string, ok bool), rules ...R) []ownProblem {
	var ps []ownProblem
	for _, e := range problems {
		if len(rules) > 0 && !slices.Contains(rules, e.Rule) {
			continue
		}
		if at, summary, detail, ok := word(e, own); ok {
			ps = append(ps, ownProblem{at, summary, detail})
		}
	}
	return ps
}
