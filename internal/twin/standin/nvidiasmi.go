package standin

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// nvidiaSMI imitates NVIDIA's nvidia-smi. GPUs come from /etc/twin/gpus
// ("index bdf busid uuid numa nic" per line) and the profile; NICs from the
// fake /sys/class/infiniband. It knows the summary table, -L, -q [-d
// TYPE,...] [-i N], --query-gpu=... --format=csv[,noheader][,nounits] and
// topo -m.
func nvidiaSMI(c *ctx, args []string) int {
	s := &smi{
		c:     c,
		gpus:  c.etc + "/gpus",
		model: c.getDefault("TWIN_GPU_MODEL", "NVIDIA H100 80GB HBM3"),
		fb:    c.getDefault("TWIN_GPU_FB_MIB", "81559"),
		bar1:  c.getDefault("TWIN_GPU_BAR1_MIB", "131072"),
		drv:   c.getDefault("TWIN_DRIVER_VERSION", "550.54.15"),
		cuda:  c.getDefault("TWIN_CUDA_VERSION", "12.4"),
	}
	if st, err := os.Stat(s.gpus); err != nil || st.Size() == 0 {
		c.print("No devices were found\n")
		return 6
	}
	if b, err := readBounded(s.gpus, 16<<20); err == nil {
		s.file = string(b)
	}
	if len(args) == 0 {
		s.summary()
		return 0
	}
	var mode, types, idx, fields, format string
	for len(args) > 0 {
		a := args[0]
		arg2 := ""
		if len(args) > 1 {
			arg2 = args[1]
		}
		switch {
		case a == "topo":
			if arg2 == "-m" || arg2 == "--matrix" {
				s.topo()
				return 0
			}
			return s.invalid()
		case a == "-L" || a == "--list-gpus":
			mode = "list"
		case a == "-q" || a == "--query":
			mode = "query"
		case a == "-d" || a == "--display" || a == "-i" || a == "--id":
			if a == "-d" || a == "--display" {
				types = arg2
			} else {
				idx = arg2
			}
			if len(args) < 2 {
				c.shErr(218, "shift: can't shift that many")
				return 2
			}
			args = args[1:]
		case strings.HasPrefix(a, "--display="):
			types = afterEq(a)
		case strings.HasPrefix(a, "--id="):
			idx = afterEq(a)
		case strings.HasPrefix(a, "--query-gpu="):
			mode, fields = "csv", afterEq(a)
		case strings.HasPrefix(a, "--format="):
			format = afterEq(a)
		case a == "-h" || a == "--help":
			c.print(echo("NVIDIA System Management Interface -- v" + s.drv))
			return 0
		default:
			return s.invalid()
		}
		args = args[1:]
	}
	if idx != "" && s.gpuLines(idx) == "" {
		c.print("No devices were found\n")
		return 6
	}
	for _, t := range commaWords(types) {
		switch t {
		case "MEMORY", "UTILIZATION", "ECC", "TEMPERATURE", "POWER", "CLOCK", "COMPUTE", "PIDS", "PERFORMANCE",
			"SUPPORTED_CLOCKS", "PAGE_RETIREMENT", "ACCOUNTING", "ENCODER_STATS", "SUPPORTED_GPU_TARGET_TEMP",
			"VOLTAGE", "FBC_STATS", "ROW_REMAPPER", "RESET_STATUS", "GSP_FIRMWARE_VERSION", "POWER_SMOOTHING",
			"POWER_PROFILES":
		default:
			return s.invalid()
		}
	}
	switch mode {
	case "list":
		for _, g := range readLoop(s.gpuLines("")) {
			c.print("GPU ", g[0], ": ", s.model, " (UUID: ", g[3], ")\n")
		}
		return 0
	case "query":
		return s.query(types, idx)
	case "csv":
		if format == "" {
			format = "csv"
		}
		return s.queryGPU(fields, format, idx)
	}
	return s.invalid()
}

type smi struct {
	c                          *ctx
	gpus, file                 string
	model, fb, bar1, drv, cuda string
}

// reserved is the FB memory the driver keeps, in MiB.
const reserved = 328

// afterEq is ${1#*=}.
func afterEq(a string) string {
	_, v, _ := strings.Cut(a, "=")
	return v
}

// commaWords is $(echo "$x" | tr , ' ') split into words.
func commaWords(x string) []string { return fields(strings.ReplaceAll(echo(x), ",", " ")) }

func (s *smi) invalid() int {
	s.c.errf("Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n")
	return 2
}

// gpuLines is the gpus file, or with idx the lines
// whose first field equals idx as awk compares ($1 == i: numerically when
// both look numeric).
func (s *smi) gpuLines(idx string) string {
	if idx == "" {
		return s.file
	}
	want := awkInput(idx)
	var b strings.Builder
	for _, r := range awkRecords(s.file) {
		f := fields(r)
		first := awkVal{kind: awkStr}
		if len(f) > 0 {
			first = awkInput(f[0])
		}
		if awkEqual(first, want) {
			b.WriteString(r + "\n")
		}
	}
	return b.String()
}

