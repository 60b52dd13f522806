package gnmi_test

import (
	"net"
	"sync"
	"testing"
	"time"
)

// stallProxy forwards TCP connections to a target until told to stall. Then it stops
// forwarding, both ways, on the connections open at that moment and keeps them open, as a
// hung middlebox does, or a switch whose kernel still acknowledges segments while its gnmi
// server is wedged: nothing fails on the client's side until it asks for an answer.
// Connections made after Stall are forwarded. It also notes each HTTP/2 PING a client sends
// (plaintext only).
type stallProxy struct {
	lis    net.Listener
	target string
	done   chan struct{} // closed by close
	wg     sync.WaitGroup

	mu      sync.Mutex
	conns   []*proxied
	pingsAt []time.Time
}

// proxied is one client connection and its connection to the target.
type proxied struct {
	client, server net.Conn
	stalled        chan struct{}
	once           sync.Once
}

func (p *proxied) stall() { p.once.Do(func() { close(p.stalled) }) }

// newStallProxy listens on loopback, forwarding to target, and stops when the test ends.
func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{lis: lis, target: target, done: make(chan struct{})}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is where clients connect.
func (p *stallProxy) Addr() string { return p.lis.Addr().String() }

// Stall stops forwarding on every connection open now.
func (p *stallProxy) Stall() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.stall()
	}
}

// PingsBetween returns the times the client PINGs (not ACKs) passed, from from to to.
func (p *stallProxy) PingsBetween(from, to time.Time) []time.Time {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []time.Time
	for _, at := range p.pingsAt {
		if !at.Before(from) && !at.After(to) {
			out = append(out, at)
		}
	}
	return out
}

func (p *stallProxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.lis.Accept()
		if err != nil {
			return
		}
		server, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = client.Close()
			continue
		}
		c := &proxied{client: client, server: server, stalled: make(chan struct{})}
		p.mu.Lock()
		p.conns = append(p.conns, c)
		p.mu.Unlock()
		scan := &frameScanner{preface: len(http2Preface), onPing: p.notePing}
		p.wg.Add(2)
		go p.pump(c, server, client, scan.write)
		go p.pump(c, client, server, nil)
	}
}

func (p *stallProxy) notePing() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pingsAt = append(p.pingsAt, time.Now())
}

// pump copies src to dst until either end closes or c stalls; a stalled pump drops what it
// read, reads no more and leaves both connections open until the proxy closes.
func (p *stallProxy) pump(c *proxied, dst, src net.Conn, observe func([]byte)) {
	defer p.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			select {
			case <-c.stalled:
				<-p.done
				return
			default:
			}
			if observe != nil {
				observe(buf[:n])
			}
			if _, werr := dst.Write(buf[:n]); werr != nil {
				err = werr
			}
		}
		if err != nil { // EOF, a reset or a close: the pair ends together
			_ = c.client.Close()
			_ = c.server.Close()
			return
		}
	}
}

func (p *stallProxy) close() {
	_ = p.lis.Close()
	close(p.done)
	p.mu.Lock()
	for _, c := range p.conns {
		_ = c.client.Close()
		_ = c.server.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

// http2Preface opens every HTTP/2 connection from a client (RFC 9113 §3.4).
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// frameScanner follows the HTTP/2 frames of a client's byte stream (RFC 9113 §4.1: a 9-byte
// header of length, type, flags and stream, then the payload) and calls onPing for each
// PING frame (type 6) without the ACK flag.
type frameScanner struct {
	preface int    // preface bytes still to skip
	header  []byte // the frame header read so far
	skip    int    // payload bytes still to skip
	onPing  func()
}

func (s *frameScanner) write(b []byte) {
	for len(b) > 0 {
		var n int
		switch {
		case s.preface > 0:
			n = min(s.preface, len(b))
			s.preface -= n
		case s.skip > 0:
			n = min(s.skip, len(b))
			s.skip -= n
		default:
			n = min(9-len(s.header), len(b))
			s.header = append(s.header, b[:n]...)
			if len(s.header) == 9 {
				h := s.header
				if h[3] == 0x6 && h[4]&0x1 == 0 {
					s.onPing()
				}
				s.skip = int(h[0])<<16 | int(h[1])<<8 | int(h[2])
				s.header = s.header[:0]
			}
		}
		b = b[n:]
	}
}
