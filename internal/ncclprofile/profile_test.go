package ncclprofile

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/clusterbid/terraform-provider-roce/internal/fabric"
	"github.com/clusterbid/terraform-provider-roce/internal/host/facts"
	"github.com/clusterbid/terraform-provider-roce/internal/violation"
)

func ptr(i int) *int { return &i }

func railProfile() Profile {
	return Profile{
		HCAs:             []string{"mlx5_0", "mlx5_1"},
		SocketIfname:     "=eth0",
		RDMADSCP:         26,
		GIDIndex:         GIDAuto,
		QPsPerConnection: ptr(4),
		CrossNIC:         ptr(0),
		GDRLevel:         "PXB",
	}
}

func TestRender(t *testing.T) {
	conf, script, err := railProfile().Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	wantConf := "NCCL_IB_HCA==mlx5_0,mlx5_1\nNCCL_SOCKET_IFNAME==eth0\nNCCL_IB_TC=106\nNCCL_IB_QPS_PER_CONNECTION=4\nNCCL_CROSS_NIC=0\nNCCL_NET_GDR_LEVEL=PXB\n"
	if diff := cmp.Diff(wantConf, conf); diff != "" {
		t.Errorf("nccl.conf (-want +got):\n%s", diff)
	}
	if !strings.Contains(script, "export NCCL_IB_HCA='=mlx5_0,mlx5_1'\n") || !strings.Contains(script, "export NCCL_IB_TC=106\n") {
		t.Errorf("profile.d script:\n%s", script)
	}
}

