package hosttwin

import (
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// relay stands for the network between a client and a host in its own
// network namespace: it accepts on the host's loopback address and
// forwards each connection over the host's veth link, delaying every byte
// by half the round-trip time in each direction. Delay is added here, in
// user space, because kernels without sch_netem (as in many CI machines)
// cannot delay packets; order and pipelining are kept, bandwidth is not
// limited.
type relay struct {
	ln       net.Listener
	rtt      time.Duration
	upstream atomic.Value // string: the host's address behind its current link

	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// relayDialTimeout bounds a dial to the host; a link that is down fails it.
const relayDialTimeout = 5 * time.Second

// listenRelay binds addr and starts accepting; set the upstream before
// clients arrive (until then they are refused).
func listenRelay(addr string, rtt time.Duration) (*relay, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	r := &relay{ln: ln, rtt: rtt, conns: map[net.Conn]struct{}{}}
	r.upstream.Store("")
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

func (r *relay) setUpstream(addr string) { r.upstream.Store(addr) }

// close stops accepting, cuts every relayed connection and waits for
// the relay's goroutines.
func (r *relay) close() {
	r.mu.Lock()
	r.closed = true
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.ln.Close()
	r.wg.Wait()
}

// track registers c to be cut by close; false when the relay is closing.
func (r *relay) track(c net.Conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		c.Close()
		return false
	}
	r.conns[c] = struct{}{}
	return true
}

func (r *relay) untrack(c net.Conn) {
	r.mu.Lock()
	delete(r.conns, c)
	r.mu.Unlock()
	c.Close()
}

func (r *relay) accept() {
	defer r.wg.Done()
	for {
		c, err := r.ln.Accept()
		if err != nil {
			return
		}
		if !r.track(c) {
			return
		}
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer r.untrack(c)
			r.serve(c)
		}()
	}
}

// serve connects client to the host and copies both ways until both
// directions end. The client's connect completed at once on loopback, so
// the round trip of the TCP handshake is spent here, before dialling.
func (r *relay) serve(client net.Conn) {
	time.Sleep(r.rtt)
	addr, _ := r.upstream.Load().(string)
	if addr == "" {
		return
	}
	host, err := net.DialTimeout("tcp", addr, relayDialTimeout)
	if err != nil {
		return
	}
	if !r.track(host) {
		return
	}
	defer r.untrack(host)
	var wg sync.WaitGroup
	wg.Go(func() { r.pipe(host, client) })
	wg.Go(func() { r.pipe(client, host) })
	wg.Wait()
}

// pipe copies src to dst, each chunk rtt/2 after it was read, and then
// half-closes dst so the peer sees the end of the stream.
func (r *relay) pipe(dst, src net.Conn) {
	defer closeWrite(dst)
	delay := r.rtt / 2
	if delay == 0 {
		_, _ = io.Copy(dst, src)
		return
	}
	type chunk struct {
		due  time.Time
		data []byte
	}
	queue := make(chan chunk, 256)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				queue <- chunk{time.Now().Add(delay), buf[:n]}
			}
			if err != nil {
				return
			}
		}
	}()
	broken := false
	for c := range queue {
		if broken {
			continue // drain, so the reader can finish
		}
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			broken = true
			src.Close()
		}
	}
}

// closeWrite half-closes a TCP connection, or closes anything else.
func closeWrite(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
		return
	}
	c.Close()
}
