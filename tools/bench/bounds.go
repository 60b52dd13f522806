package main

import "time"

// The fewest round trips a host needs, whatever the tool: the network's share of a step,
// before any work is done. Hosts are served side by side, so a fabric needs no more than
// one host does.
const (
	// An SSH connection: TCP handshake, version exchange, key exchange (KEXINIT and ECDH),
	// the user-auth service request and public-key authentication.
	connectRoundTrips = 6
	// A remote command: the session is opened and the command started in one exchange when
	// pipelined; its output returns with the replies.
	commandRoundTrips = 1
)

// applyBound: connect, read the host's state, write the changes, read back to verify.
func applyBound(rtt time.Duration) time.Duration {
	return rtt * (connectRoundTrips + 3*commandRoundTrips)
}

// planBound: connect and read the host's state.
func planBound(rtt time.Duration) time.Duration {
	return rtt * (connectRoundTrips + commandRoundTrips)
}