// readLoop is what "while read -r i bdf bus uuid numa nic" reads: one entry
// per newline-terminated line (a last line without one ends the loop
// unread), six fields, the last taking the rest of the line.
func readLoop(text string) [][6]string {
	lines := strings.Split(text, "\n")
	out := make([][6]string, 0, len(lines))
	for _, l := range lines[:len(lines)-1] {
		l = strings.ReplaceAll(l, "\x00", "")
		var v [6]string
		isWS := func(b byte) bool { return b == ' ' || b == '\t' || b == '\n' }
		i := 0
		for k := range 6 {
			for i < len(l) && isWS(l[i]) {
				i++
			}
			if k == 5 {
				v[k] = strings.TrimRight(l[i:], " \t\n")
				break
			}
			j := i
			for j < len(l) && !isWS(l[j]) {
				j++
			}
			v[k] = l[i:j]
			i = j
		}
		out = append(out, v)
	}
	return out
}

// wcLines is $(wc -l <"$gpus").
func (s *smi) wcLines() string { return strconv.Itoa(strings.Count(s.file, "\n")) }

// clock is date '+%a %b %e %H:%M:%S %Y'.
func clock() string { return time.Now().Format("Mon Jan _2 15:04:05 2006") }

func (s *smi) summary() {
	c := s.c
	c.print(clock(), "\n")
	sep := "+-----------------------------------------+------------------------+----------------------+\n"
	c.print("+-----------------------------------------------------------------------------------------+\n",
		"| NVIDIA-SMI ", pad(s.drv, 22, true), " Driver Version: ", pad(s.drv, 14, true), " CUDA Version: ", pad(s.cuda, 9, true), "|\n",
		"|-----------------------------------------+------------------------+----------------------+\n",
		"| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n",
		"| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n",
		"|                                         |                        |               MIG M. |\n",
		"|=========================================+========================+======================|\n")
	for _, g := range readLoop(s.gpuLines("")) {
		c.print("| ", pad(g[0], 3, false), "  ", pad(s.model, 29, true), "  On  | ", pad(g[2], 18, false), " Off |                    0 |\n",
			"| N/A   30C    P0             69W /  700W | ", pad("0MiB", 10, false), " / ", pad(s.fb+"MiB", 9, false), " |      0%      Default |\n",
			"|                                         |                        |             Disabled |\n",
			sep)
	}
	c.print("                                                                                         \n",
		"+-----------------------------------------------------------------------------------------+\n",
		"| Processes:                                                                              |\n",
		"|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n",
		"|        ID   ID                                                               Usage      |\n",
		"|=========================================================================================|\n",
		"|  No running processes found                                                             |\n",
		"+-----------------------------------------------------------------------------------------+\n")
}

// query is -q [-d TYPES] [-i N]; MEMORY is the only detailed type.
func (s *smi) query(types, idx string) int {
	c := s.c
	c.print("\n==============NVSMI LOG==============\n\n",
		pad("Timestamp", 42, true), ": ", clock(), "\n",
		pad("Driver Version", 42, true), ": ", s.drv, "\n",
		pad("CUDA Version", 42, true), ": ", s.cuda, "\n",
		"\n", pad("Attached GPUs", 42, true), ": ", s.wcLines(), "\n")
	kv := func(indent string, w int, pairs ...string) {
		for i := 0; i+1 < len(pairs); i += 2 {
			c.print(indent, pad(pairs[i], w, true), ": ", pairs[i+1], "\n")
		}
	}
	for _, g := range readLoop(s.gpuLines(idx)) {
		c.print("GPU ", g[2], "\n")
		if types == "" {
			kv("    ", 38, "Product Name", s.model, "Product Brand", "NVIDIA",
				"Product Architecture", s.c.getDefault("TWIN_GPU_ARCH", "Hopper"), "Persistence Mode", "Enabled",
				"GPU UUID", g[3], "Minor Number", g[0])
			c.print("    PCI\n")
			kv("        ", 34, "Bus Id", g[2])
		}
		if t := "," + types + ","; t == ",," || strings.Contains(t, ",MEMORY,") {
			c.print("    FB Memory Usage\n")
			fb, ok := c.arithVar(114, s.fb)
			if !ok {
				return 2
			}
			kv("        ", 34, "Total", s.fb+" MiB", "Reserved", strconv.Itoa(reserved)+" MiB", "Used", "0 MiB", "Free", itoa(fb-reserved)+" MiB")
			c.print("    BAR1 Memory Usage\n")
			bar1, ok := c.arithVar(116, s.bar1)
			if !ok {
				return 2
			}
			kv("        ", 34, "Total", s.bar1+" MiB", "Used", "1 MiB", "Free", itoa(bar1-1)+" MiB")
			c.print("    Conf Compute Protected Memory Usage\n")
			kv("        ", 34, "Total", "0 MiB", "Used", "0 MiB", "Free", "0 MiB")
		}
		c.print("\n")
	}
	return 0
}