func TestRenderCommentOnlyWhereNCCLSkipsIt(t *testing.T) {
	p := railProfile()
	p.NCCLVersion = "2.26.2-1"
	conf, _, err := p.Render(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(conf, "# Managed by Terraform") {
		t.Errorf("NCCL 2.26 skips comments, so the header should be there:\n%s", conf)
	}
	p.NCCLVersion = "2.23.4-1"
	conf, _, _ = p.Render(nil)
	if strings.Contains(conf, "#") {
		t.Errorf("NCCL 2.23 reads '#' lines as variables; no comment expected:\n%s", conf)
	}
}

func gidTable(indexes map[string]int) []facts.GIDEntry {
	var out []facts.GIDEntry
	for dev, idx := range indexes {
		out = append(out,
			facts.GIDEntry{Device: dev, Port: 1, Index: 0, Type: facts.GIDRoCEv1},
			facts.GIDEntry{Device: dev, Port: 1, Index: idx, Type: facts.GIDRoCEv2, IPv4: true, GID: "0000:0000:0000:0000:0000:ffff:0a00:0001"},
		)
	}
	return out
}

func TestDetectGIDIndex(t *testing.T) {
	p := railProfile()
	p.GIDIndex = GIDDetect
	settings, err := p.Settings(gidTable(map[string]int{"mlx5_0": 5, "mlx5_1": 5, "mlx5_2": 3}))
	if err != nil {
		t.Fatal(err)
	}
	if last := settings[len(settings)-1]; last != (fabric.NCCLSetting{Name: "NCCL_IB_GID_INDEX", Value: "5"}) {
		t.Errorf("detected %v, want NCCL_IB_GID_INDEX=5 (mlx5_2 is not in hcas)", last)
	}
	_, err = p.Settings(gidTable(map[string]int{"mlx5_0": 3, "mlx5_1": 5}))
	if err == nil || !strings.Contains(err.Error(), "3 on mlx5_0; 5 on mlx5_1") {
		t.Errorf("disagreeing HCAs: %v", err)
	}
	p.HCAs = nil
	_, err = p.Settings(gidTable(map[string]int{"mlx5_0": 3, "mlx5_1": 5}))
	if err == nil {
		t.Error("all HCAs disagreeing was accepted")
	}
	_, err = p.Settings(nil)
	if err == nil || !strings.Contains(err.Error(), "no GID table") {
		t.Errorf("empty table: %v", err)
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Profile)
		want   []string
	}{
		{"sound", func(*Profile) {}, nil},
		{"prefix syntax in hca", func(p *Profile) { p.HCAs = []string{"=mlx5_0"} }, []string{"error Profile.HCAs[0]"}},
		{"dscp", func(p *Profile) { p.RDMADSCP = 64 }, []string{"error Profile.RDMADSCP"}},
		{"gid index", func(p *Profile) { p.GIDIndex = "3rd" }, []string{"error Profile.GIDIndex"}},
		{"qps", func(p *Profile) { p.QPsPerConnection = ptr(0) }, []string{"error Profile.QPsPerConnection"}},
		{"gdr level", func(p *Profile) { p.GDRLevel = "NEAR" }, []string{"error Profile.GDRLevel"}},
		{"unknown extra", func(p *Profile) { p.Extra = map[string]string{"NCCL_ZZZ_UNKNOWN": "Ring"} }, []string{`warning Profile.Extra["NCCL_ZZZ_UNKNOWN"]`}},
		{"typed in extra", func(p *Profile) { p.Extra = map[string]string{"NCCL_IB_TC": "106"} }, []string{`error Profile.Extra["NCCL_IB_TC"]`}},
		{"bad extra value", func(p *Profile) { p.Extra = map[string]string{"NCCL_IB_TIMEOUT": "99"} }, []string{`error Profile.Extra["NCCL_IB_TIMEOUT"]`}},
		{"empty extra value", func(p *Profile) { p.Extra = map[string]string{"NCCL_IB_DISABLE": ""} }, []string{`error Profile.Extra["NCCL_IB_DISABLE"]`}},
		{"lower-case extra name", func(p *Profile) { p.Extra = map[string]string{"nccl_ib_timeout": "5"} }, []string{`error Profile.Extra["nccl_ib_timeout"]`}},
		{"extra name without NCCL_", func(p *Profile) { p.Extra = map[string]string{"IB_TIMEOUT": "5"} }, []string{`error Profile.Extra["IB_TIMEOUT"]`}},
		{"several extras", func(p *Profile) {
			p.Extra = map[string]string{"NCCL_IB_TC": "106", "NCCL_IB_TIMEOUT": "99", "NCCL_ZZZ_UNKNOWN": "Ring", "nccl_x": "1"}
		}, []string{`error Profile.Extra["NCCL_IB_TC"]`, `error Profile.Extra["nccl_x"]`, `error Profile.Extra["NCCL_IB_TIMEOUT"]`, `warning Profile.Extra["NCCL_ZZZ_UNKNOWN"]`}},
		{"nccl version", func(p *Profile) { p.NCCLVersion = "two" }, []string{"error Profile.NCCLVersion"}},
		{"nccl version with build", func(p *Profile) { p.NCCLVersion = "2.26.2-1+cuda12.8" }, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := railProfile()
			tt.change(&p)
			var got []string
			for _, f := range p.Validate() {
				got = append(got, f.Severity.String()+" "+f.At.String())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRenderKeepsEmptyExtraForTheError(t *testing.T) {
	p := railProfile()
	p.Extra = map[string]string{"NCCL_IB_DISABLE": ""}
	if _, _, err := p.Render(nil); err == nil || !strings.Contains(err.Error(), "value is empty") {
		t.Errorf("Render = %v, want the empty value refused, not dropped", err)
	}
}

func TestValidateNamesTheVariable(t *testing.T) {
	p := railProfile()
	p.Extra = map[string]string{"nccl_ib_timeout": "5"}
	fs := p.Validate()
	want := `Profile.Extra["nccl_ib_timeout"]: variable name "nccl_ib_timeout" is invalid: use NCCL_ followed by upper-case letters, digits and underscores (did you mean NCCL_IB_TIMEOUT?)`
	if len(fs) != 1 || !strings.Contains(detail(fs[0]), want) {
		t.Errorf("findings %v, want one whose detail contains %q", fs, want)
	}
}

// TestAutoGIDByVersion: gid_index = "auto" leaves NCCL_IB_GID_INDEX to NCCL 2.21+ and
// writes the RoCE v2 IPv4 index for older NCCL, whose default is index 0; the version is
// nccl_version, else the host's.
func TestAutoGIDByVersion(t *testing.T) {
	gids := gidTable(map[string]int{"mlx5_0": 5, "mlx5_1": 5})
	for _, tc := range []struct {
		name                 string
		set, installed, from string
		wantLine, wantNote   string
		needNCCL, needGIDs   bool
	}{
		{"set old", "2.19.3", "", "", "NCCL_IB_GID_INDEX=5\n", "NCCL 2.19.3 (nccl_version) has no GID auto-selection before 2.21", false, true},
		{"installed old", "", "2.19.3", "package libnccl2 2.19.3-1+cuda12.2", "NCCL_IB_GID_INDEX=5\n", "NCCL 2.19.3 (the host's package libnccl2 2.19.3-1+cuda12.2) has no GID auto-selection", true, true},
		{"installed new", "", "2.21.5", "package libnccl2 2.21.5-1+cuda12.4", "", "NCCL 2.21.5 (the host's package libnccl2 2.21.5-1+cuda12.4) selects the RoCE v2 GID per HCA itself", true, true},
		{"set new wins over installed old", "2.23.4", "2.19.3", "package libnccl2 2.19.3-1+cuda12.2", "", "NCCL 2.23.4 (nccl_version) selects", false, false},
		{"unknown", "", "", "", "", "no NCCL on the host and nccl_version unset", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := railProfile()
			p.NCCLVersion, p.Installed, p.InstalledFrom = tc.set, tc.installed, tc.from
			conf, _, err := p.Render(gids)
			if err != nil {
				t.Fatal(err)
			}
			if tc.wantLine != "" && !strings.Contains(conf, tc.wantLine) || tc.wantLine == "" && strings.Contains(conf, "NCCL_IB_GID_INDEX") {
				t.Errorf("conf:\n%s\nwant line %q", conf, tc.wantLine)
			}
			if notes := p.Notes(gids); len(notes) != 1 || !strings.Contains(notes[0], tc.wantNote) {
				t.Errorf("notes %q, want one containing %q", notes, tc.wantNote)
			}
			// Before the host is read, only nccl_version is known.
			before := p
			before.Installed, before.InstalledFrom = "", ""
			if nccl, g := before.NeedsHost(); nccl != tc.needNCCL || g != tc.needGIDs {
				t.Errorf("NeedsHost() = %v, %v; want %v, %v", nccl, g, tc.needNCCL, tc.needGIDs)
			}
		})
	}
}

// TestAutoGIDOldNCCLDisagreeingHCAs: an old NCCL with HCAs whose RoCE v2 index differs has
// no file that works; the error says why and what to do.
func TestAutoGIDOldNCCLDisagreeingHCAs(t *testing.T) {
	p := railProfile()
	p.NCCLVersion = "2.20.5"
	_, _, err := p.Render(gidTable(map[string]int{"mlx5_0": 3, "mlx5_1": 5}))
	if err == nil || !strings.Contains(err.Error(), `gid_index = "auto" with NCCL 2.20.5`) || !strings.Contains(err.Error(), "run NCCL 2.21 or later") {
		t.Fatalf("error %v", err)
	}
}

// TestValidateByVersion: a variable the NCCL version does not read is an error naming the
// version and, when it is the host's, where it was found.
func TestValidateByVersion(t *testing.T) {
	p := railProfile()
	p.Installed, p.InstalledFrom = "2.21.5", "package libnccl2 2.21.5-1+cuda12.4"
	p.Extra = map[string]string{"NCCL_IB_ECE_ENABLE": "0"}
	fs := p.Validate()
	if len(fs) != 1 || fs[0].At.String() != `Profile.Extra["NCCL_IB_ECE_ENABLE"]` ||
		!strings.Contains(detail(fs[0]), "NCCL 2.21.5 does not read NCCL_IB_ECE_ENABLE") || !strings.Contains(detail(fs[0]), "host's package libnccl2") {
		t.Fatalf("findings %+v", fs)
	}
	p.NCCLVersion = "2.23.4"
	if fs := p.Validate(); len(fs) != 0 {
		t.Fatalf("with nccl_version 2.23.4: %+v", fs)
	}
}

func TestValidateConfFileAndAddrRange(t *testing.T) {
	for _, tc := range []struct {
		extra map[string]string
		want  string
	}{
		{map[string]string{"NCCL_CONF_FILE": "/etc/nccl-job.conf"}, "reads from the process environment only"},
		{map[string]string{"NCCL_IB_ADDR_RANGE": "fd00::/64"}, "is an INET6 prefix but NCCL_IB_ADDR_FAMILY is AF_INET"},
		{map[string]string{"NCCL_IB_ADDR_RANGE": "10.0.0.0/16", "NCCL_IB_ADDR_FAMILY": "AF_INET6"}, "is an INET prefix but NCCL_IB_ADDR_FAMILY is AF_INET6"},
		{map[string]string{"NCCL_IB_ADDR_RANGE": "fd00::/64", "NCCL_IB_ADDR_FAMILY": "AF_INET6"}, ""},
	} {
		p := railProfile()
		p.Extra = tc.extra
		fs := p.Validate()
		switch {
		case tc.want == "" && len(fs) != 0:
			t.Errorf("%v: findings %+v, want none", tc.extra, fs)
		case tc.want != "" && (len(fs) != 1 || !strings.Contains(detail(fs[0]), tc.want)):
			t.Errorf("%v: findings %+v, want one containing %q", tc.extra, fs, tc.want)
		}
	}
}

// detail is a violation's detail in the Go names of its fields.
func detail(v violation.Violation) string {
	_, d := v.Words(violation.GoNames)
	return d
}
