package facts

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// Unknown is the value of a size that nvidia-smi printed as "N/A".
const Unknown = -1

// GPUMemory is the memory section of one GPU in "nvidia-smi -q -d MEMORY".
// Sizes are in MiB; [Unknown] where nvidia-smi printed N/A.
type GPUMemory struct {
	// BusID is the GPU's PCI address as printed, e.g. "00000000:18:00.0".
	BusID string
	// FBTotal, FBUsed and FBFree are the framebuffer (device memory) sizes.
	FBTotal, FBUsed, FBFree int64
	// BAR1Total, BAR1Used and BAR1Free are the BAR1 aperture sizes; GPU
	// Direct RDMA maps peer memory through BAR1.
	BAR1Total, BAR1Used, BAR1Free int64
}

// GPUMemoryCommand prints the memory sections, BAR1 included ("-d BAR" is
// not a valid type).
var GPUMemoryCommand = shell.New("nvidia-smi", "-q", "-d", "MEMORY")

// GPUMemoryProbe is the GPU memory and BAR1 probe.
var GPUMemoryProbe = Probe[[]GPUMemory]{Name: "nvidia-smi memory", Command: GPUMemoryCommand, Parse: ParseGPUMemory}

// gpuHeading is the line that opens one GPU's part of "nvidia-smi -q": "GPU"
// and the PCI address, domain in 4 or 8 hex digits ("GPU 00000000:18:00.0").
// Full "-q" output also has headings that start with "GPU " ("GPU Operation
// Mode", "GPU Link Info", "GPU Reset Status", ...: driver 566.36 output in
// Jesse3692/MultiLanguageLearning cuda-c/docs/nvidia-smi.md); only a bus id
// makes a new GPU.
var gpuHeading = regexp.MustCompile(`^GPU ([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])$`)

// ParseGPUMemory reads the output of [GPUMemoryCommand] or of a full
// "nvidia-smi -q": a "GPU <bus id>" line per GPU followed by indented
// sections "FB Memory Usage" and "BAR1 Memory Usage" with "Total : 81559
// MiB" lines. Other sections (Conf Compute Protected Memory, Reserved lines,
// everything else of a full query) are skipped.
func ParseGPUMemory(out string) ([]GPUMemory, error) {
	const fact = "nvidia-smi memory"
	var gpus []GPUMemory
	var gpu *GPUMemory
	section := ""
	for i, line := range lines(out) {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if m := gpuHeading.FindStringSubmatch(trimmed); m != nil {
			gpus = append(gpus, GPUMemory{
				BusID:   m[1],
				FBTotal: Unknown, FBUsed: Unknown, FBFree: Unknown,
				BAR1Total: Unknown, BAR1Used: Unknown, BAR1Free: Unknown,
			})
			gpu, section = &gpus[len(gpus)-1], ""
			continue
		}
		key, val, ok := cutKV(trimmed)
		if !ok {
			section = trimmed
			continue
		}
		if gpu == nil || val == "" {
			continue // the log header: Timestamp, Driver Version, ...
		}
		var dst *int64
		switch section + "/" + key {
		case "FB Memory Usage/Total":
			dst = &gpu.FBTotal
		case "FB Memory Usage/Used":
			dst = &gpu.FBUsed
		case "FB Memory Usage/Free":
			dst = &gpu.FBFree
		case "BAR1 Memory Usage/Total":
			dst = &gpu.BAR1Total
		case "BAR1 Memory Usage/Used":
			dst = &gpu.BAR1Used
		case "BAR1 Memory Usage/Free":
			dst = &gpu.BAR1Free
		default:
			continue
		}
		v, err := parseMiB(val)
		if err != nil {
			return nil, wrapLineError(fact, i+1, line, err, "%s %s", section, key)
		}
		*dst = v
	}
	return gpus, nil
}

// parseMiB reads "81559 MiB" (or KiB, GiB) as MiB; "N/A" is [Unknown].
func parseMiB(s string) (int64, error) {
	if s == "N/A" || strings.HasPrefix(s, "[N/A]") || strings.HasPrefix(s, "Unknown") {
		return Unknown, nil
	}
	num, unit, _ := strings.Cut(s, " ")
	v, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, err
	}
	if v < 0 || v > 1<<40 {
		return 0, strconv.ErrRange
	}
	switch strings.TrimSpace(unit) {
	case "MiB", "":
		return v, nil
	case "GiB":
		return v * 1024, nil
	case "KiB":
		return v / 1024, nil
	}
	return 0, fmt.Errorf("unknown unit in %q", s)
}
