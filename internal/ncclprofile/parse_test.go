package ncclprofile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
)

func TestParseConf(t *testing.T) {
	long := strings.Repeat("x", 1100)
	text := "# Managed by Terraform\n" +
		"NCCL_IB_TC=106\n" +
		"no equals sign\n" +
		"=orphan\n" +
		"NCCL_DEBUG=INFO=x\n" +
		" NCCL_IB_TC=0\n" + // the name keeps its space: another variable
		"NCCL_IB_TC=0\n" + // a second line of a name: setenv(..., 0) keeps the first
		"NCCL_SOCKET_IFNAME=eth0\r\n" +
		"NCCL_X=a\x00b\n" +
		"NCCL_LONG=" + long + "\n" +
		"NCCL_EMPTY=\n" +
		"NCCL_LAST=no newline"
	want := []fabric.NCCLSetting{
		{Name: "NCCL_IB_TC", Value: "106"},
		{Name: "NCCL_DEBUG", Value: "INFO=x"},
		{Name: " NCCL_IB_TC", Value: "0"},
		{Name: "NCCL_SOCKET_IFNAME", Value: "eth0\r"},
		{Name: "NCCL_X", Value: "a"},
		{Name: "NCCL_LONG", Value: long[:1023]},
		{Name: "NCCL_EMPTY", Value: ""},
		{Name: "NCCL_LAST", Value: "no newline"},
	}
	if d := cmp.Diff(want, ParseConf(text)); d != "" {
		t.Errorf("ParseConf (-want +got):\n%s", d)
	}
}

// TestFromConfRoundTrip: a rendered profile reads back as itself, the GID index as the number
// written.
func TestFromConfRoundTrip(t *testing.T) {
	full := railProfile()
	full.Debug, full.DebugSubsys, full.RDMADSCP = "INFO", "INIT,NET", 24
	full.Extra = map[string]string{"NCCL_IB_TIMEOUT": "22", "NCCL_IB_SL": "3"}
	numbered := railProfile()
	numbered.GIDIndex = "5"
	commented := railProfile()
	commented.NCCLVersion = "2.26.2"
	for name, p := range map[string]Profile{"rail": railProfile(), "full": full, "gid index": numbered,
		"header": commented, "defaults": {RDMADSCP: 26, GIDIndex: GIDAuto}} {
		t.Run(name, func(t *testing.T) {
			conf, _, err := p.Render(nil)
			if err != nil {
				t.Fatal(err)
			}
			got, unheld := FromConf(conf)
			want := p
			want.NCCLVersion = "" // not in the file
			if d := cmp.Diff(want, got); d != "" || len(unheld) > 0 {
				t.Errorf("FromConf(%q) (-want +got):\n%s\nunheld: %v", conf, d, unheld)
			}
		})
	}
}

func TestFromConfUnheld(t *testing.T) {
	text := "NCCL_IB_HCA=mlx5_0,mlx5_1\nNCCL_IB_TC=104\nNCCL_IB_QPS_PER_CONNECTION=04\nNCCL_CROSS_NIC=x\n" +
		"NCCL_IB_GID_INDEX=-1\nNCCL_CONF_FILE=/tmp/x\nnccl_lower=1\nNCCL_DEBUG=\nNCCL_SOCKET_IFNAME=eth0\r\nNCCL_GOOD=1\n"
	p, unheld := FromConf(text)
	want := Profile{RDMADSCP: fabric.DefaultRDMADSCP, GIDIndex: GIDAuto, Extra: map[string]string{"NCCL_GOOD": "1"}}
	if d := cmp.Diff(want, p); d != "" {
		t.Errorf("profile (-want +got):\n%s", d)
	}
	var names []string
	for _, s := range unheld {
		names = append(names, s.Name)
	}
	wantNames := []string{"NCCL_IB_HCA", "NCCL_IB_TC", "NCCL_IB_QPS_PER_CONNECTION", "NCCL_CROSS_NIC", "NCCL_IB_GID_INDEX",
		"NCCL_CONF_FILE", "nccl_lower", "NCCL_DEBUG", "NCCL_SOCKET_IFNAME"}
	if d := cmp.Diff(wantNames, names); d != "" {
		t.Errorf("unheld (-want +got):\n%s", d)
	}
	if p, _ := FromConf("NCCL_IB_HCA==mlx5_0,,mlx5_1\n"); p.HCAs != nil {
		t.Errorf("an empty HCA entry is held: %v", p.HCAs)
	}
}

// FuzzFromConf: parsing never panics, every setting is a line NCCL would set, and a profile
// read from any file renders to a file that reads back as the same profile.
func FuzzFromConf(f *testing.F) {
	for _, seed := range []string{
		"NCCL_IB_HCA==mlx5_0,mlx5_1\nNCCL_IB_TC=106\nNCCL_IB_GID_INDEX=3\n",
		"# header\nNCCL_IB_TC=106\nNCCL_IB_TC=0\nNCCL_DEBUG=INFO\n",
		"NCCL_SOCKET_IFNAME=^docker,lo\nNCCL_IB_QPS_PER_CONNECTION=4\nNCCL_CROSS_NIC=0\nNCCL_IB_TIMEOUT=22",
		"=\n\x00\r\n#=\nNCCL_X==\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		seen := map[string]bool{}
		for _, s := range ParseConf(text) {
			if s.Name == "" || strings.ContainsAny(s.Name, "=\n\x00") || strings.HasPrefix(s.Name, "#") ||
				strings.ContainsAny(s.Value, "\n\x00") || len(s.Name) > 1023 || len(s.Value) > 1023 || seen[s.Name] {
				t.Fatalf("setting %q not as NCCL would set it", s)
			}
			seen[s.Name] = true
		}
		p, _ := FromConf(text)
		conf, _, err := p.Render(nil)
		if err != nil {
			return // e.g. an extra value the renderer refuses
		}
		again, unheld := FromConf(conf)
		if d := cmp.Diff(p, again); d != "" || len(unheld) > 0 {
			t.Fatalf("%q -> %q reads back differently (-first +again):\n%s\nunheld: %v", text, conf, d, unheld)
		}
	})
}
