package telemetry

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/health"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
	"github.com/clusterbid/terraform-provider-roce/internal/shell"
	"github.com/clusterbid/terraform-provider-roce/internal/verdict"
)

// printer is a host whose every command prints out.
type printer struct{ out string }

func (p printer) Address() string { return "gpu1:22" }

func (p printer) Run(context.Context, shell.Runnable, ssh.RunOptions) (ssh.Result, error) {
	return ssh.Result{Stdout: []byte(p.out)}, nil
}

func (printer) WriteFile(context.Context, string, []byte, os.FileMode, string, bool) error {
	return errors.New("read-only")
}

func (printer) ReadFile(context.Context, string, bool) ([]byte, error) {
	return nil, errors.New("read-only")
}

func TestHostReadsEveryPortOfALAG(t *testing.T) {
	out := "== port mlx5_bond_0 1 ens1f0np0 ens1f1np1\n" +
		"/sys/class/infiniband/mlx5_bond_0/ports/1/hw_counters/np_cnp_sent:7\n" +
		"== ethtool ens1f0np0\nNIC statistics:\n     rx_prio3_pause: 11\n" +
		"== ethtool ens1f1np1\nNIC statistics:\n     rx_prio3_pause: 13\n"
	ports, err := Host(testCtx(t), printer{out})
	if err != nil {
		t.Fatal(err)
	}
	if len(ports) != 1 {
		t.Fatalf("ports = %+v", ports)
	}
	p := ports[0]
	if p.Netdev != "ens1f0np0" || p.Ethtool[health.HostPauseRx(3)] != 11 || p.RDMA[health.CNPSent] != 7 ||
		len(p.Bonded) != 1 || p.Bonded[0].Netdev != "ens1f1np1" || p.Bonded[0].Ethtool[health.HostPauseRx(3)] != 13 {
		t.Errorf("port = %+v", p)
	}
}

// ethtoolSamples are two samples of one NIC port: every counter of the ethtool -S fixture at
// zero, then at its value, without the counters drop names.
func ethtoolSamples(t *testing.T, drop func(name string) bool) (health.Sample, health.Sample) {
	t.Helper()
	b, err := os.ReadFile("../host/facts/testdata/ethtool_mlx5_515.txt")
	if err != nil {
		t.Fatal(err)
	}
	stats, err := facts.ParseEthtoolStats(string(b))
	if err != nil {
		t.Fatal(err)
	}
	zero, now := health.Counters{}, health.Counters{}
	for k, v := range stats {
		if !drop(k) {
			zero[k], now[k] = 0, v
		}
	}
	port := func(c health.Counters) []health.HostPort {
		return []health.HostPort{{Host: "gpu1:22", Device: "mlx5_0", Port: 1, Netdev: "ens1f0np0", Ethtool: c, RDMA: health.Counters{}}}
	}
	t0 := time.Unix(1000, 0)
	return health.Sample{Taken: t0, Hosts: port(zero)}, health.Sample{Taken: t0.Add(10 * time.Second), Hosts: port(now)}
}

// TestJudgeNamesTheCounterItUsed judges a real mlx5 ethtool -S (the fixture's traffic is on
// priority 0, with global pause on) as listed, then as a driver lists it that counts no drops
// per priority and has global pause off: the verdicts fall back to the port-wide counters and
// say so.
func TestJudgeNamesTheCounterItUsed(t *testing.T) {
	for _, tc := range []struct {
		name          string
		drop          func(string) bool
		drops, pauses string
	}{
		{"as listed", func(string) bool { return false }, "58591314012 received packets on the lossless priority 0 (rx_prio0_discards)", "tx_global_pause +5745042"},
		{"older driver, global pause off", func(k string) bool {
			return strings.HasSuffix(k, "_discards") && strings.HasPrefix(k, "rx_prio") || strings.Contains(k, "_global_pause")
		}, "58591428329 received packets for want of buffer (rx_discards_phy, every priority's", "tx_pause_ctrl_phy +5745055"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, b := ethtoolSamples(t, tc.drop)
			got := map[string]verdict.Verdict{}
			for _, v := range health.Judge(health.Diff(a, b), health.Options{Priority: 0, RequireTraffic: true}) {
				if !v.Pass {
					got[v.Check] = v
				}
			}
			if d := got["lossless_drops"]; !strings.Contains(d.Detail, tc.drops) {
				t.Errorf("lossless_drops = %+v, want %q", d, tc.drops)
			}
			if p := got["pfc_priority"]; !strings.Contains(p.Detail, tc.pauses) || p.Subject != "mlx5_0:1 (ens1f0np0) global" {
				t.Errorf("pfc_priority = %+v, want %q", p, tc.pauses)
			}
			if len(got) != 2 {
				t.Errorf("failures = %+v, want lossless_drops and pfc_priority", got)
			}
		})
	}
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}
