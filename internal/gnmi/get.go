package gnmi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// IsNotFound reports whether err says a path does not exist (SONiC answers a Get of a
// missing key or field with NotFound "No valid entry found").
func IsNotFound(err error) bool { return status.Code(err) == codes.NotFound }

// Get reads paths in one JSON_IETF Get and returns each value's JSON keyed by the path's
// String form; an answer without an origin takes the first path's. A server may fail the
// whole Get when one path is missing (see IsNotFound). Each attempt is bounded by
// Config.GetTimeout, and an answer over Config.MaxResponseSize fails with ResourceExhausted.
func (c *Client) Get(ctx context.Context, paths ...Path) (map[string]json.RawMessage, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("gnmi get %s: no paths", c.cfg.Address)
	}
	req := &gpb.GetRequest{Encoding: gpb.Encoding_JSON_IETF, Type: gpb.GetRequest_ALL}
	for _, p := range paths {
		req.Path = append(req.Path, p.Proto())
	}
	resp, err := c.get(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("gnmi get %s: %w", c.cfg.Address, err)
	}
	out := map[string]json.RawMessage{}
	for _, n := range resp.GetNotification() {
		for _, u := range n.GetUpdate() {
			p := PathFromProto(n.GetPrefix(), u.GetPath())
			if p.Origin == "" {
				p.Origin = paths[0].Origin
			}
			out[p.String()] = jsonOf(u.GetVal())
		}
	}
	return out, nil
}

func (c *Client) get(ctx context.Context, req *gpb.GetRequest) (*gpb.GetResponse, error) {
	var resp *gpb.GetResponse
	err := c.read(ctx, func(ctx context.Context) error {
		var err error
		resp, err = c.rpc.Get(ctx, req)
		return err
	})
	return resp, err
}

// read calls op with the read retries, each attempt bounded by Config.GetTimeout. An attempt
// that runs out of time while ctx has not ended fails with DeadlineExceeded, which is retried;
// the loop stops when ctx ends.
func (c *Client) read(ctx context.Context, op func(context.Context) error) error {
	_, err := retry(ctx, c.readRetries(), c.backoff(), func(ctx context.Context) error {
		deadline := time.Now().Add(c.cfg.GetTimeout)
		actx, cancel := context.WithDeadline(ctx, deadline)
		defer cancel()
		err := op(actx)
		// By the clock, not actx.Err(): grpc can report the deadline before actx's timer fires.
		if status.Code(err) == codes.DeadlineExceeded && ctx.Err() == nil && !time.Now().Before(deadline) {
			return fmt.Errorf("no answer within %s: %w", c.cfg.GetTimeout, err)
		}
		return err
	})
	return c.explainCap(err)
}

// GetTarget reads paths under a prefix target in one JSON_IETF Get (on SONiC e.g. target
// "COUNTERS_DB" with paths such as [COUNTERS_PORT_NAME_MAP] or [COUNTERS, oid:0x10...], or
// "OTHERS" with [osversion, build]). Each value's JSON is keyed by the path's elements
// joined with "/"; a scalar answer (a string_val) comes back as a JSON string. Timeouts and
// the answer cap are Get's.
func (c *Client) GetTarget(ctx context.Context, target string, paths ...[]string) (map[string]json.RawMessage, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("gnmi get %s %s: no paths", c.cfg.Address, target)
	}
	req := &gpb.GetRequest{Prefix: &gpb.Path{Target: target}, Encoding: gpb.Encoding_JSON_IETF, Type: gpb.GetRequest_ALL}
	for _, elems := range paths {
		req.Path = append(req.Path, Path{Elems: elems}.Proto())
	}
	resp, err := c.get(ctx, req)
	if err != nil {
		return nil, fmt.Errorf("gnmi get %s %s: %w", c.cfg.Address, target, err)
	}
	out := map[string]json.RawMessage{}
	for _, n := range resp.GetNotification() {
		for _, u := range n.GetUpdate() {
			out[strings.Join(PathFromProto(n.GetPrefix(), u.GetPath()).Elems, "/")] = jsonOf(u.GetVal())
		}
	}
	return out, nil
}

func jsonOf(v *gpb.TypedValue) json.RawMessage {
	if raw := v.GetJsonIetfVal(); raw != nil {
		return raw
	}
	if s, ok := v.GetValue().(*gpb.TypedValue_StringVal); ok {
		raw, _ := json.Marshal(s.StringVal)
		return raw
	}
	return v.GetJsonVal()
}
