package provider

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// checkedModel is a resource model that applies its own rules once its values are known.
type checkedModel interface {
	known() bool
	validate() fabric.Findings
}

// validateConfig is a resource's ValidateConfig: it reads the configuration into a new M and
// adds the model's findings, renamed onto the resource's attributes. A configuration with
// values from variables or other resources is checked once they are known (ModifyPlan).
func validateConfig[M any, P interface {
	*M
	checkedModel
}](ctx context.Context, req resource.ValidateConfigRequest, resp *resource.ValidateConfigResponse, renames map[string]string) {
	if !req.Config.Raw.IsFullyKnown() {
		return
	}
	m := P(new(M))
	resp.Diagnostics.Append(req.Config.Get(ctx, m)...)
	if resp.Diagnostics.HasError() || !m.known() {
		return
	}
	addFindings(&resp.Diagnostics, m.validate(), renames)
}

// addFindings turns domain findings into diagnostics on the attributes they name. renames maps
// the attribute names of a shared rule onto the resource's own where they differ, in the
// findings' paths and in their text (see fabric.Findings.Rename).
func addFindings(diags *diag.Diagnostics, fs fabric.Findings, renames map[string]string) {
	for _, f := range fs.Rename(renames) {
		p := findingPath(f.Path)
		if f.Severity == fabric.SeverityWarning {
			diags.AddAttributeWarning(p, f.Summary, f.Detail)
		} else {
			diags.AddAttributeError(p, f.Summary, f.Detail)
		}
	}
}

// pathStep is one step of a finding path: an attribute name, then a list index [1] or a map
// key ["NCCL_IB_TIMEOUT"] (a Go-quoted string).
var pathStep = regexp.MustCompile(`^([a-z0-9_]+)(?:\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])?`)

// findingPath reads a finding's "ecn.min_threshold_bytes", "rdma.dscp[1]" or
// `extra["NCCL_IB_TIMEOUT"]` as a path; it stops at the first step it cannot read.
func findingPath(s string) path.Path {
	p := path.Empty()
	for s != "" {
		m := pathStep.FindStringSubmatch(s)
		if m == nil {
			return p
		}
		p = p.AtName(m[1])
		switch {
		case m[2] != "":
			i, _ := strconv.Atoi(m[2])
			p = p.AtListIndex(i)
		case m[3] != "":
			key, err := strconv.Unquote(m[3])
			if err != nil {
				return p
			}
			p = p.AtMapKey(key)
		}
		rest := s[len(m[0]):]
		if rest != "" && !strings.HasPrefix(rest, ".") {
			return p
		}
		s = strings.TrimPrefix(rest, ".")
	}
	return p
}
