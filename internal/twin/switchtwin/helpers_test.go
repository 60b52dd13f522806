package switchtwin

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
)

// startTwin starts a twin on loopback and stops it when the test ends.
func startTwin(t *testing.T, opts Options) *Twin {
	t.Helper()
	tw, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	if _, err := tw.Start(""); err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(tw.Stop)
	return tw
}

// dial returns a raw gNMI client to the twin; tlsCfg nil means plaintext.
func dial(t *testing.T, tw *Twin, tlsCfg *tls.Config) gpb.GNMIClient {
	t.Helper()
	creds := insecure.NewCredentials()
	if tlsCfg != nil {
		creds = credentials.NewTLS(tlsCfg)
	}
	conn, err := grpc.NewClient(tw.Addr(), grpc.WithTransportCredentials(creds))
	if err != nil {
		t.Fatalf("grpc.NewClient: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return gpb.NewGNMIClient(conn)
}

func ctxT(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// cfg returns the sonic-db path CONFIG_DB/localhost/<elems...>.
func cfg(elems ...string) *gpb.Path {
	p := &gpb.Path{Origin: "sonic-db", Elem: []*gpb.PathElem{{Name: "CONFIG_DB"}, {Name: "localhost"}}}
	for _, e := range elems {
		p.Elem = append(p.Elem, &gpb.PathElem{Name: e})
	}
	return p
}

func ietf(js string) *gpb.TypedValue {
	return &gpb.TypedValue{Value: &gpb.TypedValue_JsonIetfVal{JsonIetfVal: []byte(js)}}
}

func upd(p *gpb.Path, js string) *gpb.Update { return &gpb.Update{Path: p, Val: ietf(js)} }

// wantCode fails unless err has code and, when given, a message containing
// every fragment.
func wantCode(t *testing.T, err error, code codes.Code, fragments ...string) {
	t.Helper()
	if got := status.Code(err); got != code {
		t.Fatalf("code = %s (%v), want %s", got, err, code)
	}
	for _, f := range fragments {
		if !strings.Contains(status.Convert(err).Message(), f) {
			t.Errorf("message %q lacks %q", status.Convert(err).Message(), f)
		}
	}
}
