package hostprofile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// PortConfig is what a host port's configuration means for its traffic: the
// priorities with PFC on (mlnx_qos) and with DCQCN's notification (NP) and
// reaction (RP) points enabled (ecn/roce_np|roce_rp/enable/<prio>).
type PortConfig struct {
	Netdev, RDMA string
	PFC, NP, RP  [8]bool
}

// ReadPortConfigs reads every RDMA port's configuration under root, the
// host's root as this machine sees it (hosttwin's Fleet.Root), in netdev
// order. A host without the OFED ecn tree (inbox driver) has DCQCN enabled on
// every priority, as the mlx5 firmware's default is; one without mlnx_qos
// state has PFC off, as a booted NIC has.
func ReadPortConfigs(root string) ([]PortConfig, error) {
	devs, err := os.ReadDir(filepath.Join(root, sysIB))
	if err != nil {
		return nil, err
	}
	var out []PortConfig
	for _, d := range devs {
		nets, err := os.ReadDir(filepath.Join(root, sysIB, d.Name(), "device/net"))
		if err != nil || len(nets) == 0 {
			continue
		}
		pc := PortConfig{RDMA: d.Name(), Netdev: nets[0].Name()}
		pc.PFC, err = readPFC(filepath.Join(root, runTwin, "qos", pc.Netdev))
		if err != nil {
			return nil, err
		}
		ecn := filepath.Join(root, sysNet, pc.Netdev, "ecn")
		for prio := range 8 {
			pc.NP[prio] = enabledOrAbsent(filepath.Join(ecn, "roce_np/enable", strconv.Itoa(prio)))
			pc.RP[prio] = enabledOrAbsent(filepath.Join(ecn, "roce_rp/enable", strconv.Itoa(prio)))
		}
		out = append(out, pc)
	}
	slices.SortFunc(out, func(a, b PortConfig) int { return strings.Compare(a.Netdev, b.Netdev) })
	return out, nil
}

// readPFC reads the pfc= line of the mlnx_qos stand-in's state file.
func readPFC(path string) ([8]bool, error) {
	var pfc [8]bool
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return pfc, nil
	}
	if err != nil {
		return pfc, err
	}
	for line := range strings.Lines(string(b)) {
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "pfc=")
		if !ok {
			continue
		}
		for i, f := range strings.Split(v, ",") {
			if i < 8 {
				pfc[i] = f == "1"
			}
		}
	}
	return pfc, nil
}

func enabledOrAbsent(path string) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return true
	}
	return strings.TrimSpace(string(b)) == "1"
}

// AddCounters adds eth to the netdev's ethtool -S counters and hw to the RDMA
// port's hw_counters under root, as traffic on a real NIC would.
func AddCounters(root, netdev, rdma string, eth, hw map[string]uint64) error {
	if len(eth) > 0 {
		path := filepath.Join(root, runTwin, "ethtool", netdev)
		cur, err := readCounterFile(path)
		if err != nil {
			return err
		}
		for k, v := range eth {
			cur[k] += v
		}
		var b bytes.Buffer
		for _, k := range slices.Sorted(maps.Keys(cur)) {
			fmt.Fprintf(&b, "%s %d\n", k, cur[k])
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := replaceFile(path, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	dir := filepath.Join(root, sysIB, rdma, "ports/1/hw_counters")
	for k, v := range hw {
		path := filepath.Join(dir, k)
		b, err := os.ReadFile(path)
		if err != nil {
			return fmt.Errorf("hw_counters of %s: %w", rdma, err)
		}
		n, _ := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
		if err := replaceFile(path, []byte(strconv.FormatUint(n+v, 10)+"\n"), 0o444); err != nil {
			return err
		}
	}
	return nil
}

// replaceFile writes path through a temporary file and a rename, so a reader (the ethtool
// stand-in, a grep of hw_counters) sees the old value or the new one, never an empty file, as
// a driver's counters never read half-updated.
func replaceFile(path string, data []byte, perm os.FileMode) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".new")
	if err := os.WriteFile(tmp, data, perm); err != nil {
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func readCounterFile(path string) (map[string]uint64, error) {
	cur := map[string]uint64{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return cur, nil
	}
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if n, err := strconv.ParseUint(v, 10, 64); ok && err == nil {
			cur[k] = n
		}
	}
	return cur, nil
}
