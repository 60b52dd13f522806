package provider

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// Lists and maps stay framework values in the models because a configuration may set them
// from values unknown until apply (a for expression over another resource); these read them.

// stringsOf returns the known string elements of a list.
func stringsOf(l types.List) []string {
	var out []string
	for _, e := range l.Elements() {
		if s, ok := e.(types.String); ok {
			out = append(out, s.ValueString())
		}
	}
	return out
}

// intsOf returns the known number elements of a list.
func intsOf(l types.List) []int {
	var out []int
	for _, e := range l.Elements() {
		if n, ok := e.(types.Int64); ok {
			out = append(out, int(n.ValueInt64()))
		}
	}
	return out
}

// stringMapOf returns the known string elements of a map.
func stringMapOf(m types.Map) map[string]string {
	out := map[string]string{}
	for k, e := range m.Elements() {
		if s, ok := e.(types.String); ok {
			out[k] = s.ValueString()
		}
	}
	return out
}

// isSet reports whether a value is known and not null: given in the configuration.
func isSet(v attr.Value) bool { return !v.IsNull() && !v.IsUnknown() }

// anyUnknown reports whether a value, or any element of a list or map or attribute of an
// object, is unknown.
func anyUnknown(vals ...attr.Value) bool {
	for _, v := range vals {
		if v.IsUnknown() {
			return true
		}
		var elems []attr.Value
		switch c := v.(type) {
		case types.List:
			elems = c.Elements()
		case types.Map:
			for _, e := range c.Elements() {
				elems = append(elems, e)
			}
		case types.Object:
			for _, e := range c.Attributes() {
				elems = append(elems, e)
			}
		}
		if anyUnknown(elems...) {
			return true
		}
	}
	return false
}

// stringMap is a map of strings as a Terraform map value.
func stringMap(values map[string]string) types.Map {
	elems := make(map[string]attr.Value, len(values))
	for k, v := range values {
		elems[k] = types.StringValue(v)
	}
	return types.MapValueMust(types.StringType, elems)
}

func stringList(values []string) types.List {
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.StringValue(v)
	}
	return types.ListValueMust(types.StringType, elems)
}

func int64List(values []int) types.List {
	elems := make([]attr.Value, len(values))
	for i, v := range values {
		elems[i] = types.Int64Value(int64(v))
	}
	return types.ListValueMust(types.Int64Type, elems)
}

// stringOr returns v, or def when v is null or unknown (see intOr).
func stringOr(v types.String, def string) string {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return v.ValueString()
}

// intOr returns v, or def when v is null: in ValidateConfig, attributes the user left out
// are null, their schema defaults not yet applied.
func intOr(v types.Int64, def int) int {
	if v.IsNull() || v.IsUnknown() {
		return def
	}
	return int(v.ValueInt64())
}
