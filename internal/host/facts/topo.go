package facts

import (
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Topology is the GPU/NIC connection matrix printed by "nvidia-smi topo -m".
type Topology struct {
	// GPUs are the GPU labels in column order, e.g. "GPU0".
	GPUs []string
	// NICLabels are the NIC labels in column order: "NIC0" on current
	// drivers, the RDMA device name itself ("mlx5_0") on older ones.
	NICLabels []string
	// NICs maps each NIC label to its RDMA device, from the "NIC Legend"
	// ("NIC0" -> "mlx5_0"); a label without legend maps to itself.
	NICs map[string]string
	// Links maps row label -> column label -> link type ("X", "PIX", "PXB",
	// "PHB", "NODE", "SYS", "NV18", ...).
	Links map[string]map[string]string
	// CPUAffinity and NUMAAffinity map GPU labels to their affinity columns,
	// when printed (e.g. "0-47,96-143" and "0").
	CPUAffinity, NUMAAffinity map[string]string
}

// TopoCommand prints the topology matrix.
var TopoCommand = shell.New("nvidia-smi", "topo", "-m")

// TopoProbe is the GPU/NIC topology probe.
var TopoProbe = Probe[Topology]{Name: "nvidia-smi topo", Command: TopoCommand, Parse: ParseTopo}

// affinityHeaders are the two- and three-word column titles after the matrix.
var affinityHeaders = []string{"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"}

// ParseTopo reads the output of [TopoCommand]: the matrix (tab-separated, the
// header possibly wrapped in ANSI underline escapes, or in their "[4m" /
// "[0m" remains when the output went through a tool that drops the ESC
// byte), the legend, and the NIC legend.
func ParseTopo(out string) (Topology, error) {
	const fact = "nvidia-smi topo"
	ls := lines(stripSGRRemnants(stripANSI(out)))
	h := 0
	for h < len(ls) && strings.TrimSpace(ls[h]) == "" {
		h++
	}
	if h == len(ls) {
		return Topology{}, emptyError(fact)
	}
	cols := topoHeader(ls[h])
	n := 0
	for n < len(cols) && !isAffinityHeader(cols[n]) {
		n++
	}
	if n == 0 {
		return Topology{}, lineError(fact, h+1, ls[h], "no device columns in header")
	}
	devCols, affCols := cols[:n], cols[n:]
	t := Topology{
		NICs:         map[string]string{},
		Links:        map[string]map[string]string{},
		CPUAffinity:  map[string]string{},
		NUMAAffinity: map[string]string{},
	}
	known := map[string]bool{}
	for _, c := range devCols {
		if known[c] {
			return Topology{}, lineError(fact, h+1, ls[h], "column %q twice", c)
		}
		known[c] = true
		if strings.HasPrefix(c, "GPU") {
			t.GPUs = append(t.GPUs, c)
		} else {
			t.NICLabels = append(t.NICLabels, c)
			t.NICs[c] = c
		}
	}
	if len(t.GPUs) == 0 {
		return Topology{}, lineError(fact, h+1, ls[h], "no GPU columns in header")
	}
	i := h + 1
	for ; i < len(ls); i++ {
		line := ls[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "Legend:") {
			break
		}
		f := strings.Fields(line)
		if !known[f[0]] {
			return Topology{}, lineError(fact, i+1, line, "row %q is not a column of the header", f[0])
		}
		if len(f) < 1+n {
			return Topology{}, lineError(fact, i+1, line, "want %d cells, got %d", n, len(f)-1)
		}
		row := map[string]string{}
		for j, c := range devCols {
			row[c] = f[1+j]
		}
		t.Links[f[0]] = row
		for j, a := range affCols {
			if 1+n+j >= len(f) {
				break
			}
			switch a {
			case "CPU Affinity":
				t.CPUAffinity[f[0]] = f[1+n+j]
			case "NUMA Affinity":
				t.NUMAAffinity[f[0]] = f[1+n+j]
			}
		}
	}
	if err := t.readNICLegend(ls[i:], i); err != nil {
		return Topology{}, err
	}
	return t, nil
}

// readNICLegend reads "NIC0: mlx5_0" lines after a "NIC Legend:" line.
func (t *Topology) readNICLegend(ls []string, offset int) error {
	in := false
	for k, line := range ls {
		trimmed := strings.TrimSpace(line)
		if trimmed == "NIC Legend:" {
			in = true
			continue
		}
		if !in || trimmed == "" {
			continue
		}
		label, dev, ok := cutKV(trimmed)
		if !ok || strings.ContainsAny(label, " \t") || dev == "" {
			return lineError("nvidia-smi topo", offset+k+1, line, "want \"NICn: <device>\" in NIC legend")
		}
		if _, col := t.NICs[label]; !col {
			return lineError("nvidia-smi topo", offset+k+1, line, "legend names %q, which is not a column", label)
		}
		t.NICs[label] = dev
	}
	return nil
}

// topoHeader splits the header row into column titles. Tab-separated headers
// split on tabs; a header whose tabs became spaces splits on spaces, with the
// multi-word affinity titles joined again.
func topoHeader(line string) []string {
	var cols []string
	if strings.Contains(line, "\t") {
		for _, c := range strings.Split(line, "\t") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, c)
			}
		}
		return cols
	}
	f := strings.Fields(line)
	for k := 0; k < len(f); k++ {
		joined := false
		for _, a := range affinityHeaders {
			w := strings.Fields(a)
			if k+len(w) <= len(f) && strings.Join(f[k:k+len(w)], " ") == a {
				cols = append(cols, a)
				k += len(w) - 1
				joined = true
				break
			}
		}
		if !joined {
			cols = append(cols, f[k])
		}
	}
	return cols
}

