package provider

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/terraform-plugin-testing/terraform"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// switchFixture is a SONiC switch twin on loopback with TLS and password authentication, as
// users meet a real switch, plus the provider block that reaches it.
type switchFixture struct {
	twin     *switchtwin.Twin
	addr     string
	caFile   string
	provider string
}

const (
	twinUser     = "admin"
	twinPassword = "YourPaSsWoRd"
)

func newSwitchFixture(t *testing.T, opts switchtwin.Options) *switchFixture {
	t.Helper()
	pki, files := gnmitest.PKIFiles(t)
	return newSwitchFixtureWithPKI(t, opts, pki, files)
}

// newSwitchFixtureWithPKI is newSwitchFixture with a certificate authority that other twins
// share, so one provider gnmi block reaches them all.
func newSwitchFixtureWithPKI(t *testing.T, opts switchtwin.Options, pki *switchtwin.PKI, files switchtwin.PKIFiles) *switchFixture {
	t.Helper()
	opts.TLS = pki.ServerTLS(false)
	opts.Username, opts.Password = twinUser, twinPassword
	opts.RecordRPCs = true
	tw, err := switchtwin.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := tw.Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tw.Stop)
	return &switchFixture{
		twin: tw, addr: addr, caFile: files.CA,
		provider: fmt.Sprintf("provider \"roce\" {\n  gnmi = {\n    username = %q\n    password = %q\n    ca_file  = %q\n  }\n}\n", twinUser, twinPassword, files.CA),
	}
}

// config is the provider block followed by body.
func (f *switchFixture) config(body string, args ...any) string {
	return f.provider + fmt.Sprintf(body, args...)
}

// unchangedSince is a check that the twin's CONFIG_DB is before again, as a destroy must
// leave it.
func (f *switchFixture) unchangedSince(before sonic.DB) func(*terraform.State) error {
	return func(*terraform.State) error {
		if diff := cmp.Diff(before, f.twin.Snapshot()); diff != "" {
			return fmt.Errorf("destroy left the switch different from before (-before +after):\n%s", diff)
		}
		return nil
	}
}

// entry returns one CONFIG_DB entry of the twin, empty when missing.
func (f *switchFixture) entry(table, key string) map[string]string {
	e, _ := f.twin.Entry(table, key)
	return e
}
