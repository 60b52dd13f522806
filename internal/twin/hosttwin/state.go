package hosttwin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/clusterbid/terraform-provider-roce/internal/twin/hostprofile"
)

// stateVersion is the format of fleet.json.
const stateVersion = 1

// fleetState is fleet.json: what another process needs to Attach.
type fleetState struct {
	Version        int         `json:"version"`
	FleetID        string      `json:"fleet_id"`
	StateDir       string      `json:"state_dir"`
	Temporary      bool        `json:"temporary"`
	LogDir         string      `json:"log_dir,omitempty"`
	Rootview       bool        `json:"rootview"`
	StartTimeoutMS int64       `json:"start_timeout_ms"`
	Network        bool        `json:"network"`
	Hosts          []hostState `json:"hosts"`
}

// hostState is one host in fleet.json.
type hostState struct {
	Host
	Index   int                 `json:"index"`
	Spec    hostprofile.Profile `json:"profile_spec"`
	LogFile string              `json:"log_file"`
	PID     int                 `json:"pid"`
	Start   uint64              `json:"pid_start_time"`
	MountNS string              `json:"mount_ns"`
	Marker  string              `json:"mount_marker"`
	Listen  string              `json:"listen"`
	Link    string              `json:"link,omitempty"`
}

// saveState writes fleet.json.
func (f *Fleet) saveState() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.stopped {
		return nil
	}
	st := fleetState{
		Version:        stateVersion,
		FleetID:        f.id,
		StateDir:       f.stateDir,
		Temporary:      f.temporary,
		LogDir:         f.logDir,
		Rootview:       f.rootview,
		StartTimeoutMS: f.timeout.Milliseconds(),
		Network:        f.network,
	}
	for _, t := range f.twins {
		t.mu.Lock()
		st.Hosts = append(st.Hosts, hostState{
			Host: t.host, Index: t.index, Spec: t.profile, LogFile: t.logFile,
			PID: t.pid, Start: t.start, MountNS: t.ns, Marker: t.marker,
			Listen: t.listen, Link: t.link,
		})
		t.mu.Unlock()
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(stateFilePath(f.stateDir), append(b, '\n'), 0o644)
}

// readState reads fleet.json from stateDir.
func readState(stateDir string) (fleetState, error) {
	var st fleetState
	b, err := os.ReadFile(stateFilePath(stateDir))
	if err != nil {
		return st, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return st, fmt.Errorf("%s: %w", stateFilePath(stateDir), err)
	}
	if st.Version != stateVersion {
		return st, fmt.Errorf("%s: version %d, want %d", stateFilePath(stateDir), st.Version, stateVersion)
	}
	return st, nil
}

// reclaim makes stateDir ready for a new fleet. It fails when a fleet
// recorded there still has a running host; otherwise it ends what a
// crashed fleet may have left (commands that outlived their sshd, and so
// their namespaces and mounts).
func reclaim(ctx context.Context, stateDir string) error {
	old, err := Attach(stateDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, t := range old.twins {
		if sameProcess(t.pid, t.start) {
			return fmt.Errorf("state directory %s: host %s is running (pid %d); stop that fleet first", stateDir, t.host.Name, t.pid)
		}
	}
	errs := old.eachTwin(func(t *twin) error { return t.kill(ctx) })
	return errors.Join(errs...)
}

// removeStateFile removes fleet.json unless it describes another fleet
// (a later Start in the same directory).
func (f *Fleet) removeStateFile() error {
	st, err := readState(f.stateDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil && st.FleetID != f.id {
		return nil
	}
	return os.Remove(stateFilePath(f.stateDir))
}

// Attach returns the fleet that Start left running in stateDir, typically
// from another process, so it can be inspected, changed or stopped.
// Hosts whose sshd has since died are listed but not running.
func Attach(stateDir string) (*Fleet, error) {
	st, err := readState(stateDir)
	if err != nil {
		return nil, fmt.Errorf("attach %s: %w", stateDir, err)
	}
	f := &Fleet{
		id:        st.FleetID,
		stateDir:  st.StateDir,
		temporary: st.Temporary,
		logDir:    st.LogDir,
		rootview:  st.Rootview,
		timeout:   time.Duration(st.StartTimeoutMS) * time.Millisecond,
		network:   st.Network,
		byName:    map[string]*twin{},
	}
	if f.timeout <= 0 {
		f.timeout = defaultStartTimeout
	}
	for _, h := range st.Hosts {
		if h.Listen == "" {
			h.Listen = "127.0.0.1"
		}
		t := &twin{
			host:    h.Host,
			index:   h.Index,
			profile: h.Spec,
			paths:   hostPaths(hostDirPath(f.stateDir, h.Name)),
			logFile: h.LogFile,
			pid:     h.PID,
			start:   h.Start,
			ns:      h.MountNS,
			marker:  h.Marker,
			listen:  h.Listen,
			link:    h.Link,
		}
		f.twins = append(f.twins, t)
		f.byName[h.Name] = t
	}
	return f, nil
}
