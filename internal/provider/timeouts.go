package provider

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timeouts/resource/timeouts"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
)

// deadlines are a resource's defaults for its timeouts block: how long a whole create,
// read, update or delete may take. Every remote step has its own bound besides (an SSH
// command 30 minutes, a package or firmware step 2 hours, a gNMI call 30 seconds): the
// block bounds the operation, and reaching it stops the operation as Ctrl-C does, so a
// package or firmware step that has started still runs to its end.
type deadlines struct{ create, read, update, delete time.Duration }

// hostDeadlines leave an OFED install with its DKMS builds room on a slow host.
var hostDeadlines = deadlines{create: 3 * time.Hour, read: 20 * time.Minute, update: 3 * time.Hour, delete: time.Hour}

// switchDeadlines cover a transaction, its retries and the read back.
var switchDeadlines = deadlines{create: 20 * time.Minute, read: 5 * time.Minute, update: 20 * time.Minute, delete: 20 * time.Minute}

// block is the timeouts block, each attribute naming its default.
func (d deadlines) block() schema.Block {
	text := func(op string, v time.Duration) string {
		return fmt.Sprintf("How long a %s may take, as a Go duration (`90m`). Default `%s`. On reaching it the provider stops as on Ctrl-C: "+
			"a package or firmware step that has started runs to its end, and what was done is saved.", op, v)
	}
	return timeouts.Block(context.Background(), timeouts.Opts{
		Create: true, Read: true, Update: true, Delete: true,
		CreateDescription: text("create", d.create), ReadDescription: text("refresh", d.read),
		UpdateDescription: text("update", d.update), DeleteDescription: text("destroy", d.delete),
	})
}

// withBlock adds the timeouts block to s.
func (d deadlines) withBlock(s schema.Schema) schema.Schema {
	if s.Blocks == nil {
		s.Blocks = map[string]schema.Block{}
	}
	s.Blocks["timeouts"] = d.block()
	return s
}

// timeoutsAttr is the timeouts block's attribute in a plan or a state.
var timeoutsAttr = path.Root("timeouts")

type attributeGetter interface {
	GetAttribute(context.Context, path.Path, any) diag.Diagnostics
}

var (
	_ attributeGetter = tfsdk.Plan{}
	_ attributeGetter = tfsdk.State{}
)

// operation is one of the timeouts block's operations.
type operation int

const (
	opCreate operation = iota
	opRead
	opUpdate
	opDelete
)

// opNames are the timeouts block's attribute names.
var opNames = [...]string{opCreate: "create", opRead: "read", opUpdate: "update", opDelete: "delete"}

// bound returns ctx bounded by the operation's timeout: from the timeouts block in from (the
// plan of a create or an update, the state of a read or a delete), else the default. finish
// ends it, and names the timeout in diags when the operation failed by reaching it.
func (d deadlines) bound(ctx context.Context, from attributeGetter, op operation, diags *diag.Diagnostics) (_ context.Context, finish func()) {
	var t timeouts.Value
	if diags.Append(from.GetAttribute(ctx, timeoutsAttr, &t)...); diags.HasError() {
		return ctx, func() {}
	}
	var limit time.Duration
	var d2 diag.Diagnostics
	switch op {
	case opCreate:
		limit, d2 = t.Create(ctx, d.create)
	case opRead:
		limit, d2 = t.Read(ctx, d.read)
	case opUpdate:
		limit, d2 = t.Update(ctx, d.update)
	default:
		limit, d2 = t.Delete(ctx, d.delete)
	}
	if diags.Append(d2...); diags.HasError() {
		return ctx, func() {}
	}
	bounded, cancel := context.WithTimeout(ctx, limit)
	return bounded, func() {
		if diags.HasError() && errors.Is(bounded.Err(), context.DeadlineExceeded) && ctx.Err() == nil {
			diags.AddAttributeError(timeoutsAttr.AtName(opNames[op]), "Operation Timed Out",
				fmt.Sprintf("The %s did not finish within %s (timeouts.%s): it stopped as on Ctrl-C, see the errors above for what was done. "+
					"Raise timeouts.%s in the resource's timeouts block if the host or switch is slow but working.", opNames[op], limit, opNames[op], opNames[op]))
		}
		cancel()
	}
}
