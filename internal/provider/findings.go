package provider

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

// addFindings turns domain findings into diagnostics on the attributes they name. renames maps
// a finding path prefix onto the resource's own attribute names where they differ.
func addFindings(diags *diag.Diagnostics, fs fabric.Findings, renames map[string]string) {
	for _, f := range fs {
		p := findingPath(rename(f.Path, renames))
		if f.Severity == fabric.SeverityWarning {
			diags.AddAttributeWarning(p, f.Summary, f.Detail)
		} else {
			diags.AddAttributeError(p, f.Summary, f.Detail)
		}
	}
}

func rename(p string, renames map[string]string) string {
	for from, to := range renames {
		if strings.HasPrefix(p, from) {
			return to + strings.TrimPrefix(p, from)
		}
	}
	return p
}

var pathStep = regexp.MustCompile(`^([a-z0-9_]+)(?:\[(\d+)\])?$`)

// findingPath reads a finding's "ecn.min_threshold_bytes" or "rdma.dscp[1]" as a path.
func findingPath(s string) path.Path {
	p := path.Empty()
	for _, step := range strings.Split(s, ".") {
		m := pathStep.FindStringSubmatch(step)
		if m == nil {
			return p
		}
		p = p.AtName(m[1])
		if m[2] != "" {
			i, _ := strconv.Atoi(m[2])
			p = p.AtListIndex(i)
		}
	}
	return p
}
