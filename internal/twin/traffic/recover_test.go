package traffic

import "testing"

// counters are the hw_counters one tick added, per link.
type counters []map[string]uint64

func newCounters(n int) counters {
	c := make(counters, n)
	for i := range c {
		c[i] = map[string]uint64{}
	}
	return c
}

func (c counters) hw(i int) map[string]uint64 { return c[i] }

func (c counters) sum(name string) uint64 {
	var n uint64
	for _, m := range c {
		n += m[name]
	}
	return n
}

func TestDropsRecoverByNAK(t *testing.T) {
	m := &Model{links: make([]Link, 3), losses: make([]uint64, 3)}

	// Link 0's switch port has no PFC: its ingress drops 25 packets link 0's host sent. The
	// receivers see the packets after each gap and NAK it; the sender counts the NAKs. None
	// was a message's last packet, so no ACK timer expired.
	c := newCounters(3)
	m.recoverLosses([]uint64{25, 0, 0}, []uint64{0, 0, 0}, c.hw)
	if c[0]["packet_seq_err"] != 25 || c[0]["local_ack_timeout_err"] != 0 || c[0]["out_of_sequence"] != 0 || c[0]["roce_adp_retrans"] != 0 {
		t.Errorf("sender: %v, want 25 NAKs and nothing else", c[0])
	}
	if c[1]["out_of_sequence"]+c[2]["out_of_sequence"] != 25 || c[1]["out_of_sequence"] == 0 || c[2]["out_of_sequence"] == 0 {
		t.Errorf("receivers: %v %v, want 25 out of sequence between them", c[1], c[2])
	}
	if c.sum("local_ack_timeout_err") != 0 {
		t.Errorf("a drop became an ACK timeout: %v", c)
	}

	// Five more ticks: the 128th loss is the tail of a message, which no later packet
	// reveals. It draws no NAK and no out-of-sequence packet: the sender's ACK timer expires.
	c = newCounters(3)
	for range 5 {
		m.recoverLosses([]uint64{25, 0, 0}, []uint64{0, 0, 0}, c.hw)
	}
	if c[0]["local_ack_timeout_err"] != 1 || c[0]["roce_adp_retrans"] != 1 || c[0]["packet_seq_err"] != 124 {
		t.Errorf("sender after 150 losses: %v, want 1 timeout (and its retransmission) and 124 more NAKs", c[0])
	}
	if got := c.sum("out_of_sequence"); got != 124 {
		t.Errorf("out_of_sequence = %d, want 124: a lost tail is never out of sequence", got)
	}

	// Link 2's NIC discards 30 packets on their way to it: it counts them out of sequence,
	// and the hosts that sent them the NAKs.
	c = newCounters(3)
	m.recoverLosses([]uint64{0, 0, 0}, []uint64{0, 0, 30}, c.hw)
	if c[2]["out_of_sequence"] != 30 || c[2]["packet_seq_err"] != 0 {
		t.Errorf("receiver: %v", c[2])
	}
	if c[0]["packet_seq_err"]+c[1]["packet_seq_err"] != 30 || c.sum("local_ack_timeout_err") != 0 {
		t.Errorf("senders: %v %v, want 30 NAKs between them and no timeout", c[0], c[1])
	}
}

func TestNAKsMatchOutOfSequence(t *testing.T) {
	// Whatever drops where, every NAK a sender counts is a gap a receiver counted.
	m := &Model{links: make([]Link, 16), losses: make([]uint64, 16)}
	c := newCounters(16)
	for tick := range 40 {
		sent, received := make([]uint64, 16), make([]uint64, 16)
		sent[tick%16], received[(tick*7)%16] = 25, 30
		m.recoverLosses(sent, received, c.hw)
	}
	naks, oos, timeouts := c.sum("packet_seq_err"), c.sum("out_of_sequence"), c.sum("local_ack_timeout_err")
	if naks != oos {
		t.Errorf("packet_seq_err %d, out_of_sequence %d", naks, oos)
	}
	// 40 x 55 losses: about one in 128 is a tail.
	if lost := uint64(40 * 55); naks+timeouts != lost || timeouts == 0 || timeouts > lost/packetsPerMessage {
		t.Errorf("%d NAKs and %d timeouts for %d losses", naks, timeouts, lost)
	}
}

func TestLossesStayOnTheRail(t *testing.T) {
	// Two hosts of two rails: what h1's first rail loses on its way comes from h2's first rail.
	m := &Model{links: []Link{{Host: "h1", RDMA: "mlx5_0"}, {Host: "h2", RDMA: "mlx5_0"}, {Host: "h1", RDMA: "mlx5_1"}, {Host: "h2", RDMA: "mlx5_1"}}, losses: make([]uint64, 4)}
	c := newCounters(4)
	m.recoverLosses([]uint64{0, 0, 0, 0}, []uint64{30, 0, 0, 0}, c.hw)
	if c[0]["out_of_sequence"] != 30 || c[1]["packet_seq_err"] != 30 || len(c[2]) != 0 || len(c[3]) != 0 {
		t.Errorf("counters = %v, want h1 mlx5_0 out of sequence and h2 mlx5_0 NAKed, the other rail untouched", c)
	}
}

func TestSpread(t *testing.T) {
	for _, c := range []struct {
		total uint64
		n     int
		want  []uint64
	}{
		{25, 2, []uint64{13, 12}},
		{1, 3, []uint64{1, 0, 0}},
		{7, 1, []uint64{7}},
		{0, 4, []uint64{0, 0, 0, 0}},
	} {
		got := spread(c.total, c.n)
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("spread(%d, %d) = %v, want %v", c.total, c.n, got, c.want)
				break
			}
		}
	}
}
