package sonic

import "testing"

func TestParseRelease(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"202411", "202411"},
		{"SONiC.202411.123", "202411"},
		{"SONiC.202505.480535-dd8e4c6e2", "202505"},
		{"SONiC.20241110.09", "202411"},
		{"20220532.72", "202205"},
		{"SONiC.202411_RC.8-8f9d0c09c_Internal", "202411"},
		{"SONiC.master.921927-18199d73f", "master"},
		{"master", "master"},
		{"version_202511_01", "202511"},
		{"SONiC-OS-202505.1", "202505"},
		{" sonic.202511.7 ", "202511"},
	}
	for _, tt := range tests {
		got, err := ParseRelease(tt.in)
		if err != nil {
			t.Errorf("ParseRelease(%q): %v", tt.in, err)
			continue
		}
		if got.String() != tt.want {
			t.Errorf("ParseRelease(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestParseReleaseRejects(t *testing.T) {
	for _, in := range []string{"", "SONiC", "SONiC.HEAD.0-dirty", "2024", "202413", "SONiC.1234567.1", "sonic.NA"} {
		if r, err := ParseRelease(in); err == nil {
			t.Errorf("ParseRelease(%q) = %q, want an error", in, r)
		}
	}
}

func TestReleaseCompare(t *testing.T) {
	must := func(s string) Release {
		t.Helper()
		r, err := ParseRelease(s)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	tests := []struct {
		a, b string
		want int
	}{
		{"202411", "202505", -1},
		{"202511", "202505", 1},
		{"SONiC.20241110.1", "202411", 0},
		{"master", "202511", 1},
	}
	for _, tt := range tests {
		if got := must(tt.a).Compare(must(tt.b)); got != tt.want {
			t.Errorf("%s.Compare(%s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	if !must("master").IsMaster() || must("202411").IsMaster() {
		t.Error("IsMaster wrong")
	}
	if !(Release{}).IsZero() || must("202411").IsZero() {
		t.Error("IsZero wrong")
	}
}