func isAffinityHeader(c string) bool {
	for _, a := range affinityHeaders {
		if c == a {
			return true
		}
	}
	return false
}

// label resolves an RDMA device name ("mlx5_0") to its NIC label ("NIC0");
// labels and unknown names come back unchanged.
func (t Topology) label(name string) string {
	if _, ok := t.NICs[name]; ok {
		return name
	}
	for l, dev := range t.NICs {
		if dev == name {
			return l
		}
	}
	return name
}

// Link returns the connection type between a and b, e.g. Link("GPU0", "NIC0")
// or Link("GPU0", "mlx5_0") = "PIX". NICs may be named by label or RDMA
// device. It returns "" when either is unknown.
func (t Topology) Link(a, b string) string {
	a, b = t.label(a), t.label(b)
	if l := t.Links[a][b]; l != "" {
		return l
	}
	return t.Links[b][a]
}

// LinkRank orders link types from the closest to the farthest: X (self),
// NV# (NVLink), PIX, PXB, PHB, NODE, SYS, then anything unknown. NCCL uses GPU
// Direct RDMA by default only up to PXB.
func LinkRank(link string) int {
	switch {
	case link == "X":
		return 0
	case strings.HasPrefix(link, "NV"):
		return 1
	case link == "PIX":
		return 2
	case link == "PXB":
		return 3
	case link == "PHB":
		return 4
	case link == "NODE":
		return 5
	case link == "SYS":
		return 6
	}
	return 7
}

// BestNIC returns the RDMA device closest to gpu and the link to it; among
// equally close NICs the first column wins. ok is false when gpu is unknown
// or there are no NICs.
func (t Topology) BestNIC(gpu string) (device, link string, ok bool) {
	row, found := t.Links[gpu]
	if !found {
		return "", "", false
	}
	best := -1
	for _, l := range t.NICLabels {
		cell := row[l]
		if cell == "" {
			continue
		}
		if r := LinkRank(cell); best < 0 || r < best {
			best, device, link = r, t.NICs[l], cell
		}
	}
	return device, link, best >= 0
}
