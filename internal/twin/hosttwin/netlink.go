package hosttwin

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
)

// A host started with Options.Network lives in a network namespace of its
// own whose only link is a veth pair to this machine's namespace. Both ends
// carry fixed IPv6 link-local addresses: they are scoped to their link, so
// every host can use the same pair of addresses and no route, subnet or
// address plan is needed however many fleets run side by side.
const (
	linkOutsideAddr = "fe80::1/64"
	linkInsideAddr  = "fe80::2"
	linkInsideName  = "eth0"
)

// newLinkName returns a fresh name for the outer end of a host's veth
// pair; interface names are at most 15 bytes.
func newLinkName() (string, error) {
	r, err := randomHex()
	if err != nil {
		return "", err
	}
	return "rtw" + r[:10], nil
}

// addLink creates the veth pair of the namespace of pid: outside stays
// here, linkInsideName goes into the namespace, and the outer end is
// brought up with its address. The inner end is configured from inside
// (setupScript). When pid's namespace ends, the kernel removes the pair.
func addLink(ctx context.Context, outside string, pid int) error {
	steps := [][]string{
		{"link", "add", outside, "type", "veth", "peer", "name", linkInsideName, "netns", strconv.Itoa(pid)},
		{"addr", "add", linkOutsideAddr, "dev", outside, "nodad"},
		{"link", "set", outside, "up"},
	}
	for _, args := range steps {
		if err := ip(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// setLink brings the outer end of a host's link up or down, which cuts or
// restores the host's network as a pulled cable or a failed switch port
// would: established connections stall rather than close.
func setLink(ctx context.Context, outside string, up bool) error {
	if !up {
		return ip(ctx, "link", "set", outside, "down")
	}
	if err := ip(ctx, "link", "set", outside, "up"); err != nil {
		return err
	}
	// Linux flushes link-local addresses when a link goes down
	// (keep_addr_on_down spares only global ones); give it its own back.
	return ip(ctx, "addr", "replace", linkOutsideAddr, "dev", outside, "nodad")
}

// linkUpstream is the address of a host's sshd as seen from outside its
// namespace.
func linkUpstream(outside string, port int) string {
	return net.JoinHostPort(linkInsideAddr+"%"+outside, strconv.Itoa(port))
}

func ip(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %v: %w: %s", args, err, out)
	}
	return nil
}
