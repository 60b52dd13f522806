package switchtwin

import (
	"net"
	"sync"
)

// ConnStats counts TCP connections of a Twin.
type ConnStats struct {
	// Accepted connections, refused ones not included.
	Accepted int
	// Refused connections: closed on accept because MaxConns were open.
	Refused int
	// Active connections now open.
	Active int
}

// capListener tracks accepted connections so the twin can cap, count and
// drop them.
type capListener struct {
	net.Listener
	limit int // <= 0: no cap

	mu       sync.Mutex
	conns    map[*trackedConn]struct{}
	accepted int
	refused  int
}

func newCapListener(l net.Listener, limit int) *capListener {
	return &capListener{Listener: l, limit: limit, conns: map[*trackedConn]struct{}{}}
}

// Accept returns the next connection under the cap; connections over the
// cap are closed at once, which the client sees as Unavailable.
func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		if l.limit > 0 && len(l.conns) >= l.limit {
			l.refused++
			l.mu.Unlock()
			_ = c.Close()
			continue
		}
		tc := &trackedConn{Conn: c, owner: l}
		l.conns[tc] = struct{}{}
		l.accepted++
		l.mu.Unlock()
		return tc, nil
	}
}

// dropAll closes every open connection and returns how many there were.
func (l *capListener) dropAll() int {
	l.mu.Lock()
	conns := make([]*trackedConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	for _, c := range conns {
		_ = c.Close()
	}
	return len(conns)
}

// reset closes the connection whose remote address is remote, the peer
// address gRPC gives a handler, with an RST rather than a FIN (SO_LINGER 0),
// as a crashed server or a middlebox would. gRPC offers no way to close the
// connection of one RPC, hence the lookup here. It reports whether the
// connection was found.
func (l *capListener) reset(remote string) bool {
	l.mu.Lock()
	var target *trackedConn
	for c := range l.conns {
		if c.RemoteAddr().String() == remote {
			target = c
			break
		}
	}
	l.mu.Unlock()
	if target == nil {
		return false
	}
	if tcp, ok := target.Conn.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = target.Close()
	return true
}

func (l *capListener) stats() ConnStats {
	l.mu.Lock()
	defer l.mu.Unlock()
	return ConnStats{Accepted: l.accepted, Refused: l.refused, Active: len(l.conns)}
}

func (l *capListener) forget(c *trackedConn) {
	l.mu.Lock()
	delete(l.conns, c)
	l.mu.Unlock()
}

// trackedConn leaves its listener's books when closed.
type trackedConn struct {
	net.Conn
	owner *capListener
	once  sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() { c.owner.forget(c) })
	return c.Conn.Close()
}
