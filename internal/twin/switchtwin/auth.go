package switchtwin

import (
	"context"
	"crypto/subtle"
	"errors"
	"path"
	"time"

	gpb "github.com/openconfig/gnmi/proto/gnmi"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
)

// authenticate checks the username and password metadata like sonic-gnmi's
// password authentication; any failure is Unauthenticated "Unauthenticated",
// as sonic-gnmi's authenticate reports it. Client certificates are checked
// by the TLS handshake.
func (t *Twin) authenticate(ctx context.Context) error {
	if t.s.Username == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	user, pass := first(md.Get("username")), first(md.Get("password"))
	userOK := subtle.ConstantTimeCompare([]byte(user), []byte(t.s.Username)) == 1
	passOK := subtle.ConstantTimeCompare([]byte(pass), []byte(t.s.Password)) == 1
	if !userOK || !passOK {
		return status.Error(codes.Unauthenticated, "Unauthenticated")
	}
	return nil
}

func first(values []string) string {
	if len(values) == 0 {
		return ""
	}
	return values[0]
}

// unaryInterceptor authenticates, counts and logs every unary RPC, and
// resets its connection when the handler asks for it (ResetNextSet).
func (t *Twin) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	start := time.Now()
	resp, err := func() (any, error) {
		if err := t.authenticate(ctx); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}()
	t.record(ctx, path.Base(info.FullMethod), start, requestOps(req), err)
	var reset *connReset
	if errors.As(err, &reset) {
		t.resetConn(ctx)
	}
	return resp, err
}

// streamInterceptor authenticates, counts and logs Subscribe.
func (t *Twin) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	start := time.Now()
	err := t.authenticate(ss.Context())
	if err == nil {
		err = handler(srv, ss)
	}
	t.record(ss.Context(), path.Base(info.FullMethod), start, nil, err)
	return err
}

func (t *Twin) record(ctx context.Context, method string, start time.Time, ops []string, err error) {
	rec := RPCRecord{Start: start, Duration: time.Since(start), Method: method, Ops: ops}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		rec.Peer = p.Addr.String()
	}
	st := status.Convert(err)
	rec.Code, rec.Message = st.Code(), st.Message()
	t.rec.add(rec)
	t.s.Logger.Info("gnmi rpc", "method", method, "peer", rec.Peer, "code", rec.Code.String(),
		"duration", rec.Duration, "ops", ops, "error", rec.Message)
}

// requestOps lists the paths of a Get or Set request for the RPC log.
func requestOps(req any) []string {
	var ops []string
	switch r := req.(type) {
	case *gpb.GetRequest:
		for _, p := range r.GetPath() {
			ops = append(ops, "get "+describePath(r.GetPrefix(), p))
		}
	case *gpb.SetRequest:
		for _, p := range r.GetDelete() {
			ops = append(ops, "delete "+describePath(r.GetPrefix(), p))
		}
		for _, u := range r.GetReplace() {
			ops = append(ops, "replace "+describePath(r.GetPrefix(), u.GetPath()))
		}
		for _, u := range r.GetUpdate() {
			ops = append(ops, "update "+describePath(r.GetPrefix(), u.GetPath()))
		}
	}
	return ops
}
