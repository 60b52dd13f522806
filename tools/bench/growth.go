package main

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// How controller CPU grows with the host count: for each RTT and -parallelism that ran at two
// or more host counts, the exponent b of cpu = a·hosts^b, fitted by least squares on the
// logarithms of every host count's figure. 1 is linear; the target is at most
// targetGrowthExponent, which a cache or a per-walk set-up that grows with the fleet misses.

// growthSeries is one step's controller CPU at each host count of a group.
type growthSeries struct {
	hosts []int
	cpu   []time.Duration
}

// exponent is the least-squares slope of log(cpu) over log(hosts); ok is false with fewer
// than two host counts or a zero figure.
func (g growthSeries) exponent() (float64, bool) {
	if len(g.hosts) < 2 {
		return 0, false
	}
	var xs, ys []float64
	for i, n := range g.hosts {
		if g.cpu[i] <= 0 {
			return 0, false
		}
		xs = append(xs, math.Log(float64(n)))
		ys = append(ys, math.Log(g.cpu[i].Seconds()))
	}
	mx, my := mean(xs), mean(ys)
	var num, den float64
	for i := range xs {
		num += (xs[i] - mx) * (ys[i] - my)
		den += (xs[i] - mx) * (xs[i] - mx)
	}
	if den == 0 {
		return 0, false
	}
	return num / den, true
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// renderGrowth prints the exponents of the no-op plan and of the full apply (plan and apply
// of fresh hosts) per group, or nothing when no group ran at two host counts.
func renderGrowth(results []scenarioResult) string {
	type key struct {
		rtt         time.Duration
		parallelism string // "10", or "hosts" when it followed the host count
	}
	groups := map[key][]scenarioResult{}
	var keys []key
	for _, r := range results {
		if r.pods > 1 {
			continue // the scale-out rows stand beside the one-state series, not in it
		}
		p := fmt.Sprint(r.effectiveParallelism())
		if r.parallelism == r.hosts {
			p = "hosts"
		}
		k := key{r.rtt, p}
		if _, seen := groups[k]; !seen {
			keys = append(keys, k)
		}
		groups[k] = append(groups[k], r)
	}
	var b strings.Builder
	for _, k := range keys {
		rs := groups[k]
		slices.SortFunc(rs, func(a, b scenarioResult) int { return a.hosts - b.hosts })
		var noop, full growthSeries
		for _, r := range rs {
			if s, ok := r.step(noopStep); ok {
				noop.hosts, noop.cpu = append(noop.hosts, r.hosts), append(noop.cpu, s.controller)
			}
			p, ok1 := r.step(planStep)
			a, ok2 := r.step(applyStep)
			if ok1 && ok2 {
				full.hosts, full.cpu = append(full.hosts, r.hosts), append(full.cpu, p.controller+a.controller)
			}
		}
		for _, g := range []struct {
			name string
			s    growthSeries
		}{{"no-op plan", noop}, {"full apply (plan and apply)", full}} {
			x, ok := g.s.exponent()
			if !ok {
				continue
			}
			mark := "met"
			if x > targetGrowthExponent {
				mark = "MISSED"
			}
			var figures []string
			for i, n := range g.s.hosts {
				figures = append(figures, fmt.Sprintf("%d hosts %.1f s", n, g.s.cpu[i].Seconds()))
			}
			fmt.Fprintf(&b, "- RTT %s, parallelism %s, %s: exponent %.2f, target ≤ %.1f: %s (controller CPU: %s)\n",
				k.rtt, k.parallelism, g.name, x, targetGrowthExponent, mark, strings.Join(figures, ", "))
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return "## Growth of controller CPU with hosts\n\n" + b.String()
}
