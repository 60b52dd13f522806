package gnmi_test

import (
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/clusterbid/terraform-provider-roce/internal/gnmi"
	"github.com/clusterbid/terraform-provider-roce/internal/gnmi/gnmitest"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

func TestTLSWithPassword(t *testing.T) {
	pki, files := gnmitest.PKIFiles(t)
	tw := gnmitest.Twin(t, switchtwin.Options{Username: "admin", Password: "s3cret", TLS: pki.ServerTLS(false)})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.Insecure, cfg.CAFile, cfg.Username, cfg.Password = false, files.CA, "admin", "s3cret"

	c := gnmitest.Client(t, cfg)
	if _, err := c.Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatalf("Capabilities: %v", err)
	}
	if _, err := c.Set(gnmitest.Ctx(t), mtu9000("Ethernet0")); err != nil {
		t.Fatalf("Set: %v", err)
	}
	if e, _ := tw.Entry("PORT", "Ethernet0"); e["mtu"] != "9000" {
		t.Errorf("mtu = %q after Set", e["mtu"])
	}

	t.Run("wrong password is refused and not retried", func(t *testing.T) {
		tw.ResetStats()
		bad := cfg
		bad.Password, bad.Retries = "nope", 3
		_, err := gnmitest.Client(t, bad).Get(gnmitest.Ctx(t), configDB("PORT", "Ethernet0", "mtu"))
		if status.Code(err) != codes.Unauthenticated {
			t.Fatalf("err = %v, want Unauthenticated", err)
		}
		if n := tw.Stats().RPCs["Get"]; n != 1 {
			t.Errorf("Get sent %d times, want 1", n)
		}
	})
	t.Run("untrusted server certificate", func(t *testing.T) {
		_, otherFiles := gnmitest.PKIFiles(t)
		bad := cfg
		bad.CAFile = otherFiles.CA
		if _, err := gnmitest.Client(t, bad).Capabilities(gnmitest.Ctx(t)); status.Code(err) != codes.Unavailable {
			t.Fatalf("err = %v, want Unavailable (handshake failure)", err)
		}
	})
	t.Run("missing CA file", func(t *testing.T) {
		bad := cfg
		bad.CAFile = files.CA + ".missing"
		if _, err := gnmi.Dial(bad); err == nil {
			t.Fatal("Dial with a missing CA file succeeded")
		}
	})
}

func TestMutualTLS(t *testing.T) {
	pki, files := gnmitest.PKIFiles(t)
	tw := gnmitest.Twin(t, switchtwin.Options{TLS: pki.ServerTLS(true)})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.Insecure, cfg.CAFile, cfg.CertFile, cfg.KeyFile = false, files.CA, files.ClientCert, files.ClientKey
	if _, err := gnmitest.Client(t, cfg).Get(gnmitest.Ctx(t), configDB("DEVICE_METADATA", "localhost", "hwsku")); err != nil {
		t.Fatalf("Get with a client certificate: %v", err)
	}

	noCert := cfg
	noCert.CertFile, noCert.KeyFile = "", ""
	if _, err := gnmitest.Client(t, noCert).Capabilities(gnmitest.Ctx(t)); err == nil {
		t.Fatal("Capabilities without a client certificate succeeded")
	}
}

func TestInsecure(t *testing.T) {
	tw := gnmitest.Twin(t, switchtwin.Options{Username: "admin", Password: "lab"})
	cfg := gnmitest.Fast(tw.Addr())
	cfg.Username, cfg.Password = "admin", "lab" // allowed in plaintext only because Insecure is set
	if _, err := gnmitest.Client(t, cfg).Capabilities(gnmitest.Ctx(t)); err != nil {
		t.Fatalf("Capabilities over plaintext: %v", err)
	}

	// A TLS client cannot talk to a plaintext switch.
	tlsCfg := cfg
	tlsCfg.Insecure = false
	if _, err := gnmitest.Client(t, tlsCfg).Capabilities(gnmitest.Ctx(t)); status.Code(err) != codes.Unavailable {
		t.Fatalf("TLS to a plaintext server: err = %v, want Unavailable", err)
	}
}
