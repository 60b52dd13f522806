package provider

import (
	"crypto/tls"
	"fmt"
	"regexp"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"

	"github.com/clusterbid/terraform-provider-roce/internal/tlspin"
)

// TestSwitchQoSCumulusCertificatePin configures a Cumulus twin trusted by its key alone, the
// resource's own certificate_pin and no CA bundle, as a switch with its first-boot
// self-signed certificate is; the pin of another key is refused before anything is sent.
func TestSwitchQoSCumulusCertificatePin(t *testing.T) {
	f := newCumulusFixture(t, "5.14")
	conn, err := tls.Dial("tcp", f.addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // reading the certificate to pin
	if err != nil {
		t.Fatal(err)
	}
	pin := tlspin.Of(conn.ConnectionState().PeerCertificates[0]).String()
	conn.Close()
	other := newCumulusFixture(t, "5.14")
	config := func(pin string) string {
		return fmt.Sprintf("provider \"roce\" {\n  nvue = {\n    username = \"cumulus\"\n    password = %q\n  }\n}\n", twinPassword) +
			fmt.Sprintf(`
resource "roce_switch_qos" "leaf1" {
  address        = %q
  os             = "cumulus"
  ports          = ["swp1", "swp2"]
  cable_length_m = 5
  ecn  = { min_threshold_bytes = 102400, max_threshold_bytes = 153600 }
  pfc  = { pause_threshold_bytes = 256000 }
  nvue = { certificate_pin = %q }
}
`, f.addr, pin)
	}
	otherPin := func() string {
		c, err := tls.Dial("tcp", other.addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // as above
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return tlspin.Of(c.ConnectionState().PeerCertificates[0]).String()
	}()
	cliTest(t, resource.TestCase{
		ProtoV6ProviderFactories: testProviderFactories,
		Steps: []resource.TestStep{
			{Config: config(otherPin), ExpectError: regexp.MustCompile(`not the pinned one`)},
			{Config: config(pin)},
			{Config: config(pin), PlanOnly: true},
		},
	})
}
