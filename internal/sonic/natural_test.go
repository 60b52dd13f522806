package sonic

import "testing"

func TestNaturalCompare(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"Ethernet8", "Ethernet12", -1},
		{"Ethernet12", "Ethernet8", 1},
		{"9", "10", -1},
		{"Ethernet0|3", "Ethernet0|3", 0},
		{"a", "b", -1},
		{"x1y", "x01y", -1},
		{"abc", "ab", 1},
	}
	for _, tt := range tests {
		if got := NaturalCompare(tt.a, tt.b); got != tt.want {
			t.Errorf("NaturalCompare(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
