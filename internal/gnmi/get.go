package gnmi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// IsNotFound reports whether err says a path does not exist: SONiC answers
// a Get of a missing key or field with NotFound "No valid entry found".
func IsNotFound(err error) bool { return status.Code(err) == codes.NotFound }

// Get reads paths in one JSON_IETF Get and returns each value's JSON keyed
// by the path's String form. SONiC fails the whole Get with NotFound when a
// key or field is missing (see IsNotFound) and leaves an empty table out of
// the answer.
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
	_, err := retry(ctx, c.readRetries(), c.backoff(), func(ctx context.Context) error {
		var err error
		resp, err = c.rpc.Get(ctx, req)
		return err
	})
	return resp, err
}

// GetTarget reads paths of a non-origin target in one JSON_IETF Get, e.g. target "COUNTERS_DB"
// with paths such as [COUNTERS_PORT_NAME_MAP] or [COUNTERS, oid:0x1000000000002]. Each value's
// JSON is keyed by the path's elements joined with "/"; a scalar answer (a string_val) comes
// back as a JSON string.
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

// GetEntry reads one CONFIG_DB entry. A missing entry is an error for which
// IsNotFound is true.
func (c *Client) GetEntry(ctx context.Context, table, key string) (sonic.Entry, error) {
	p := ConfigDBPath(table, key, "")
	values, err := c.Get(ctx, p)
	if err != nil {
		return nil, err
	}
	var e sonic.Entry
	if err := json.Unmarshal(values[p.String()], &e); err != nil {
		return nil, fmt.Errorf("gnmi get %s: decode %s: %w", c.cfg.Address, p, err)
	}
	return e, nil
}

// GetTables reads whole CONFIG_DB tables in one Get; missing or empty
// tables are absent from the result.
func (c *Client) GetTables(ctx context.Context, tables ...string) (sonic.DB, error) {
	return c.GetDBTables(ctx, ConfigDB, tables...)
}

// GetDBTables reads whole tables of one database (ConfigDB, ApplDB) in one Get: sonic-gnmi
// answers a Get whose paths name two databases with "Target conflict in path" (sonic-gnmi
// sonic_data_client/mixed_db_client.go ParseDatabase).
func (c *Client) GetDBTables(ctx context.Context, db string, tables ...string) (sonic.DB, error) {
	paths := make([]Path, len(tables))
	for i, t := range tables {
		paths[i] = DBPath(db, t, "", "")
	}
	values, err := c.Get(ctx, paths...)
	if err != nil {
		return nil, err
	}
	out := sonic.DB{}
	for _, p := range paths {
		raw, ok := values[p.String()]
		if !ok {
			continue
		}
		var t sonic.Table
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("gnmi get %s: decode %s: %w", c.cfg.Address, p, err)
		}
		if len(t) > 0 {
			out[p.Table()] = t
		}
	}
	return out, nil
}

// BuildVersion returns the SONiC build version the switch reports at the
// non-database target OTHERS, path osversion/build, e.g.
// "SONiC.202411.480535-dd8e4c6e2"; sonic.ParseRelease reads the release
// from it.
func (c *Client) BuildVersion(ctx context.Context) (string, error) {
	req := &gpb.GetRequest{
		Prefix:   &gpb.Path{Target: "OTHERS"},
		Path:     []*gpb.Path{{Elem: []*gpb.PathElem{{Name: "osversion"}, {Name: "build"}}}},
		Encoding: gpb.Encoding_JSON_IETF,
	}
	resp, err := c.get(ctx, req)
	if err != nil {
		return "", fmt.Errorf("gnmi get %s: osversion/build: %w", c.cfg.Address, err)
	}
	var raw []byte
	if n := resp.GetNotification(); len(n) > 0 && len(n[0].GetUpdate()) > 0 {
		raw = jsonOf(n[0].GetUpdate()[0].GetVal())
	}
	if raw == nil {
		return "", fmt.Errorf("gnmi get %s: osversion/build: empty answer", c.cfg.Address)
	}
	var v struct {
		BuildVersion string `json:"build_version"`
		Error        string `json:"error"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("gnmi get %s: decode osversion/build: %w", c.cfg.Address, err)
	}
	if v.Error != "" {
		return "", fmt.Errorf("gnmi get %s: osversion/build: switch reports %q", c.cfg.Address, v.Error)
	}
	return v.BuildVersion, nil
}
