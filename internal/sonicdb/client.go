package sonicdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
)

// verifyTimeout bounds the re-read after a failed Set; it runs even when the caller's
// context has ended, because knowing whether the switch holds the change matters most then.
const verifyTimeout = 30 * time.Second

// Client reads and writes one SONiC switch's databases over a gnmi.Client, which it shares
// (its connection and its one Set in flight) with every other user of that switch.
type Client struct {
	g *gnmi.Client
}

// New returns the SONiC database client over g.
func New(g *gnmi.Client) *Client { return &Client{g: g} }

// Address returns the switch address.
func (c *Client) Address() string { return c.g.Address() }

// Get reads paths of one database in one Get and returns each value's JSON keyed by the
// path's gNMI String form. SONiC fails the whole Get with NotFound when a key or field is
// missing (gnmi.IsNotFound) and leaves an empty table out of the answer.
func (c *Client) Get(ctx context.Context, paths ...Path) (map[string]json.RawMessage, error) {
	gp := make([]gnmi.Path, len(paths))
	for i, p := range paths {
		gp[i] = p.GNMI()
	}
	return c.g.Get(ctx, gp...)
}

// GetEntry reads one CONFIG_DB entry. A missing entry is an error for which
// gnmi.IsNotFound is true.
func (c *Client) GetEntry(ctx context.Context, table, key string) (sonic.Entry, error) {
	p := ConfigDBPath(table, key, "")
	values, err := c.Get(ctx, p)
	if err != nil {
		return nil, err
	}
	var e sonic.Entry
	if err := json.Unmarshal(values[p.GNMI().String()], &e); err != nil {
		return nil, fmt.Errorf("gnmi get %s: decode %s: %w", c.Address(), p, err)
	}
	return e, nil
}

// GetTables reads whole CONFIG_DB tables in one Get; missing or empty tables are absent
// from the result.
func (c *Client) GetTables(ctx context.Context, tables ...string) (sonic.DB, error) {
	return c.GetDBTables(ctx, ConfigDB, tables...)
}

// GetDBTables reads whole tables of one database (ConfigDB, ApplDB) in one Get: sonic-gnmi
// answers a Get whose paths name two databases with "Target conflict in path" (sonic-gnmi
// sonic_data_client/mixed_db_client.go ParseDatabase).
func (c *Client) GetDBTables(ctx context.Context, db string, tables ...string) (sonic.DB, error) {
	paths := make([]Path, len(tables))
	for i, t := range tables {
		paths[i] = Path{DB: db, Table: t}
	}
	values, err := c.Get(ctx, paths...)
	if err != nil {
		return nil, err
	}
	out := sonic.DB{}
	for _, p := range paths {
		raw, ok := values[p.GNMI().String()]
		if !ok {
			continue
		}
		var t sonic.Table
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("gnmi get %s: decode %s: %w", c.Address(), p, err)
		}
		if len(t) > 0 {
			out[p.Table] = t
		}
	}
	return out, nil
}

// BuildVersion returns the SONiC build version the switch reports at the non-database
// target OTHERS, path osversion/build (sonic-gnmi sonic_data_client/non_db_client.go), e.g.
// "SONiC.202411.480535-dd8e4c6e2"; sonic.ParseRelease reads the release from it.
func (c *Client) BuildVersion(ctx context.Context) (string, error) {
	values, err := c.g.GetTarget(ctx, "OTHERS", []string{"osversion", "build"})
	if err != nil {
		return "", err
	}
	raw, ok := values["osversion/build"]
	if !ok {
		return "", fmt.Errorf("gnmi get %s OTHERS: osversion/build: empty answer", c.Address())
	}
	var v struct {
		BuildVersion string `json:"build_version"`
		Error        string `json:"error"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("gnmi get %s OTHERS: decode osversion/build: %w", c.Address(), err)
	}
	if v.Error != "" {
		return "", fmt.Errorf("gnmi get %s OTHERS: osversion/build: switch reports %q", c.Address(), v.Error)
	}
	return v.BuildVersion, nil
}

// Set sends b as one SetRequest (gnmi.Client.Set: one in flight per switch, retries,
// timeouts). An invalid or empty batch is an error before anything is sent. Every other
// failure is a *SetError, for which the client has re-read the tables b touches, when the
// request may have reached the switch, to tell whether the switch holds what b sent.
func (c *Client) Set(ctx context.Context, b *Batch) (*gnmi.SetResult, error) {
	if err := b.Err(); err != nil {
		return nil, fmt.Errorf("gnmi set %s: %w", c.Address(), err)
	}
	if b.Len() == 0 {
		return nil, fmt.Errorf("gnmi set %s: empty batch", c.Address())
	}
	res, err := c.g.Set(ctx, b.Request())
	var ge *gnmi.SetError
	if !errors.As(err, &ge) {
		return res, err
	}
	se := &SetError{SetError: ge}
	if ge.NotSent {
		se.Applied = ptr(false)
		return nil, se
	}
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), verifyTimeout)
	defer cancel()
	applied, mismatches, verr := c.verify(vctx, b)
	if verr != nil {
		se.VerifyErr = verr
		return nil, se
	}
	se.Applied, se.Mismatches = ptr(applied), mismatches
	return nil, se
}

// verify re-reads the tables b touches and reports whether applying b again would change
// nothing, that is whether the switch holds what b sent, and otherwise which paths differ.
func (c *Client) verify(ctx context.Context, b *Batch) (bool, []string, error) {
	current, err := c.GetTables(ctx, b.tables()...)
	if err != nil {
		return false, nil, err
	}
	want := current.Clone()
	b.applyTo(want)
	var mismatches []string
	for _, ch := range sonic.Diff(current, want) {
		mismatches = append(mismatches, ConfigDBPath(ch.Table, ch.Key, ch.Field).String())
	}
	return len(mismatches) == 0, mismatches, nil
}

// applyTo applies b to db with SONiC's semantics, in request order.
func (b *Batch) applyTo(db sonic.DB) {
	for _, o := range b.sorted() {
		t, k, f := o.path.Table, o.path.Key, o.path.Field
		switch {
		case o.kind == opDelete && k == "":
			delete(db, t)
		case o.kind == opDelete && f == "":
			db.DeleteEntry(t, k)
		case o.kind == opDelete:
			db.DeleteField(t, k, f)
		case o.entry != nil:
			db.SetEntry(t, k, o.entry)
		default:
			db.SetField(t, k, f, o.value)
		}
	}
}

func ptr[T any](v T) *T { return &v }
