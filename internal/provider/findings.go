package provider

import (
	"context"
	"slices"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

// problem is one thing wrong with a configuration, on the attribute to fix, in the
// resource's words: what a domain violation becomes once a resource names its fields, and
// what a resource's own rules say directly.
type problem struct {
	warning         bool
	at              path.Path
	summary, detail string
}

// problems are what a configuration's rules found, in the order they ran.
type problems []problem

func (ps *problems) errorAt(at path.Path, summary, detail string) {
	*ps = append(*ps, problem{at: at, summary: summary, detail: detail})
}

func (ps *problems) warningAt(at path.Path, summary, detail string) {
	*ps = append(*ps, problem{warning: true, at: at, summary: summary, detail: detail})
}

// add words the violations in names' attributes and appends them.
func (ps *problems) add(vs violation.List, names fieldNames) {
	for _, v := range vs {
		summary, detail := v.Words(names.name)
		*ps = append(*ps, problem{warning: v.Severity == violation.Warning, at: names.path(v.At), summary: summary, detail: detail})
	}
}

func (ps problems) hasErrors() bool {
	return slices.ContainsFunc(ps, func(p problem) bool { return !p.warning })
}

// report adds the problems to diags on their attributes.
func (ps problems) report(diags *diag.Diagnostics) {
	for _, p := range ps {
		if p.warning {
			diags.AddAttributeWarning(p.at, p.summary, p.detail)
		} else {
			diags.AddAttributeError(p.at, p.summary, p.detail)
		}
	}
}

// fieldNames is a resource's table from the fields its rules name (violation.Field names, or
// the whole "TrafficClass.DSCP[0]" form for one element) to its attributes. A list or map
// field's element is the attribute's element, unless the element itself is in the table.
type fieldNames map[string]path.Path

// path is the attribute of f; a field the table lacks is put on the resource as a whole. A
// field within a list element (violation.Field.In) is the element's attribute followed by the
// table's path for "<list field>.<field>", which is relative to the element.
func (t fieldNames) path(f violation.Field) path.Path {
	if parent := f.Parent(); parent != nil {
		return t.within(*parent, f)
	}
	if p, ok := t[f.String()]; ok {
		return p
	}
	p, ok := t[f.Name]
	if !ok {
		return path.Empty()
	}
	if f.Index >= 0 {
		p = p.AtListIndex(f.Index)
	}
	if f.Key != "" {
		p = p.AtMapKey(f.Key)
	}
	return p
}

func (t fieldNames) within(parent, f violation.Field) path.Path {
	base := t.path(parent)
	rel, ok := t[parent.Name+"."+f.Name]
	if base.Equal(path.Empty()) || !ok {
		return path.Empty()
	}
	for _, step := range rel.Steps() {
		switch s := step.(type) {
		case path.PathStepAttributeName:
			base = base.AtName(string(s))
		case path.PathStepElementKeyInt:
			base = base.AtListIndex(int(s))
		case path.PathStepElementKeyString:
			base = base.AtMapKey(string(s))
		}
	}
	if f.Index >= 0 {
		base = base.AtListIndex(f.Index)
	}
	if f.Key != "" {
		base = base.AtMapKey(f.Key)
	}
	return base
}

// name is how users write the attribute of f: "ecn.min_threshold_bytes", "rdma.dscp[1]",
// `extra["NCCL_IB_TIMEOUT"]`; a field the table lacks by its Go name.
func (t fieldNames) name(f violation.Field) string {
	if p := t.path(f); !p.Equal(path.Empty()) {
		return p.String()
	}
	return f.String()
}

// with is t plus more, for a resource that shares a table and names some fields itself.
func (t fieldNames) with(more fieldNames) fieldNames {
	out := fieldNames{}
	for _, m := range []fieldNames{t, more} {
		for k, v := range m {
			out[k] = v
		}
	}
	return out
}

// attrPath is a path from dot-separated attribute names, for the tables.
func attrPath(names ...string) path.Path {
	p := path.Root(names[0])
	for _, n := range names[1:] {
		p = p.AtName(n)
	}
	return p
}

// checkedModel is a resource model that applies its own rules once its values are known.
type checkedModel interface {
	known() bool
	validate() problems
}

// validateConfig is a resource's ValidateConfig: it reads the configuration into a new M and
// reports the model's problems. A configuration with values from variables or other
// resources is checked once they are known (ModifyPlan).
func validateConfig[M any, P interface {
	*M
	checkedModel
}](ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	m := P(new(M))
	resp.Diagnostics.Append(req.Config.Get(ctx, m)...)
	if resp.Diagnostics.HasError() || !m.known() {
		return
	}
	m.validate().report(&resp.Diagnostics)
}
