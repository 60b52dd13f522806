package facts

import "testing"

func TestParseLockdown(t *testing.T) {
	tests := []struct {
		in     string
		want   LockdownMode
		blocks bool
	}{
		{fixture(t, "lockdown_none.txt"), LockdownNone, false},
		{fixture(t, "lockdown_integrity.txt"), LockdownIntegrity, true},
		{fixture(t, "lockdown_confidentiality.txt"), LockdownConfidentiality, true},
		{"", LockdownNone, false}, // no lockdown LSM
		{"\x1b[0mnone  [integrity]   confidentiality\r\n", LockdownIntegrity, true},
	}
	for _, tt := range tests {
		got, err := ParseLockdown(tt.in)
		if err != nil {
			t.Fatalf("ParseLockdown(%q) error: %v", tt.in, err)
		}
		if got != tt.want || got.BlocksDebugfsWrites() != tt.blocks {
			t.Errorf("ParseLockdown(%q) = %q (blocks %v), want %q (blocks %v)", tt.in, got, got.BlocksDebugfsWrites(), tt.want, tt.blocks)
		}
	}
}

func TestParseLockdownErrors(t *testing.T) {
	for _, in := range []string{
		"none integrity confidentiality\n",
		"[none] [integrity]\n",
		"none [integrity confidentiality\n",
		"[]\n",
		"cat: /sys/kernel/security/lockdown: Permission denied\n",
	} {
		_, err := ParseLockdown(in)
		wantParseError(t, err, "lockdown")
	}
}

func TestLockdownCommand(t *testing.T) {
	want := "cat /sys/kernel/security/lockdown 2>/dev/null || true"
	if got := LockdownCommand.String(); got != want {
		t.Errorf("command = %q, want %q", got, want)
	}
}

func FuzzLockdown(f *testing.F) {
	addSeeds(f, "lockdown_none.txt", "lockdown_integrity.txt", "lockdown_confidentiality.txt")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseLockdown(s)
		if err == nil && (m == "" || m == LockdownNone) == m.BlocksDebugfsWrites() {
			t.Errorf("mode %q blocks=%v", m, m.BlocksDebugfsWrites())
		}
	})
}
