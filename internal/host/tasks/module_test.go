package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/host"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/host/ssh"
)

// moduleFacts are the facts ModuleLoaded reads: lsmod with mods, the stack,
// and the modules-load.d file of nvidia_peermem.
func moduleFacts(stack facts.OFEDFlavor, conf host.FileInfo, mods ...string) host.Facts {
	f := host.Facts{
		Host:     "h",
		Gathered: host.WantFacts(host.FactModules, host.FactOFED).WithFiles(ModulesLoadDir + "/nvidia_peermem.conf"),
		Absent:   map[string]string{},
		OFED:     facts.OFEDInfo{Flavor: stack},
		Modules:  map[string]facts.Module{"mlx5_core": {}},
		Files:    map[string]host.FileInfo{ModulesLoadDir + "/nvidia_peermem.conf": conf},
	}
	for _, m := range mods {
		f.Modules[m] = facts.Module{}
	}
	return f
}

func TestModuleLoadedPlan(t *testing.T) {
	const conf = ModulesLoadDir + "/nvidia_peermem.conf"
	loadLine := []string{"run: modprobe nvidia_peermem (as root)"}
	sum := shortHash(sha256Hex([]byte("nvidia_peermem\n")))
	tests := []struct {
		name    string
		task    ModuleLoaded
		facts   host.Facts
		want    []change
		wantErr error
		errText string
	}{
		{"load", ModuleLoaded{Module: "nvidia_peermem"}, moduleFacts(facts.OFEDDOCA, host.FileInfo{}),
			[]change{{"load kernel module nvidia_peermem", "not loaded", "loaded", loadLine}}, nil, ""},
		{"loaded", ModuleLoaded{Module: "nvidia-peermem"}, moduleFacts(facts.OFEDDOCA, host.FileInfo{}, "nvidia_peermem"),
			[]change{{Summary: "nvidia_peermem is loaded"}}, nil, ""},
		{"load and persist", ModuleLoaded{Module: "nvidia_peermem", Persist: true}, moduleFacts(facts.OFEDMLNX, host.FileInfo{}),
			[]change{
				{"load kernel module nvidia_peermem", "not loaded", "loaded", loadLine},
				{"load at boot: create " + conf + " (15 bytes)", "absent", "sha256 " + sum + " (15 bytes), mode 0644",
					[]string{"write: " + conf + " (15 bytes, mode 0644) (as root)"}},
			}, nil, ""},
		{"persisted", ModuleLoaded{Module: "nvidia_peermem", Persist: true}, moduleFacts(facts.OFEDDOCA, existing("nvidia_peermem\n", 0o644), "nvidia_peermem"),
			[]change{
				{Summary: "nvidia_peermem is loaded"},
				{Summary: "loaded at boot: " + conf + " has the wanted content (sha256 " + sum + ") and mode"},
			}, nil, ""},
		{"other module on inbox", ModuleLoaded{Module: "ib_umad"}, moduleFacts(facts.OFEDInbox, host.FileInfo{}),
			[]change{{"load kernel module ib_umad", "not loaded", "loaded", []string{"run: modprobe ib_umad (as root)"}}}, nil, ""},
		{"peermem on inbox", ModuleLoaded{Module: "nvidia_peermem"}, moduleFacts(facts.OFEDInbox, host.FileInfo{}),
			nil, ErrPeermemNeedsOFED, "install MLNX_OFED or DOCA-OFED"},
		{"bad name", ModuleLoaded{Module: "x;reboot"}, moduleFacts(facts.OFEDDOCA, host.FileInfo{}), nil, nil, `module name "x;reboot"`},
		{"dash first", ModuleLoaded{Module: "-r"}, moduleFacts(facts.OFEDDOCA, host.FileInfo{}), nil, nil, `module name "-r"`},
		{"no lsmod", ModuleLoaded{Module: "nvidia_peermem"}, host.Facts{Absent: map[string]string{"lsmod": "exit status 127: lsmod: not found"}},
			nil, nil, "cannot list loaded modules: exit status 127: lsmod: not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.task.Plan(tt.facts)
			if tt.wantErr != nil || tt.errText != "" {
				if err == nil || tt.wantErr != nil && !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errText) {
					t.Fatalf("error = %v, want %v containing %q", err, tt.wantErr, tt.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, readable(got)); diff != "" {
				t.Errorf("plan (-want +got):\n%s", diff)
			}
		})
	}
}

func TestModuleLoadedNeeds(t *testing.T) {
	got := ModuleLoaded{Module: "nvidia_peermem", Persist: true}.Needs().String()
	if want := "ofed_info,lsmod,file /etc/modules-load.d/nvidia_peermem.conf"; got != want {
		t.Errorf("Needs = %q, want %q", got, want)
	}
	if got := (ModuleLoaded{Module: "x"}).Needs().String(); got != "ofed_info,lsmod" {
		t.Errorf("Needs without Persist = %q", got)
	}
}

func TestExplainModprobe(t *testing.T) {
	invalid := &ssh.CommandError{Host: "h", Command: "modprobe nvidia_peermem", ExitStatus: 1,
		Stderr: []byte("modprobe: ERROR: could not insert 'nvidia_peermem': Invalid argument\n")}
	notFound := &ssh.CommandError{Host: "h", ExitStatus: 1, Stderr: []byte("modprobe: FATAL: Module nvidia_peermem not found\n")}
	tests := []struct {
		name   string
		module string
		err    error
		want   bool
	}{
		{"wrong order", "nvidia_peermem", invalid, true},
		{"not found", "nvidia_peermem", notFound, false},
		{"other module", "ib_umad", invalid, false},
		{"not a command error", "nvidia_peermem", errors.New("Invalid argument"), false},
	}
	for _, tt := range tests {
		got := explainModprobe(tt.module)(tt.err)
		if (got != nil) != tt.want {
			t.Errorf("%s: explained = %v, want explained %v", tt.name, got, tt.want)
			continue
		}
		if got == nil {
			continue
		}
		if !errors.Is(got, ErrDriverBuiltBeforeOFED) || !errors.Is(got, tt.err) {
			t.Errorf("%s: %v does not wrap ErrDriverBuiltBeforeOFED and the cause", tt.name, got)
		}
		for _, part := range []string{"built before OFED", "reinstall or rebuild the NVIDIA driver after OFED", "dkms autoinstall"} {
			if !strings.Contains(got.Error(), part) {
				t.Errorf("%s: %q lacks %q", tt.name, got, part)
			}
		}
	}
}
