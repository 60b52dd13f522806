package traffic

// How a reliable-connected (RC) QP recovers a lost packet, and which mlx5 hw_counters count
// it. The responder expects the next PSN; a packet beyond it means one was lost, and the
// responder answers with a PSN sequence error NAK (InfiniBand Architecture Specification
// vol. 1, chapter 9: an out-of-sequence request packet is a class B error, answered with a
// NAK and nothing else), which the requester takes as a go-back-N retransmission point. Only
// when nothing follows the lost packet (the last packet of a message with none behind it on
// the QP) does the responder see no gap and send no NAK, and the requester waits for its ACK
// timer. The counters, as mlx5 names them (torvalds/linux drivers/infiniband/hw/mlx5/
// counters.c at v6.12: out_of_seq_q_cnts and retrans_q_cnts, Q counters of the port's QPs),
// with the meanings of the commit that added them (0ad17a8f7fa0 "IB/mlx5: Add port protocol
// stats") and of NVIDIA's "Understanding mlx5 Linux Counters":
//
//   - out_of_sequence, at the receiver: errors in the packet transport sequence number,
//     packets received out of sequence, each a gap it NAKed;
//   - packet_seq_err, at the sender: NAK sequence error packets received, each a
//     retransmission from the lost PSN within the QP's retry limit;
//   - local_ack_timeout_err, at the sender: the QP's ACK timer expired (RC, XRC, DCT) within
//     the retry limit, for a loss no later packet revealed;
//   - roce_adp_retrans, at the sender: RoCE adaptive retransmissions, the retransmissions
//     after such a timeout (adaptive retransmission is on by default on ConnectX firmware).
//
// So a drop is a NAK and a fast go-back-N retransmission, not an ACK timeout; the timeouts
// are the losses that hit a message's tail.

// packetsPerMessage is how many packets one NCCL message is: the Simple protocol sends its
// 4 MiB buffer (NCCL_BUFFSIZE) in 8 steps (NCCL_STEPS) of 512 KiB, each one RDMA write of 128
// packets at a 4096-byte MTU. One loss in packetsPerMessage is a message's last packet.
const packetsPerMessage = 128

// recovery is how a run of lost packets is recovered.
type recovery struct {
	// naks are the losses a later packet revealed: the receiver's out_of_sequence and NAK, the
	// sender's packet_seq_err.
	naks uint64
	// timeouts are the losses of a message's last packet: no NAK, the sender's ACK timer.
	timeouts uint64
}

// recoverLost splits lost packets into NAKs and timeouts: every packetsPerMessage-th loss of
// a link (counting on from carry, which it advances) is a message's tail.
func recoverLost(lost uint64, carry *uint64) recovery {
	total := *carry + lost
	r := recovery{timeouts: total / packetsPerMessage}
	*carry = total % packetsPerMessage
	r.naks = lost - r.timeouts
	return r
}

// recoverLosses moves the counters of this tick's losses. sent[i] are packets link i's host
// sent and the fabric lost (a switch ingress without PFC): that host gets the NAKs and the
// timeouts, and its peers, which were to receive them, the out-of-sequence packets.
// received[i] are packets on their way to link i's host that were lost (its own receive
// discards, the switch queue toward it): it counts them out of sequence, and its peers, which
// sent them, get the NAKs and timeouts. The peers' shares add up to the link's own count.
func (m *Model) recoverLosses(sent, received []uint64, hw func(int) map[string]uint64) {
	add := func(i int, counter string, n uint64) {
		if n > 0 { // a counter file rewritten with nothing added is I/O for nothing
			hw(i)[counter] += n
		}
	}
	for i := range m.links {
		peers := m.peers(i)
		if sent[i] > 0 {
			r := recoverLost(sent[i], &m.losses[i])
			add(i, "packet_seq_err", r.naks)
			add(i, "local_ack_timeout_err", r.timeouts)
			add(i, "roce_adp_retrans", r.timeouts)
			for k, n := range spread(r.naks, len(peers)) {
				add(peers[k], "out_of_sequence", n)
			}
		}
		if received[i] > 0 {
			r := recoverLost(received[i], &m.losses[i])
			add(i, "out_of_sequence", r.naks)
			naks, timeouts := spread(r.naks, len(peers)), spread(r.timeouts, len(peers))
			for k, j := range peers {
				add(j, "packet_seq_err", naks[k])
				add(j, "local_ack_timeout_err", timeouts[k])
				add(j, "roce_adp_retrans", timeouts[k])
			}
		}
	}
}

// peers are the links link i's host exchanges RDMA traffic with: the same rail (RDMA device)
// of the other hosts, as a rail-optimised fabric runs NCCL (NCCL_CROSS_NIC=0 keeps a rail's
// traffic on it). Without another host on the rail, every other link; a link alone talks to
// itself.
func (m *Model) peers(i int) []int {
	var rail, others []int
	for j, l := range m.links {
		switch {
		case j == i:
		case l.RDMA == m.links[i].RDMA && l.Host != m.links[i].Host:
			rail = append(rail, j)
		default:
			others = append(others, j)
		}
	}
	switch {
	case len(rail) > 0:
		return rail
	case len(others) > 0:
		return others
	}
	return []int{i}
}

// spread shares total among n, the first ones taking the remainder, so the shares add up to
// total.
func spread(total uint64, n int) []uint64 {
	out := make([]uint64, n)
	for k := range out {
		out[k] = total / uint64(n)
		if uint64(k) < total%uint64(n) {
			out[k]++
		}
	}
	return out
}
