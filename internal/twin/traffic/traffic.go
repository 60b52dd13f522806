// Package traffic moves the twins' counters the way RoCE traffic moves a real
// fabric's, from what each switch and NIC is configured to do: ECN marks
// where the switch queue marks, CNPs only where the receiving NIC's
// notification point is on for the priority, rate reaction only where the
// sender's reaction point is on, pauses only where PFC is on at both ends of
// a cable, and drops (with the recovery they cause, see recover.go) where it is
// not. A misconfiguration therefore shows in the counters as it would on real
// gear. Faults (a drop on a lossless queue, a PFC storm) add what their real
// causes add.
package traffic

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/sonic"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/hosttwin"
	"github.com/clusterbid/terraform-provider-roce/internal/twin/switchtwin"
)

// Link is one cable: a host's RDMA port on a switch port.
type Link struct {
	Switch     *switchtwin.Twin
	SwitchName string
	Port       string
	Host       string // the fleet's host name
	Netdev     string
	RDMA       string
}

// Model drives a fabric's counters. Its fault methods are safe to call while another
// goroutine steps it; steps themselves run one at a time (Run, or one caller of Step).
type Model struct {
	fleet    *hosttwin.Fleet
	links    []Link
	priority int

	mu     sync.Mutex
	drops  map[string]bool // "switch/port": egress drops on the lossless queue
	storms map[string]bool // "switch/port": a PFC storm from the host behind the port

	// losses counts, per link, the packets lost on it so far modulo packetsPerMessage: which
	// loss falls on a message's last packet (see recover.go). Only Step touches it.
	losses []uint64
}

// Per tick and per link: the lossless priority's packets and what congestion does to them.
const (
	packetsPerTick     = 10000
	bytesPerPacket     = 4096
	ecnMarksPerTick    = 200
	cnpsPerMark        = 2  // one CNP per two marks: the NP's min_time_between_cnps
	pausesWithECN      = 4  // ECN keeps queues short: few pauses
	pausesWithoutECN   = 40 // without it, PFC does all the work
	pauseMicroseconds  = 84 // a pause of 0xffff quanta (512 bit times each) at 400 Gb/s
	dropsWithoutPFC    = 25
	faultDropsPerTick  = 30
	stormPausesPerTick = 5000
)

// Switch is a switch twin and the name it goes by in the model's faults.
type Switch struct {
	Name string
	Twin *switchtwin.Twin
}

// Cable connects the fleet's RDMA ports to the switches' ports rail by rail, as a
// rail-optimised pod is wired: every host's first port (in netdev order), then every host's
// second, and so on, each on the next switch in turn and on that switch's next free port
// (SONiC's port order). Ports left over when the switches' ports run out stay uncabled and
// carry no traffic; Links lists what was cabled.
func Cable(fleet *hosttwin.Fleet, switches []Switch, priority int) (*Model, error) {
	if priority < 0 || priority > 7 {
		return nil, fmt.Errorf("traffic: priority %d is not 0-7", priority)
	}
	if len(switches) == 0 {
		return nil, errors.New("traffic: no switches")
	}
	free := make([][]string, len(switches))
	for i, sw := range switches {
		free[i] = switchPorts(sw.Twin)
	}
	var hosts []string
	for _, h := range fleet.Hosts() {
		hosts = append(hosts, h.Name)
	}
	slices.Sort(hosts)
	ports := map[string][]hostprofile.PortConfig{}
	rails := 0
	for _, h := range hosts {
		root, err := fleet.Root(h)
		if err != nil {
			return nil, err
		}
		pcs, err := hostprofile.ReadPortConfigs(root)
		if err != nil {
			return nil, fmt.Errorf("traffic: host %s: %w", h, err)
		}
		ports[h] = pcs
		rails = max(rails, len(pcs))
	}
	m := &Model{fleet: fleet, priority: priority, drops: map[string]bool{}, storms: map[string]bool{}}
	next := 0
	for rail := range rails {
		for _, h := range hosts {
			if rail >= len(ports[h]) {
				continue
			}
			i := next % len(switches)
			next++
			if len(free[i]) == 0 {
				continue
			}
			pc := ports[h][rail]
			m.links = append(m.links, Link{Switch: switches[i].Twin, SwitchName: switches[i].Name, Port: free[i][0], Host: h, Netdev: pc.Netdev, RDMA: pc.RDMA})
			free[i] = free[i][1:]
		}
	}
	return m, nil
}

