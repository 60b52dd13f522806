package facts

import (
	"regexp"
	"strings"

	"github.com/clusterbid/terraform-provider-roce/internal/shell"
)

// NVIDIADriver is the loaded NVIDIA kernel driver.
type NVIDIADriver struct {
	// Version is the driver version, e.g. "550.54.15".
	Version string
	// Open reports the open GPU kernel modules, which DMA-BUF needs.
	Open bool
	// Arch is the architecture when printed, e.g. "x86_64" or "aarch64".
	Arch string
	// GCC is the compiler line's value, e.g. "gcc version 12.3.0 (...)".
	GCC string
}

// NVIDIAVersionPath describes the loaded driver; it is absent when the
// nvidia module is not loaded.
const NVIDIAVersionPath = "/proc/driver/nvidia/version"

// NVIDIAVersionCommand prints the loaded driver's version file.
var NVIDIAVersionCommand = shell.New("cat", NVIDIAVersionPath)

// NVIDIAVersionProbe is the loaded NVIDIA driver probe.
var NVIDIAVersionProbe = Probe[NVIDIADriver]{Name: "nvidia driver", Command: NVIDIAVersionCommand, Parse: ParseNVIDIAVersion}

// nvrmLine matches both forms of the first line:
//
//	NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 ...
//	NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  550.54.15  Release Build  (...)  ...
var nvrmLine = regexp.MustCompile(`^NVRM version:\s+NVIDIA UNIX\s+(\S*?)\s*Kernel Module(?:\s+for\s+(\S+))?\s+([0-9]+(?:\.[0-9]+)+)\b`)

// ParseNVIDIAVersion reads the output of [NVIDIAVersionCommand].
func ParseNVIDIAVersion(out string) (NVIDIADriver, error) {
	const fact = "nvidia driver"
	var d NVIDIADriver
	for i, line := range lines(out) {
		t := strings.TrimSpace(line)
		if gcc, ok := strings.CutPrefix(t, "GCC version:"); ok {
			d.GCC = strings.TrimSpace(gcc)
			continue
		}
		if !strings.HasPrefix(t, "NVRM version:") {
			continue
		}
		m := nvrmLine.FindStringSubmatch(t)
		if m == nil {
			return NVIDIADriver{}, lineError(fact, i+1, line, "unknown NVRM version line")
		}
		d.Open = m[1] == "Open"
		d.Arch = m[2]
		if !d.Open {
			d.Arch = m[1]
		}
		d.Version = m[3]
	}
	if d.Version == "" {
		return NVIDIADriver{}, &ParseError{Fact: fact, Msg: "no NVRM version line", Err: ErrEmpty}
	}
	return d, nil
}
