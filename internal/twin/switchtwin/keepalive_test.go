package switchtwin

import (
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"
)

// HTTP/2 frame types and flags the keepalive tests speak (RFC 9113 §6).
const (
	frameHeaders  = 0x1
	frameSettings = 0x4
	framePing     = 0x6
	frameGoAway   = 0x7

	flagAck        = 0x1
	flagEndHeaders = 0x4

	errEnhanceYourCalm = 0xb
)

// h2frame is one HTTP/2 frame.
type h2frame struct {
	typ, flags byte
	stream     uint32
	payload    []byte
}

// rawH2 is a bare HTTP/2 client connection to a twin: grpc-go's client paces its own pings
// (no closer than 10 s), so the tests of the twin's enforcement write their pings by hand.
type rawH2 struct {
	t      *testing.T
	conn   net.Conn
	frames chan h2frame // what the twin sends; closed when the connection ends
}

// dialRaw opens an HTTP/2 connection to tw (preface and empty SETTINGS) and reads the
// twin's frames in the background until the test ends.
func dialRaw(t *testing.T, tw *Twin) *rawH2 {
	t.Helper()
	conn, err := net.Dial("tcp", tw.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	h := &rawH2{t: t, conn: conn, frames: make(chan h2frame, 64)}
	go h.read()
	if _, err := io.WriteString(conn, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := h.write(frameSettings, 0, 0, nil); err != nil {
		t.Fatal(err)
	}
	return h
}

func (h *rawH2) read() {
	defer close(h.frames)
	for {
		var hdr [9]byte
		if _, err := io.ReadFull(h.conn, hdr[:]); err != nil {
			return
		}
		f := h2frame{typ: hdr[3], flags: hdr[4], stream: binary.BigEndian.Uint32(hdr[5:]) & 0x7fffffff}
		f.payload = make([]byte, int(hdr[0])<<16|int(hdr[1])<<8|int(hdr[2]))
		if _, err := io.ReadFull(h.conn, f.payload); err != nil {
			return
		}
		h.frames <- f
	}
}

func (h *rawH2) write(typ, flags byte, stream uint32, payload []byte) error {
	hdr := []byte{byte(len(payload) >> 16), byte(len(payload) >> 8), byte(len(payload)), typ, flags, 0, 0, 0, 0}
	binary.BigEndian.PutUint32(hdr[5:], stream)
	_, err := h.conn.Write(append(hdr, payload...))
	return err
}

// openCall starts a gNMI Set on stream 1 and sends no request message, so the call stays in
// flight: the twin's handler waits for the message.
func (h *rawH2) openCall() {
	h.t.Helper()
	var block []byte
	for _, f := range [][2]string{
		{":method", "POST"}, {":scheme", "http"}, {":path", "/gnmi.gNMI/Set"}, {":authority", "switchtwin"},
		{"content-type", "application/grpc"}, {"te", "trailers"},
	} {
		// HPACK literal field without indexing, new name, no Huffman coding (RFC 7541 §6.2.2).
		block = append(block, 0x00, byte(len(f[0])))
		block = append(block, f[0]...)
		block = append(block, byte(len(f[1])))
		block = append(block, f[1]...)
	}
	if err := h.write(frameHeaders, flagEndHeaders, 1, block); err != nil {
		h.t.Fatal(err)
	}
}

// ping sends a PING with payload n and waits for the twin's answer: its ACK (true) or a
// GOAWAY too_many_pings (false), which the twin sends after the ACK of the offending ping, so
// the next ping finds it. Any other end fails the test.
func (h *rawH2) ping(n byte) bool {
	h.t.Helper()
	data := []byte{0, 0, 0, 0, 0, 0, 0, n}
	_ = h.write(framePing, 0, 0, data) // after a GOAWAY the twin may have closed; read on
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	for {
		select {
		case f, ok := <-h.frames:
			switch {
			case !ok:
				h.t.Fatalf("connection closed without GOAWAY, waiting for the answer to ping %d", n)
			case f.typ == framePing && f.flags&flagAck != 0 && bytes.Equal(f.payload, data):
				return true
			case f.typ == frameGoAway:
				code := binary.BigEndian.Uint32(f.payload[4:8])
				if code != errEnhanceYourCalm || string(f.payload[8:]) != "too_many_pings" {
					h.t.Fatalf("GOAWAY code %#x %q, want ENHANCE_YOUR_CALM too_many_pings", code, f.payload[8:])
				}
				return false
			}
		case <-timer.C:
			h.t.Fatalf("no answer to ping %d within 5s", n)
		}
	}
}

// pingRounds is how many pings each case sends: enough for grpc-go's three offences.
const pingRounds = 6

// pings sends up to pingRounds pings, each gap after the one before, and returns how many
// were acknowledged before a GOAWAY too_many_pings.
func (h *rawH2) pings(gap time.Duration) int {
	h.t.Helper()
	for i := range pingRounds {
		if i > 0 && gap > 0 {
			time.Sleep(gap) // the pace under test, not synchronisation
		}
		if !h.ping(byte(i + 1)) {
			return i
		}
	}
	return pingRounds
}

// TestKeepaliveEnforcement: the twin enforces SONiC 202411's keepalive policy, which is
// grpc-go's default (sonic-net/sonic-gnmi telemetry/telemetry.go, branch 202411, sets none):
// pings without a call in flight, or closer together than the policy's MinTime while a call
// is, end the connection with GOAWAY too_many_pings on the third offence; pings that keep to
// MinTime are answered for as long as the call lasts. MinTime is scaled down here.
func TestKeepaliveEnforcement(t *testing.T) {
	const minTime = 100 * time.Millisecond
	opts := Options{KeepaliveMinTime: minTime}
	t.Run("paced pings during a call are answered", func(t *testing.T) {
		h := dialRaw(t, startTwin(t, opts))
		h.openCall()
		if n := h.pings(2 * minTime); n != pingRounds {
			t.Fatalf("GOAWAY after %d pings %s apart, want all %d answered (MinTime %s)", n, 2*minTime, pingRounds, minTime)
		}
	})
	t.Run("hasty pings during a call end the connection", func(t *testing.T) {
		h := dialRaw(t, startTwin(t, opts))
		h.openCall()
		// The first ping has none before it; the 2nd, 3rd and 4th are offences.
		if n := h.pings(0); n != 4 {
			t.Fatalf("%d back-to-back pings answered, want 4 then GOAWAY", n)
		}
	})
	t.Run("pings without a call end the connection", func(t *testing.T) {
		h := dialRaw(t, startTwin(t, opts))
		if n := h.pings(2 * minTime); n != 4 {
			t.Fatalf("%d pings %s apart without a call answered, want 4 then GOAWAY", n, 2*minTime)
		}
	})
	t.Run("default is 5 minutes", func(t *testing.T) {
		s, err := Options{}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		if s.KeepaliveMinTime != 5*time.Minute {
			t.Errorf("KeepaliveMinTime = %s, want grpc-go's default 5m", s.KeepaliveMinTime)
		}
		if _, err := (Options{KeepaliveMinTime: -1}).withDefaults(); err == nil {
			t.Error("a negative KeepaliveMinTime was accepted")
		}
	})
}