// switchPorts returns a switch's ports in SONiC's natural order (Ethernet0, Ethernet8, ...).
func switchPorts(t *switchtwin.Twin) []string {
	return slices.SortedFunc(maps.Keys(t.Table("PORT")), sonic.NaturalCompare)
}

// Links returns the cables, for tests and reports.
func (m *Model) Links() []Link { return slices.Clone(m.links) }

// DropOn makes the lossless queue of a switch port drop packets every tick, as a queue does
// whose buffer profile or WRED setting is wrong although PFC is on.
func (m *Model) DropOn(switchName, port string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.drops[switchName+"/"+port] = true
}

// StormOn makes the host behind a switch port send pause frames without draining, as a stuck
// NIC does: the switch's PFC watchdog (where it runs on the port) detects and restores a storm
// every tick, and the NIC's own stall detection counts warnings.
func (m *Model) StormOn(switchName, port string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.storms[switchName+"/"+port] = true
}

// ClearFaults ends every DropOn and StormOn.
func (m *Model) ClearFaults() {
	m.mu.Lock()
	defer m.mu.Unlock()
	clear(m.drops)
	clear(m.storms)
}

// switchState is what one switch port does with the lossless priority.
type switchState struct {
	pfc, ecn, watchdog bool
}

func (m *Model) switchStates() map[*switchtwin.Twin]map[string]switchState {
	out := map[*switchtwin.Twin]map[string]switchState{}
	p := strconv.Itoa(m.priority)
	for _, l := range m.links {
		if _, ok := out[l.Switch]; ok {
			continue
		}
		db := l.Switch.Snapshot()
		states := map[string]switchState{}
		for port := range db["PORT"] {
			qm, _ := db.Entry("PORT_QOS_MAP", port)
			q, _ := db.Entry("QUEUE", port+"|"+p)
			wred, hasWRED := db.Entry("WRED_PROFILE", q["wred_profile"])
			_, wd := db.Entry("PFC_WD", port)
			states[port] = switchState{
				pfc:      slices.Contains(strings.Split(qm["pfc_enable"], ","), p),
				ecn:      hasWRED && wred["ecn"] != "" && wred["ecn"] != "ecn_none",
				watchdog: wd,
			}
		}
		out[l.Switch] = states
	}
	return out
}

