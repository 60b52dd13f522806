package facts

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParsePeerMem(t *testing.T) {
	tests := []struct {
		in   string
		want PeerMem
	}{
		{"", PeerMem{}},
		{"registered\n", PeerMem{Registered: true}},
		{"registered\n550.54.15\n", PeerMem{Registered: true, Version: "550.54.15"}},
		{"registered\n\n  1.3-0  \n", PeerMem{Registered: true, Version: "1.3-0"}},
	}
	for _, tt := range tests {
		got, err := ParsePeerMem(tt.in)
		if err != nil {
			t.Fatalf("ParsePeerMem(%q) error: %v", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("ParsePeerMem(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
	_, err := ParsePeerMem("cat: permission denied\n")
	wantParseError(t, err, "memory_peers")
}

func TestPeerMemCommand(t *testing.T) {
	want := `test -e /sys/kernel/mm/memory_peers/nv_mem/version && printf '%s\n' registered && ` +
		`cat /sys/kernel/mm/memory_peers/nv_mem/version 2>/dev/null || true`
	if got := PeerMemCommand.String(); got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

func FuzzPeerMem(f *testing.F) {
	f.Add("registered\n550.54.15\n")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		pm, err := ParsePeerMem(s)
		if err == nil && !pm.Registered && pm.Version != "" {
			t.Errorf("version without registration: %+v", pm)
		}
	})
}
