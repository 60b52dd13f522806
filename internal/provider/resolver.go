package provider

import (
	"fmt"
	"strconv"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// resolver picks each setting from the configuration, else its environment variable, else the
// default, and collects every problem instead of stopping at the first.
type resolver struct {
	getenv func(string) string
	diags  diag.Diagnostics
}

func (r *resolver) attrError(p path.Path, summary, detail string) {
	r.diags.AddAttributeError(p, summary, detail)
}

// lookup returns the configured value, else the environment's, and where it came from.
func (r *resolver) lookup(configured string, isSet bool, env string) (value, source string, ok bool) {
	if isSet {
		return configured, "", true
	}
	if v := r.getenv(env); v != "" {
		return v, env, true
	}
	return "", "", false
}

func (r *resolver) str(v types.String, env, def string) string {
	if val, _, ok := r.lookup(v.ValueString(), !v.IsNull() && !v.IsUnknown(), env); ok {
		return val
	}
	return def
}

func (r *resolver) boolean(v types.Bool, p path.Path, env string, def bool) bool {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueBool()
	}
	raw := r.getenv(env)
	if raw == "" {
		return def
	}
	b, err := strconv.ParseBool(raw)
	if err != nil {
		r.attrError(p, "Invalid Environment Variable",
			fmt.Sprintf("%s is %q, which is not a boolean. Set it to true or false.", env, raw))
		return def
	}
	return b
}

func (r *resolver) integer(v types.Int64, p path.Path, env string, def, lo, hi int64) int {
	var n int64
	source := ""
	switch {
	case !v.IsNull() && !v.IsUnknown():
		n = v.ValueInt64()
	case r.getenv(env) != "":
		raw := r.getenv(env)
		parsed, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			r.attrError(p, "Invalid Environment Variable",
				fmt.Sprintf("%s is %q, which is not a whole number. Set it to a number from %d to %d.", env, raw, lo, hi))
			return int(def)
		}
		n, source = parsed, " (from "+env+")"
	default:
		return int(def)
	}
	if n < lo || n > hi {
		r.attrError(p, "Value Out of Range",
			fmt.Sprintf("%s is %d%s; it must be from %d to %d.", p.String(), n, source, lo, hi))
		return int(def)
	}
	return int(n)
}

func (r *resolver) port(v types.Int64, p path.Path, env string, def int64) int {
	return r.integer(v, p, env, def, 1, 65535)
}

func (r *resolver) duration(v types.String, p path.Path, env string, def time.Duration) time.Duration {
	raw, source, ok := r.lookup(v.ValueString(), !v.IsNull() && !v.IsUnknown(), env)
	if !ok {
		return def
	}
	d, err := time.ParseDuration(raw)
	if err != nil || d <= 0 {
		from := ""
		if source != "" {
			from = " (from " + source + ")"
		}
		r.attrError(p, "Invalid Duration",
			fmt.Sprintf("%s is %q%s; it must be a positive Go duration such as \"30s\" or \"10m\".", p.String(), raw, from))
		return def
	}
	return d
}
