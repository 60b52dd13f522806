package gnmi

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name      string
		cfg       Config
		fragments []string // empty: valid
	}{
		{"tls with password", Config{Address: "10.0.0.1:8080", Username: "admin", Password: "x", CAFile: "ca.pem"}, nil},
		{"mtls", Config{Address: "sw1:50051", CertFile: "c.pem", KeyFile: "k.pem", ServerName: "sw1.lab"}, nil},
		{"insecure", Config{Address: "[::1]:8080", Insecure: true, Username: "u", Password: "p"}, nil},
		{"no address", Config{}, []string{"address is required"}},
		{"no port", Config{Address: "10.0.0.1"}, []string{"want host:port"}},
		{"bad port", Config{Address: "10.0.0.1:99999"}, []string{"port in 1..65535"}},
		{"no host", Config{Address: ":8080"}, []string{"want a host"}},
		{"user without password", Config{Address: "a:1", Username: "admin"}, []string{"username and password must be set together"}},
		{"cert without key", Config{Address: "a:1", CertFile: "c.pem"}, []string{"cert_file and key_file"}},
		{"insecure with tls", Config{Address: "a:1", Insecure: true, CAFile: "ca.pem"}, []string{"insecure (plaintext) excludes"}},
		{"negative durations", Config{Address: "a:1", DialTimeout: -time.Second, SetTimeout: -1, Retries: -1},
			[]string{"dial_timeout -1s must not be negative", "set_timeout", "retries -1"}},
		{"negative read and keepalive limits", Config{Address: "a:1", GetTimeout: -1, KeepaliveTime: -1, KeepaliveTimeout: -1, MaxResponseSize: -1},
			[]string{"get_timeout", "keepalive_time", "keepalive_timeout", "max_response_size -1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if len(tt.fragments) == 0 {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if err == nil {
				t.Fatal("Validate() = nil, want an error")
			}
			for _, f := range tt.fragments {
				if !strings.Contains(err.Error(), f) {
					t.Errorf("Validate() = %q, lacks %q", err, f)
				}
			}
		})
	}
}

func TestConfigDefaults(t *testing.T) {
	c := Config{Address: "a:1"}.withDefaults()
	if c.SetTimeout != 10*time.Minute || c.DialTimeout != DefaultDialTimeout || c.RetryDelay != DefaultRetryDelay {
		t.Errorf("defaults = %+v", c)
	}
	if c.GetTimeout != 30*time.Second || c.MaxResponseSize != 64<<20 || c.KeepaliveTime != 5*time.Minute || c.KeepaliveTimeout != 20*time.Second {
		t.Errorf("read and keepalive defaults = %+v, want 30s, 64 MiB, 5m, 20s", c)
	}
	if c := (Config{RetryDelay: time.Minute}).withDefaults(); c.RetryMaxDelay != time.Minute {
		t.Errorf("RetryMaxDelay %s below RetryDelay", c.RetryMaxDelay)
	}
}

// TestConfigCheckNamesFields: each problem names its rule, the field it is about and the
// fields it depends on, so the provider can put it on the attribute to fix.
func TestConfigCheckNamesFields(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []ConfigError
	}{
		{"valid", Config{Address: "sw1:8080", Username: "u", Password: "p", CAFile: "ca.pem"}, nil},
		{"no address", Config{}, []ConfigError{{Rule: RuleAddress, Field: "Address", Fields: []string{"Address"}}}},
		{"password alone", Config{Address: "a:1", Password: "p"}, []ConfigError{
			{Rule: RuleCredentials, Field: "Password", Fields: []string{"Password", "Username"}},
		}},
		{"username and cert alone", Config{Address: "a:1", Username: "u", CertFile: "c.pem"}, []ConfigError{
			{Rule: RuleCredentials, Field: "Username", Fields: []string{"Username", "Password"}},
			{Rule: RuleClientCertificate, Field: "CertFile", Fields: []string{"CertFile", "KeyFile"}},
		}},
		{"insecure with a key and a server name", Config{Address: "a:1", Insecure: true, CertFile: "c.pem", KeyFile: "k.pem", ServerName: "sw1"}, []ConfigError{
			{Rule: RuleInsecureTLS, Field: "Insecure", Fields: []string{"Insecure", "CertFile", "KeyFile", "ServerName"}},
		}},
		{"negative", Config{Address: "a:1", RetryMaxDelay: -1, Retries: -1}, []ConfigError{
			{Rule: RuleNegative, Field: "RetryMaxDelay", Fields: []string{"RetryMaxDelay"}},
			{Rule: RuleNegative, Field: "Retries", Fields: []string{"Retries"}},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []ConfigError
			for _, e := range tt.cfg.Check() {
				got = append(got, ConfigError{Rule: e.Rule, Field: e.Field, Fields: e.Fields})
			}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(ConfigError{})); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigErrorUnwrapsAddress(t *testing.T) {
	errs := Config{Address: "10.0.0.1"}.Check()
	if len(errs) != 1 || errs[0].Err == nil || !errors.Is(errs[0], errs[0].Err) {
		t.Fatalf("Check = %v, want one address error with its cause", errs)
	}
}
