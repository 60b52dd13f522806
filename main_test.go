package main

import (
	"maps"
	"testing"
)

func TestFollowTerraformLogLevel(t *testing.T) {
	for _, c := range []struct {
		name string
		env  map[string]string
		want map[string]string // the SDK levels afterwards
	}{
		{"logging off", map[string]string{},
			map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "OFF", "TF_LOG_PROVIDER_ROCE": "OFF"}},
		{"TF_LOG", map[string]string{"TF_LOG": "debug"},
			map[string]string{"TF_LOG_SDK": "DEBUG", "TF_LOG_SDK_PROTO": "DEBUG", "TF_LOG_SDK_FRAMEWORK": "DEBUG", "TF_LOG_PROVIDER_ROCE": "DEBUG"}},
		{"TF_LOG_PROVIDER before TF_LOG", map[string]string{"TF_LOG": "ERROR", "TF_LOG_PROVIDER": "INFO"},
			map[string]string{"TF_LOG_SDK": "INFO", "TF_LOG_SDK_PROTO": "INFO", "TF_LOG_SDK_FRAMEWORK": "INFO", "TF_LOG_PROVIDER_ROCE": "INFO"}},
		{"JSON is TRACE", map[string]string{"TF_LOG": "JSON"},
			map[string]string{"TF_LOG_SDK": "TRACE", "TF_LOG_SDK_PROTO": "TRACE", "TF_LOG_SDK_FRAMEWORK": "TRACE", "TF_LOG_PROVIDER_ROCE": "TRACE"}},
		{"an unknown name is TRACE", map[string]string{"TF_LOG": "1"},
			map[string]string{"TF_LOG_SDK": "TRACE", "TF_LOG_SDK_PROTO": "TRACE", "TF_LOG_SDK_FRAMEWORK": "TRACE", "TF_LOG_PROVIDER_ROCE": "TRACE"}},
		{"an explicit level stays", map[string]string{"TF_LOG_SDK_FRAMEWORK": "TRACE", "TF_LOG_PROVIDER_ROCE": ""},
			map[string]string{"TF_LOG_SDK": "OFF", "TF_LOG_SDK_PROTO": "OFF", "TF_LOG_SDK_FRAMEWORK": "TRACE", "TF_LOG_PROVIDER_ROCE": ""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			env := maps.Clone(c.env)
			lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
			followTerraformLogLevel(lookup, func(k, v string) error { env[k] = v; return nil })
			for k, want := range c.want {
				if got, ok := env[k]; !ok || got != want {
					t.Errorf("%s = %q (set %v), want %q", k, got, ok, want)
				}
			}
		})
	}
}
