package nvue

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestConfigCheckNamesFields: each problem names its rule, the field it is about and the
// fields it depends on, so the provider can put it on the attribute to fix.
func TestConfigCheckNamesFields(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want []ConfigError
	}{
		{"valid", Config{Address: "sw1:8765", Username: "u", Password: "p", CAFile: "ca.pem"}, nil},
		{"nothing", Config{}, []ConfigError{
			{Rule: RuleAddress, Field: "Address", Fields: []string{"Address"}},
			{Rule: RuleLogin, Fields: []string{"Username", "Password"}},
		}},
		{"password alone", Config{Address: "a:1", Password: "p"}, []ConfigError{
			{Rule: RuleLogin, Field: "Password", Fields: []string{"Password", "Username"}},
		}},
		{"insecure with a CA", Config{Address: "a:1", Username: "u", Password: "p", Insecure: true, CAFile: "ca.pem"}, []ConfigError{
			{Rule: RuleInsecureCA, Field: "Insecure", Fields: []string{"Insecure", "CAFile"}},
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

func TestDialRefusesWhatValidateRefuses(t *testing.T) {
	_, err := Dial(Config{Address: "sw1", Username: "u"})
	for _, want := range []string{"nvue sw1: ", "address: ", "a username and a password are required"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Dial = %v, want an error containing %q", err, want)
		}
	}
}
