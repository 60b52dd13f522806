package facts

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTrafficClass(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", NoTrafficClass},
		{"\n", NoTrafficClass},
		{"Global tclass=106\n", 106},
		{"Global tclass = 105", 105},
		{"106\n", 106},
		{"0\n", 0},
		{"-1\n", NoTrafficClass},
		{"Global tclass=-1\n", NoTrafficClass},
		{"Global tclass=106\ndst_ip=10.0.0.0/8,tclass=98\n", 106},
		{"dst_ip=10.0.0.0/8,tclass=98\n", NoTrafficClass},
	}
	for _, tt := range tests {
		got, err := ParseTrafficClass(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseTrafficClass(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"Global tclass=x\n", "Global class=106\n", "106 107\n", "256\n", "Global tclass=106\n106\n", "tclass\n"} {
		_, err := ParseTrafficClass(bad)
		wantParseError(t, err, "traffic_class")
	}
}

func TestParseTrafficClasses(t *testing.T) {
	out := "mlx5_0 Global tclass=106\nmlx5_0 dst_ip=10.0.0.0/8,tclass=98\nmlx5_1 \nmlx5_2 24\n"
	got, err := ParseTrafficClasses(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"mlx5_0": 106, "mlx5_1": NoTrafficClass, "mlx5_2": 24}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if got, err := ParseTrafficClasses(""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v, %v", got, err)
	}
	_, err = ParseTrafficClasses("mlx5_3 x\n")
	wantParseError(t, err, "traffic_class mlx5_3")
	_, err = ParseTrafficClasses("mlx5_3\n")
	wantParseError(t, err, "traffic_class")
}

// The script prints every line of every device's file, an empty file as the
// device alone, and leaves devices without the file out.
func TestTrafficClassScript(t *testing.T) {
	root := filepath.Join(t.TempDir(), "infiniband")
	writeFile(t, filepath.Join(root, "mlx5_0", "tc", "1", "traffic_class"), "Global tclass=106\ndst_ip=10.0.0.0/8,tclass=98\n")
	writeFile(t, filepath.Join(root, "mlx5_1", "tc", "1", "traffic_class"), "")
	writeFile(t, filepath.Join(root, "mlx5_2", "tc", "1", "traffic_class"), "24")
	writeFile(t, filepath.Join(root, "mlx5_3", "ports", "1", "state"), "4: ACTIVE\n") // inbox: no tc/
	script := strings.ReplaceAll(TrafficClassScript().String(), "/sys/class/infiniband", root)
	out := runScript(t, script)
	want := "mlx5_0 Global tclass=106\nmlx5_0 dst_ip=10.0.0.0/8,tclass=98\nmlx5_1 \nmlx5_2 24\n"
	if out != want {
		t.Errorf("output %q, want %q", out, want)
	}
	got, err := TrafficClassProbe.Parse(out)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(map[string]int{"mlx5_0": 106, "mlx5_1": NoTrafficClass, "mlx5_2": 24}, got); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
	if out := runScript(t, strings.ReplaceAll(TrafficClassScript().String(), "/sys/class/infiniband", filepath.Join(root, "none"))); out != "" {
		t.Errorf("no devices: %q", out)
	}
}

func FuzzTrafficClasses(f *testing.F) {
	f.Add("mlx5_0 Global tclass=106\nmlx5_1 \n")
	f.Add("mlx5_0 106\n")
	addSeeds(f)
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseTrafficClasses(in)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			return
		}
		for dev, v := range got {
			if v < NoTrafficClass || v > 255 {
				t.Errorf("%s: traffic class %d", dev, v)
			}
		}
	})
}