// queryGPU is --query-gpu=FIELDS --format=FORMAT: CSV.
func (s *smi) queryGPU(fieldList, format, idx string) int {
	c := s.c
	f := "," + format + ","
	header, units := !strings.Contains(f, ",noheader,"), !strings.Contains(f, ",nounits,")
	if !strings.Contains(f, ",csv,") {
		return s.invalid()
	}
	if header {
		for _, r := range awkRecords(echo(fieldList)) {
			var hs []string
			if r != "" {
				hs = strings.Split(r, ",")
			}
			for i, h := range hs {
				if units && strings.HasPrefix(h, "memory.") {
					h += " [MiB]"
				}
				if i > 0 {
					c.print(", ")
				}
				c.print(h)
			}
			c.print("\n")
		}
	}
	for _, g := range readLoop(s.gpuLines(idx)) {
		line := ""
		for _, name := range commaWords(fieldList) {
			var v string
			switch name {
			case "index":
				v = g[0]
			case "name", "gpu_name":
				v = s.model
			case "uuid", "gpu_uuid":
				v = g[3]
			case "pci.bus_id", "gpu_bus_id":
				v = g[2]
			case "driver_version":
				v = s.drv
			case "memory.total":
				v = s.fb
			case "memory.used":
				v = "0"
			case "memory.free":
				fb, ok := c.arithVar(153, s.fb)
				if !ok {
					return 2
				}
				v = itoa(fb - reserved)
			case "persistence_mode":
				v = "Enabled"
			case "count":
				v = s.wcLines()
			default:
				c.errf("Field \"%s\" is not a valid field to query.\n", name)
				return 2
			}
			if units && strings.HasPrefix(name, "memory.") {
				v += " MiB"
			}
			if line != "" {
				line += ", "
			}
			line += v
		}
		c.print(echo(line))
	}
	return 0
}

// topo is topo -m: the GPU/NIC affinity matrix, computed with awk's
// comparison rules.
func (s *smi) topo() {
	c := s.c
	var nic []string
	var nnuma []awkVal
	for _, d := range c.rdmaDevs() {
		b := c.bdf(d)
		v, _ := readLine(c.sys + "/bus/pci/devices/" + b + "/numa_node")
		for _, r := range awkRecords(d + " " + v + "\n") {
			f := fields(r)
			nic = append(nic, at(f, 1))
			numa := awkVal{kind: awkStr}
			if len(f) >= 2 {
				numa = awkInput(f[1])
			}
			nnuma = append(nnuma, numa)
		}
	}
	var gnuma, gnic []awkVal
	for _, r := range awkRecords(s.file) {
		f := fields(r)
		elem := func(i int) awkVal {
			if i <= len(f) {
				return awkInput(f[i-1])
			}
			return awkVal{}
		}
		gnuma, gnic = append(gnuma, elem(5)), append(gnic, elem(6))
	}
	ng, nn := len(gnuma), len(nic)
	rel := func(g, n int) string {
		switch {
		case awkEqual(gnic[g], awkNumber(float64(n))):
			return "PIX"
		case awkEqual(gnuma[g], nnuma[n]):
			return "NODE"
		}
		return "SYS"
	}
	var b strings.Builder
	b.WriteString("\033[4m")
	for g := range ng {
		b.WriteString("\tGPU" + strconv.Itoa(g))
	}
	for n := range nn {
		b.WriteString("\tNIC" + strconv.Itoa(n))
	}
	b.WriteString("\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\033[0m\n")
	for g := range ng {
		b.WriteString("GPU" + strconv.Itoa(g))
		for h := range ng {
			if h == g {
				b.WriteString("\t X ")
			} else {
				b.WriteString("\tNV18")
			}
		}
		for n := range nn {
			b.WriteString("\t" + rel(g, n))
		}
		cpus := "48-95,144-191"
		if awkEqual(gnuma[g], awkNumber(0)) {
			cpus = "0-47,96-143"
		}
		b.WriteString("\t" + cpus + "\t" + gnuma[g].str() + "\t\tN/A\n")
	}
	for n := range nn {
		b.WriteString("NIC" + strconv.Itoa(n))
		for g := range ng {
			b.WriteString("\t" + rel(g, n))
		}
		for m := range nn {
			switch {
			case m == n:
				b.WriteString("\t X ")
			case awkEqual(nnuma[m], nnuma[n]):
				b.WriteString("\tNODE")
			default:
				b.WriteString("\tSYS")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\nLegend:\n\n" +
		"  X    = Self\n" +
		"  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n" +
		"  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n" +
		"  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n" +
		"  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n" +
		"  PIX  = Connection traversing at most a single PCIe bridge\n" +
		"  NV#  = Connection traversing a bonded set of # NVLinks\n")
	if nn > 0 {
		b.WriteString("\nNIC Legend:\n\n")
		for n := range nn {
			b.WriteString("  NIC" + strconv.Itoa(n) + ": " + nic[n] + "\n")
		}
	}
	b.WriteString("\n")
	c.print(b.String())
}
