package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema/planmodifier"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// aliasOf plans an attribute that has a second name (a deprecated one, or its
// replacement): the value configured on this name, else the one configured on
// other, else def. Both names so always hold the same value.
func aliasOf(other path.Path, def int64) planmodifier.Int64 {
	return aliasPlan{other: other, def: def}
}

type aliasPlan struct {
	other path.Path
	def   int64
}

func (a aliasPlan) Description(context.Context) string {
	return "takes the value of " + a.other.String() + " when only that name is set"
}

func (a aliasPlan) MarkdownDescription(ctx context.Context) string { return a.Description(ctx) }

func (a aliasPlan) PlanModifyInt64(ctx context.Context, req planmodifier.Int64Request, resp *planmodifier.Int64Response) {
	if !req.ConfigValue.IsNull() {
		return
	}
	var other types.Int64
	resp.Diagnostics.Append(req.Config.GetAttribute(ctx, a.other, &other)...)
	switch {
	case resp.Diagnostics.HasError():
	case other.IsUnknown():
		resp.PlanValue = types.Int64Unknown()
	case !other.IsNull():
		resp.PlanValue = other
	default:
		resp.PlanValue = types.Int64Value(a.def)
	}
}