// Step advances the fabric by one tick.
func (m *Model) Step() error {
	m.mu.Lock()
	drops, storms := maps.Clone(m.drops), maps.Clone(m.storms)
	m.mu.Unlock()
	p := m.priority
	sw := m.switchStates()
	hostCfg := map[string]map[string]hostprofile.PortConfig{}
	roots := map[string]string{}
	for _, l := range m.links {
		if _, ok := hostCfg[l.Host]; ok {
			continue
		}
		root, err := m.fleet.Root(l.Host)
		if err != nil {
			return err
		}
		pcs, err := hostprofile.ReadPortConfigs(root)
		if err != nil {
			return err
		}
		roots[l.Host] = root
		hostCfg[l.Host] = map[string]hostprofile.PortConfig{}
		for _, pc := range pcs {
			hostCfg[l.Host][pc.Netdev] = pc
		}
	}
	type adds struct {
		eth, hw map[string]uint64
	}
	host := make([]adds, len(m.links))
	for i := range host {
		host[i] = adds{eth: map[string]uint64{}, hw: map[string]uint64{}}
	}
	var cnps uint64
	if len(m.losses) != len(m.links) {
		m.losses = make([]uint64, len(m.links))
	}
	// sent[i] are the packets link i's host sent that the fabric lost; received[i] those on
	// their way to it. Each is recovered (recover.go) once every link's losses are known.
	sent, received := make([]uint64, len(m.links)), make([]uint64, len(m.links))
	var errs []error
	for i, l := range m.links {
		s, hc := sw[l.Switch][l.Port], hostCfg[l.Host][l.Netdev]
		key := l.SwitchName + "/" + l.Port
		h := host[i]
		h.eth["rx_packets"] += packetsPerTick
		h.eth["tx_packets"] += packetsPerTick
		h.eth[fmt.Sprintf("rx_prio%d_packets", p)] += packetsPerTick
		h.eth[fmt.Sprintf("rx_prio%d_bytes", p)] += packetsPerTick * bytesPerPacket
		h.eth[fmt.Sprintf("tx_prio%d_packets", p)] += packetsPerTick
		h.eth[fmt.Sprintf("tx_prio%d_bytes", p)] += packetsPerTick * bytesPerPacket
		queue := map[string]uint64{"SAI_QUEUE_STAT_PACKETS": packetsPerTick, "SAI_QUEUE_STAT_BYTES": packetsPerTick * bytesPerPacket}
		port := map[string]uint64{}
		pg := map[string]uint64{}
		if s.ecn {
			queue["SAI_QUEUE_STAT_WRED_ECN_MARKED_PACKETS"] += ecnMarksPerTick
			h.hw["np_ecn_marked_roce_packets"] += ecnMarksPerTick
			if hc.NP[p] {
				h.hw["np_cnp_sent"] += ecnMarksPerTick / cnpsPerMark
				cnps += ecnMarksPerTick / cnpsPerMark
			}
		}
		pauses := uint64(pausesWithoutECN)
		if s.ecn {
			pauses = pausesWithECN
		}
		// The switch pauses the NIC when the port's egress to it backs up; the NIC counts
		// (and obeys) them only with PFC on for the priority. The NIC pauses the switch when
		// its receive buffer fills, which the switch obeys only with PFC on its side.
		if s.pfc {
			port[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_TX_PKTS", p)] += pauses
			if hc.PFC[p] {
				h.eth[fmt.Sprintf("rx_prio%d_pause", p)] += pauses
				h.eth[fmt.Sprintf("rx_prio%d_pause_duration", p)] += pauses * pauseMicroseconds
				h.eth[fmt.Sprintf("rx_prio%d_pause_transition", p)] += pauses / 2
			}
		} else {
			// The switch drops at ingress what the NIC sends and it cannot pause.
			pg["SAI_INGRESS_PRIORITY_GROUP_STAT_DROPPED_PACKETS"] += dropsWithoutPFC
			sent[i] += dropsWithoutPFC
		}
		if hc.PFC[p] {
			h.eth[fmt.Sprintf("tx_prio%d_pause", p)] += pauses / 2
			h.eth[fmt.Sprintf("tx_prio%d_pause_duration", p)] += pauses / 2 * pauseMicroseconds
			if s.pfc {
				port[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PKTS", p)] += pauses / 2
				port[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PAUSE_DURATION_US", p)] += pauses / 2 * pauseMicroseconds
			}
		} else {
			h.eth[fmt.Sprintf("rx_prio%d_discards", p)] += dropsWithoutPFC
			received[i] += dropsWithoutPFC
		}
		if drops[key] {
			queue["SAI_QUEUE_STAT_DROPPED_PACKETS"] += faultDropsPerTick
			received[i] += faultDropsPerTick
		}
		if storms[key] && hc.PFC[p] { // a NIC without PFC on the priority sends no pauses on it
			h.eth[fmt.Sprintf("tx_prio%d_pause", p)] += stormPausesPerTick
			h.eth["tx_pause_storm_warning_events"]++
			if s.pfc {
				port[fmt.Sprintf("SAI_PORT_STAT_PFC_%d_RX_PKTS", p)] += stormPausesPerTick
			}
		}
		// The watchdog holds a queue it caught storming until the storm ends (restoration
		// after restoration_time without pauses; the twin restores on the first quiet tick).
		if s.watchdog && s.pfc {
			// The configuration may change between this tick's read of it and now: a queue the
			// watchdog stopped watching has no storm state to hold.
			if err := l.Switch.SetQueueStormed(l.Port, p, storms[key] && hc.PFC[p]); !errors.Is(err, switchtwin.ErrNotWatched) {
				errs = append(errs, err)
			}
		}
		errs = append(errs, l.Switch.AddQueueCounters(l.Port, p, queue), l.Switch.AddPortCounters(l.Port, port),
			l.Switch.AddPGCounters(l.Port, p, pg))
	}
	m.recoverLosses(sent, received, func(i int) map[string]uint64 { return host[i].hw })
	// The CNPs reach the senders, every host a share; each reacts only where its RP is on for
	// the priority.
	n := uint64(len(m.links))
	for i, l := range m.links {
		h := host[i]
		hc := hostCfg[l.Host][l.Netdev]
		if share := cnps / n; share > 0 {
			if hc.RP[p] {
				h.hw["rp_cnp_handled"] += share
			} else {
				h.hw["rp_cnp_ignored"] += share
			}
		}
		errs = append(errs, hostprofile.AddCounters(roots[l.Host], l.Netdev, l.RDMA, h.eth, h.hw))
	}
	return errors.Join(errs...)
}

// Run steps the fabric every interval until ctx ends or steps ticks have run, whichever comes
// first: a bounded loop that stops by itself.
func (m *Model) Run(ctx context.Context, every time.Duration, steps int) error {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for range steps {
		if err := m.Step(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
	}
	return nil
}
