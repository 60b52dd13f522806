package hostprofile

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestBuildBaseLayout(t *testing.T) {
	base := sharedBase(t)
	for _, tool := range []string{"ibv_devinfo", "ibdev2netdev", "show_gids", "mlnx_qos", "cma_roce_tos", "nvidia-smi",
		"modprobe", "rmmod", "lsmod", "modinfo", "dmesg", "dkms", "mlxconfig", "systemctl", "journalctl", "udevadm", "twin-boot", "ethtool"} {
		st, err := os.Stat(filepath.Join(base, StandInDir, tool))
		if err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, %v", tool, err, st)
		}
	}
	if BootScript != "/usr/local/sbin/twin-boot" {
		t.Errorf("BootScript = %s", BootScript)
	}
	for _, r := range Repos() {
		if _, err := os.Stat(filepath.Join(base, r.Path(), "Release")); err != nil {
			t.Errorf("repository %s: %v", r.Path(), err)
		}
	}
	// ofed_info lives in the per-host layer only.
	if _, err := os.Lstat(filepath.Join(base, "usr/bin/ofed_info")); err == nil {
		t.Error("the base layer ships ofed_info")
	}
	for _, d := range []string{"usr", "usr/local", "usr/local/sbin", "srv"} {
		if st, err := os.Stat(filepath.Join(base, d)); err != nil || st.Mode().Perm() != 0o755 {
			t.Errorf("%s: mode %v, %v", d, st.Mode().Perm(), err)
		}
	}
	db := readFile(t, base, "usr/local/lib/twin/nvconfig.db")
	if !strings.Contains(db, "\nCNP_DSCP_P1 48\n") || !strings.Contains(db, "\nQOS_TRUST_STATE_P1 1 0=TRUST_PORT,1=TRUST_PCP,2=TRUST_DSCP,3=TRUST_DSCP_PCP\n") {
		t.Errorf("nvconfig.db:\n%s", db)
	}
	mods := readFile(t, base, "usr/local/lib/twin/modules.db")
	for _, m := range bootModules(true, true) {
		if !strings.Contains(mods, "\n"+m+" ") {
			t.Errorf("boot module %s is not in modules.db", m)
		}
	}
}

func TestBuildBaseCachedAndRebuilt(t *testing.T) {
	dir := fastTempDir(t)
	if err := BuildBase(dir, false); err != nil {
		t.Fatal(err)
	}
	tool := filepath.Join(dir, StandInDir, "lsmod")
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(tool, old, old); err != nil {
		t.Fatal(err)
	}
	if err := BuildBase(dir, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(tool); !st.ModTime().Equal(old) {
		t.Error("BuildBase rewrote an up-to-date base")
	}
	// A stale stamp and a stray tool: the base is rebuilt from scratch.
	writeFile(t, dir, baseStamp, "stale")
	writeFile(t, dir, "usr/local/sbin/leftover", "x")
	if err := BuildBase(dir, false); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(tool); st.ModTime().Equal(old) {
		t.Error("BuildBase kept a stale base")
	}
	if _, err := os.Stat(filepath.Join(dir, "usr/local/sbin/leftover")); err == nil {
		t.Error("stale file survived the rebuild")
	}
}

func TestBuildBaseConcurrent(t *testing.T) {
	dir := fastTempDir(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = BuildBase(dir, false)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, baseStamp)); err != nil {
		t.Error(err)
	}
}
